"""`ainvoke`: the model is awaited through its async path, so questions waiting for their model
hold no thread; the results are those of `invoke`."""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
from typing import Any

import pytest

from readi_graph.datasets.metaqa import load_questions
from readi_graph.environments.kg.answer_evidence import read as evidence_read
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.eval.latency import Delayed
from readi_graph.graph import build_graph
from readi_graph.offline.readi import OfflineModel

from fakes import function_model

QUESTION = {
    "question": "what films did [Robert Zemeckis] direct",
    "topic_entities": ["Robert Zemeckis"],
}


def _threaded_model() -> tuple[Any, list[str]]:
    """A delayed scripted model that notes the thread each reply is made on."""
    threads: list[str] = []

    def reply(prompt: str) -> str:
        threads.append(threading.current_thread().name)
        if "Answer the question" in prompt:
            return "Answer: {Forrest Gump}"
        return 'Path: {"Robert Zemeckis": ["Robert Zemeckis -> directed_by"]}'

    return Delayed(inner=function_model(reply), seconds=0.001), threads


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    keys = ("answers", "evidence", "path", "notes", "edits")
    assert {k: a.get(k) for k in keys} == {k: b.get(k) for k in keys}
    assert a["usage"]["llm_calls"] == b["usage"]["llm_calls"]


def test_ainvoke_calls_the_model_on_the_event_loop_and_answers_as_invoke(
    metaqa_kg: KnowledgeGraph,
) -> None:
    model, threads = _threaded_model()
    graph = build_graph(metaqa_kg, model)
    sync = graph.invoke(QUESTION)
    threads.clear()
    result = asyncio.run(graph.ainvoke(QUESTION))
    _same(result, sync)
    assert result["answers"] == ["Forrest Gump"]
    assert threads == ["MainThread", "MainThread"]  # awaited on the loop, not in a worker


def test_fidelis_ainvoke_answers_the_question_itself(metaqa_kg: KnowledgeGraph) -> None:
    """FiDeLiS under `ainvoke`: the model picks the candidates naming "Back to the Future" and
    answers with the ends of the paths it is shown, so the answer is what the beam search
    found on the KB (the three films), not a scripted string; `invoke` gives the same. The
    paper's search (`FidelisContext.paper()`): one pick keeps one path, each verified."""
    from readi_graph.strategies.fidelis.context import FidelisContext

    plan = '{"keywords": ["directed"], "planning_steps": [], "declarative_statement": "x"}'

    def reply(prompt: str) -> str:
        own = prompt.split("### Your turn")[-1]
        if "plan for it" in prompt:
            return plan
        if "choose how" in prompt:
            lines = re.findall(r"(?m)^(\d+)\. (.*)$", own)
            return json.dumps([int(n) for n, text in lines if "Back to the Future" in text])
        if "You check" in prompt:
            return "yes"
        return "{" + " | ".join(evidence_read.ends(own)) + "}"  # the chains' ends, as shown

    graph = build_graph(metaqa_kg, function_model(reply), strategy="fidelis")
    paper = FidelisContext.paper(evidence_layout="chains")  # the reply reads chains
    result = asyncio.run(graph.ainvoke(QUESTION, context=paper))
    films = ["Back to the Future", "Back to the Future Part II", "Back to the Future Part III"]
    assert sorted(result["answers"]) == films and result["grounded"]
    assert result.get("error") is None
    assert result["evidence"] == [[f, "directed_by", "Robert Zemeckis"] for f in films]
    assert result["path"] == [f"Robert Zemeckis -> <- directed_by -> {f}" for f in films]
    # plan, one selection among the 10 candidates, a verification per kept beam, the answer
    assert result["usage"]["llm_calls"] == 6 and result["usage"]["verifications"] == 3
    assert result["attempts"] == [
        {"step": 1, "beams": 1, "kept": 1, "candidates": 10, "choices": 10, "dead_beams": 0,
         "capped": False}
    ]  # fmt: skip
    _same(result, graph.invoke(QUESTION, context=paper))


def test_a_failed_async_call_is_retried_and_counted_once(metaqa_kg: KnowledgeGraph) -> None:
    """A transient error thrown into the node body unwinds it; the retry policy runs it again."""
    failures = [TimeoutError("slow API")]

    def reply(prompt: str) -> str:
        if failures:
            raise failures.pop()
        if "Answer the question" in prompt:
            return "Answer: {Forrest Gump}"
        return 'Path: {"Robert Zemeckis": ["Robert Zemeckis -> directed_by"]}'

    result = asyncio.run(build_graph(metaqa_kg, function_model(reply)).ainvoke(QUESTION))
    assert result["answers"] == ["Forrest Gump"] and result["usage"]["llm_calls"] == 2


def _os_threads() -> int:
    return len(os.listdir("/proc/self/task"))


@pytest.mark.virtuoso
def test_32_concurrent_questions_on_virtuoso_use_a_few_threads(
    virtuoso_kg: KnowledgeGraph, metaqa_dir: Any
) -> None:
    """32 questions at once over HTTP, each model reply 50 ms away: the same results as one
    at a time, and the process grows by no more than the default executor's threads."""
    questions = list(load_questions(metaqa_dir, 2, "dev"))[:32]
    model = Delayed(inner=OfflineModel.over(questions), seconds=0.05)
    graph = build_graph(virtuoso_kg, model)
    inputs = [{"question": q.question, "topic_entities": [q.topic]} for q in questions]
    one_by_one = [graph.invoke(x) for x in inputs]

    async def all_at_once() -> tuple[list[dict[str, Any]], int]:
        peak = _os_threads()

        async def watch() -> None:
            nonlocal peak
            while True:
                peak = max(peak, _os_threads())
                await asyncio.sleep(0.002)

        watcher = asyncio.create_task(watch())
        results = await asyncio.gather(*(graph.ainvoke(x) for x in inputs))
        watcher.cancel()
        return list(results), peak

    before = _os_threads()
    results, peak = asyncio.run(all_at_once())
    for got, expected in zip(results, one_by_one, strict=True):
        _same(got, expected)
    workers = min(32, (os.cpu_count() or 1) + 4)  # asyncio's default executor
    assert peak - before <= workers + 2, (before, peak)
