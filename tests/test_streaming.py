"""Streaming: each node's progress as a custom stream event, and the answer's tokens."""

from __future__ import annotations

from typing import Any

from readi_graph.core.run.progress import EVENT
from readi_graph.demo import demo_kg, demo_table
from readi_graph.graph import build_graph

from fakes import path, routed

ZWICK = {
    "question": "which languages are the films directed by Joel Zwick in",
    "topic_entities": ["Joel Zwick"],
}


def _model(answer: str = "The films are in {Greek} only") -> Any:
    return routed(
        path({"Joel Zwick": ["Joel Zwick -> directed -> nationality"]}),
        answer,
        edit=path({"Joel Zwick": ["Joel Zwick -> directed -> in_language"]}),
    )


def test_every_node_reports_its_progress_as_a_custom_event() -> None:
    events = [
        e[EVENT] for e in build_graph(demo_kg(), _model()).stream(ZWICK, stream_mode="custom")
    ]
    nodes = [e["node"] for e in events]
    assert nodes == ["generate", "bind", "connect", "diagnose", "edit", "bind", "connect",
                     "diagnose", "answer"]  # fmt: skip
    by_node = {e["node"]: e["message"] for e in events}  # the last of each
    assert "nationality" in events[0]["message"] and "stuck (1/2" in events[2]["message"]
    assert 'relation "nationality" (step 2 from "Joel Zwick")' in events[3]["message"]
    assert by_node["connect"] == "Joel Zwick: complete (2/2 relations)"
    assert by_node["diagnose"] == "ok" and "Greek" in by_node["answer"]


def test_a_table_run_reports_columns_not_relations() -> None:
    model = routed('Chosen Headers: ["Season", "Position"]\nConstraints: {}', 'Answer: ["2023"]')
    events = [e[EVENT] for e in build_graph(demo_table(), model).stream(
        {"question": "which season?"}, stream_mode="custom")]  # fmt: skip
    bind = next(e["message"] for e in events if e["node"] == "bind")
    assert "Season -> " in bind and "candidate KG relations" not in bind


def test_the_answer_streams_token_by_token() -> None:
    answer = "The films are in {Greek} only"
    tokens = [
        message.content
        for message, meta in build_graph(demo_kg(), _model(answer)).stream(
            ZWICK, stream_mode="messages"
        )
        if meta.get("langgraph_node") == "answer"
    ]
    assert len(tokens) > 3 and "".join(tokens) == answer
