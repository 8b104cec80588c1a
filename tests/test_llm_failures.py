"""A model that fails, hangs, says nothing or says far too much: bounded, and a clear end."""

from __future__ import annotations

import time

import pytest

from readi_graph.core.context import ReadiContext
from readi_graph.core.prompts import estimate_tokens
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph

from fakes import function_model, path, scripted

QUESTION = {"question": "what films did [Tom Hanks] act in", "topic_entities": ["Tom Hanks"]}


def test_a_model_that_keeps_failing_is_tried_three_times_then_surfaces(
    metaqa_kg: KnowledgeGraph,
) -> None:
    model = scripted("unused", failures=[TimeoutError("slow")] * 10)
    with pytest.raises(TimeoutError):
        build_graph(metaqa_kg, model).invoke(QUESTION)
    assert len(model.prompts) == 3  # llm_retries, never more


def test_a_hanging_model_times_out(
    metaqa_kg: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openai_stub import openai_stub

    def slow(prompt: str) -> str:
        time.sleep(3)
        return "Path: {}"

    with openai_stub(slow) as (base_url, _):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        context = ReadiContext(model="stub", llm_timeout=0.5)
        started = time.monotonic()
        with pytest.raises(Exception, match=r"(?i)time"):
            build_graph(metaqa_kg, context=context).invoke(QUESTION, context=context)
        assert time.monotonic() - started < 15  # 3 attempts x 0.5 s + backoff, not 3 x 3 s


def test_empty_replies_spend_the_budget_and_end_with_a_reason(metaqa_kg: KnowledgeGraph) -> None:
    model = function_model(lambda _: "")
    published = {"max_edits": 2, "stop_hopeless": False}
    result = build_graph(metaqa_kg, model).invoke(QUESTION, context=published)
    assert result["usage"]["llm_calls"] == 3  # generate + 2 edits, no answer call
    assert result["usage"]["plans_unreadable"] == 3
    assert result["answers"] == [] and "no evidence" in result["answer"]
    # by default the second unreadable reply, told the same as the first, ends editing
    result = build_graph(metaqa_kg, model).invoke(QUESTION, context={"max_edits": 2})
    assert result["usage"]["llm_calls"] == 2 and result["usage"]["edit_stops"] == 1


def test_a_huge_reply_is_read_in_bounded_time(metaqa_kg: KnowledgeGraph) -> None:
    huge = "blah " * 400_000 + path({"Tom Hanks": ["Tom Hanks -> starred_actors"]})
    model = scripted(huge, "Answer: {Big}")
    started = time.monotonic()
    result = build_graph(metaqa_kg, model).invoke(QUESTION)
    assert time.monotonic() - started < 30
    assert result["path"] == ["Tom Hanks -> starred_actors"]  # read from the reply's end


def test_prompts_stay_under_the_token_budget(metaqa_kg: KnowledgeGraph) -> None:
    model = function_model(
        lambda p: (
            path({"Tom Hanks": ["Tom Hanks -> starred_actors -> has_tags"]})
            if "Answer the question" not in p
            else "Answer: {x}"
        )
    )
    context = ReadiContext(evidence_cap=5000, prompt_budget=900)
    result = build_graph(metaqa_kg, model).invoke(QUESTION, context=context)
    answer_prompt = model.prompts[-1]
    assert len(result["evidence"]) > 200  # far more than 900 tokens of triples
    assert estimate_tokens(answer_prompt) <= 900
    assert "cut to fit the prompt budget" in answer_prompt
    unbounded = function_model(model.reply)
    build_graph(metaqa_kg, unbounded).invoke(QUESTION, context=ReadiContext(evidence_cap=5000))
    assert estimate_tokens(unbounded.prompts[-1]) > 2 * 900
