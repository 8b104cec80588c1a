"""Token counts: as the model reports them, else counted by a real tokenizer (core/models/tokens.py),
and the run's usage says which tokenizer counted."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from readi_graph.core.models import tokens
from readi_graph.core.models.llm import call
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph

from fakes import path, routed, scripted


def test_the_tokenizer_counts_bpe_tokens_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    assert tokens.ENCODING == "cl100k_base"
    assert tokens.count("") == 0
    assert tokens.count("Hello world") == 2  # cl100k: "Hello", " world" (not 11 / 4 -> 3)
    assert tokens.count("Hello world" * 50) == 100  # 50 x ("Hello", " world")
    # special-token text is counted as ordinary text, never refused
    assert tokens.count("<|endoftext|>") > 1
    # a long text is counted in pieces, cut where tokens start: the same count as in one go
    long = "Hello world " * 20_000  # 240,000 characters: 3 pieces
    in_pieces = tokens.count(long)
    monkeypatch.setattr(tokens, "CHUNK", 10**6 - 1)
    assert in_pieces == tokens.count(long) == 40_001  # one piece
    monkeypatch.undo()
    # a flooded reply (the encoder alone refuses a million characters) is counted too
    assert tokens.count("Hello world " * 200_000) == 400_001


def test_a_model_that_reports_no_usage_is_counted_by_the_tokenizer() -> None:
    reply = call(scripted("Hello world"), "Hello world, twice: Hello world")
    assert (reply.prompt_tokens, reply.completion_tokens) == (
        tokens.count("Hello world, twice: Hello world"),
        2,
    )
    assert reply.counted_by == "cl100k_base"


def test_reported_usage_is_kept_and_not_marked_as_counted() -> None:
    usage = {"input_tokens": 123, "output_tokens": 7, "total_tokens": 130}
    model = scripted()
    model.messages = iter([AIMessage("Hello world", usage_metadata=usage)])
    reply = call(model, "Hello world")
    assert (reply.prompt_tokens, reply.completion_tokens, reply.counted_by) == (123, 7, None)


def test_a_run_says_which_tokenizer_counted(demo: KnowledgeGraph) -> None:
    """Readi with a scripted model (no usage reported): every call counted, and said so."""
    model = routed(
        path({"Joel Zwick": ["Joel Zwick -> directed"]}),
        "Answer: {My Big Fat Greek Wedding}",
    )
    out = build_graph(demo, model).invoke(
        {"question": "what did Joel Zwick direct?", "topic_entities": ["Joel Zwick"]}
    )
    usage = out["usage"]
    assert usage["llm_calls"] == 2
    assert usage["tokens_counted_by_cl100k_base"] == 2
    assert usage["prompt_tokens"] == sum(tokens.count(p) for p in model.prompts)
