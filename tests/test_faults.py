"""Faults between us and a real Virtuoso: bounded retries, Retry-After, timeouts, typed errors,
graph runs that end with an explanation, and an evaluation that resumes after an outage."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fault_proxy import FaultProxy, fault_proxy

from readi_graph.core.base import EndpointUnavailable, Term
from readi_graph.core.context import ReadiContext
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.store.local import metaqa_iri
from readi_graph.eval import runner
from readi_graph.eval.metrics import kgqa_scores
from readi_graph.eval.runner import Item, read_results
from readi_graph.graph import build_graph

from conftest import METAQA_GRAPH
from fakes import function_model, routed

ZWICK = Term("iri", metaqa_iri("Joel Zwick"))
INJECTED: dict[str, int] = {}  # summed over the module, printed for the closing note


@pytest.fixture
def proxy(virtuoso: Any) -> Iterator[FaultProxy]:
    with fault_proxy(virtuoso.endpoint) as p:
        yield p
        for kind, n in p.injected.items():
            INJECTED[kind] = INJECTED.get(kind, 0) + n


def _kg(proxy: FaultProxy, **client: Any) -> KnowledgeGraph:
    options = {"timeout": 5.0, "max_retries": 2, "backoff": 0.05, **client}
    return KnowledgeGraph.from_endpoint(proxy.url, default_graph=METAQA_GRAPH, **options)


@pytest.mark.parametrize("fault", ["drop", "500", "503", "truncate", "delay:0.2"])
def test_a_transient_fault_is_retried_once_and_the_answer_is_right(
    proxy: FaultProxy, fault: str
) -> None:
    kg = _kg(proxy)
    proxy.inject(fault)
    labels = kg.labels([ZWICK])
    assert labels[ZWICK] == "Joel Zwick"
    assert proxy.requests == (1 if fault.startswith("delay") else 2)


def test_retry_after_is_honoured(proxy: FaultProxy) -> None:
    kg = _kg(proxy)
    proxy.inject("429:1")
    started = time.monotonic()
    assert kg.labels([ZWICK])[ZWICK] == "Joel Zwick"
    assert time.monotonic() - started >= 1.0  # not the 0.05 s backoff
    assert proxy.requests == 2


def test_a_timeout_always_fires_and_the_error_names_the_endpoint(proxy: FaultProxy) -> None:
    kg = _kg(proxy, timeout=0.5, max_retries=1)
    proxy.inject("delay:3", "delay:3")
    started = time.monotonic()
    with pytest.raises(EndpointUnavailable, match="timed out") as caught:
        kg.labels([ZWICK])
    assert time.monotonic() - started < 5  # 2 attempts x 0.5 s + backoff, not 2 x 3 s
    assert proxy.url in str(caught.value) and proxy.requests == 2


def test_bounded_retries_then_a_typed_error(proxy: FaultProxy) -> None:
    kg = _kg(proxy)
    proxy.inject("503", "drop", "truncate", "503")
    with pytest.raises(EndpointUnavailable) as caught:
        kg.labels([ZWICK])
    assert proxy.requests == 3  # 1 + max_retries, never more
    assert caught.value.endpoint == proxy.url


def test_a_graph_run_against_a_dead_endpoint_ends_with_an_explanation(proxy: FaultProxy) -> None:
    kg = _kg(proxy, max_retries=1)
    proxy.down()
    model = routed('Path: {"Joel Zwick": ["Joel Zwick -> directed_by"]}', "{x}")
    started = time.monotonic()
    result = build_graph(kg, model).invoke(
        {"question": "what did [Joel Zwick] direct", "topic_entities": ["Joel Zwick"]}
    )
    assert time.monotonic() - started < 30
    assert proxy.url in result["error"] and "environment failed" in result["answer"]
    # the topic entity is resolved before the plan: the dead endpoint costs no model call
    assert result["answers"] == [] and result["usage"]["llm_calls"] == 0
    fidelis = build_graph(kg, function_model(lambda _: "{}"), strategy="fidelis").invoke(
        {"question": "what did [Joel Zwick] direct", "topic_entities": ["Joel Zwick"]}
    )
    assert proxy.url in fidelis["error"] and fidelis["answers"] == []
    tog = build_graph(kg, function_model(lambda _: "{}"), strategy="tog").invoke(
        {"question": "what did [Joel Zwick] direct", "topic_entities": ["Joel Zwick"]}
    )
    assert proxy.url in tog["error"] and tog["answers"] == [] and tog["answer_source"] == "none"
    assert tog["usage"]["llm_calls"] == 0


def test_an_outage_mid_evaluation_is_recorded_and_resume_completes_it(
    proxy: FaultProxy, metaqa_dir: Path, tmp_path: Path
) -> None:
    from readi_graph.datasets.metaqa import load_questions
    from readi_graph.offline.readi import OfflineModel

    questions = [q for q, _ in zip(load_questions(metaqa_dir, 2), range(12), strict=False)]
    items = [
        Item(q.id, {"question": q.question, "topic_entities": [q.topic]}, list(q.answers))
        for q in questions
    ]
    kg = _kg(proxy, max_retries=1)
    graph = build_graph(kg, OfflineModel.over(questions, planner="corrupt", editor="oracle"))
    out = tmp_path / "r.jsonl"
    seen = 0

    def graph_for(item: Item) -> Any:
        nonlocal seen
        seen += 1
        if seen == 5:  # the endpoint goes away after four questions
            proxy.down()
        return graph

    first = runner.run(items, graph_for, kgqa_scores, context=ReadiContext(), label="t", out=out)
    failed = [r for r in read_results(out) if r.get("error")]
    assert first["n"] == 12 and first["errors"] == len(failed) == 8
    assert all(proxy.url in r["error"] for r in failed)

    proxy.up()
    again = runner.run(items, lambda _: graph, kgqa_scores, context=ReadiContext(), label="t",
                       out=out, resume=True)  # fmt: skip
    lines = out.read_text().splitlines()
    ids = [json.loads(line)["id"] for line in lines]
    assert len(lines) == 12 and sorted(ids) == sorted(i.id for i in items)  # none lost or twice
    assert again["errors"] == 0 and again["answered"] == 12


def test_zz_report_injected_faults() -> None:
    """Not a check of its own: prints how many faults the module injected (closing note)."""
    print(f"faults injected: {json.dumps(INJECTED, sort_keys=True)}")
    assert sum(INJECTED.values()) >= 10
