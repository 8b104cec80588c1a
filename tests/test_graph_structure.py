"""Shape of the graph: Studio drawing, single nodes, embedding in a parent, batch, langgraph.json."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

from readi_graph.core.context import ReadiContext
from readi_graph.demo import demo_kg
from readi_graph.graph import build_graph

from fakes import path, routed, scripted

ROOT = Path(__file__).resolve().parents[1]
MERMAID = """graph TD;
	__start__ --> generate;
	bind --> connect;
	connect --> diagnose;
	diagnose -.-> answer;
	diagnose -.-> edit;
	edit --> bind;
	generate --> bind;
	answer --> __end__;
"""
ZWICK = {
    "question": "which languages are the films directed by Joel Zwick in",
    "topic_entities": ["Joel Zwick"],
}


def good_model() -> Any:
    return scripted(path({"Joel Zwick": ["Joel Zwick -> directed -> language"]}), "{Greek}")


def test_mermaid_structure() -> None:
    graph = build_graph(demo_kg(), scripted())
    assert graph.get_graph().draw_mermaid(with_styles=False) == MERMAID


def test_single_nodes_run_on_their_own() -> None:
    llm = scripted(path({"Joel Zwick": ["Joel Zwick -> directed -> language", "Joel Zwick -> x"]}))
    graph = build_graph(demo_kg(), llm)
    update = graph.nodes["generate"].invoke(ZWICK)
    assert update["plan"] == {"Joel Zwick": [["directed", "language"], ["x"]]}
    assert update["usage"]["llm_calls"] == 1 and update["edits_used"] == 0
    bindings = {
        "Joel Zwick": [
            [
                [{"relation": "urn:readi:metaqa:relation:directed_by", "direction": "backward"}],
                [{"relation": "urn:readi:metaqa:relation:in_language", "direction": "both"}],
            ]
        ]
    }
    update = graph.nodes["connect"].invoke(
        {"plan": {"Joel Zwick": [["directed", "language"]]}, "bindings": bindings}
    )
    (instance,) = update["instances"]
    assert instance["complete"] and instance["frontier"][0]["value"].endswith(":Greek")


def test_embedded_as_a_subgraph_with_another_context() -> None:
    @dataclasses.dataclass
    class ParentContext:
        user: str = "x"

    class Parent(TypedDict, total=False):
        question: str
        topic_entities: list[str]
        answers: list[str]
        log: str

    readi = build_graph(demo_kg(), good_model())
    parent = StateGraph(Parent, context_schema=ParentContext)
    parent.add_node("readi", readi)
    parent.add_node("after", lambda s: {"log": f"got {s['answers']}"})
    parent.add_edge(START, "readi")
    parent.add_edge("readi", "after")
    parent.add_edge("after", END)
    out = parent.compile().invoke({**ZWICK, "log": ""}, context=ParentContext())
    assert out["answers"] == ["Greek"] and out["log"] == "got ['Greek']"


def test_batch_runs_questions_in_threads() -> None:
    llm = routed(path({"Joel Zwick": ["Joel Zwick -> directed -> language"]}), "{Greek}")
    graph = build_graph(demo_kg(), llm)
    results = graph.batch([ZWICK] * 4, {"max_concurrency": 2})
    assert [r["answers"] for r in results] == [["Greek"]] * 4
    assert all(r["usage"]["llm_calls"] == 2 for r in results)


def test_context_as_a_dict_is_accepted() -> None:
    wrong = path({"Joel Zwick": ["Joel Zwick -> directed -> nationality"]})
    out = build_graph(demo_kg(), scripted(wrong, wrong, "{x}")).invoke(
        ZWICK, context={"max_edits": 1}
    )
    assert out["edits"] == 1


def test_langgraph_json_graphs_load_with_schemas() -> None:
    config = json.loads((ROOT / "langgraph.json").read_text())
    for name, entry in config["graphs"].items():
        file, attr = entry["path"].split(":")
        spec = importlib.util.spec_from_file_location(f"studio_{name}", ROOT / file)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        graph = getattr(module, attr)
        assert graph.checkpointer is None
        assert graph.get_input_jsonschema()["required"] == ["question"]
        assert {"answer", "answers", "evidence", "grounded", "path", "edits", "usage"} <= set(
            graph.get_output_jsonschema()["properties"]
        )
        settings = graph.get_context_jsonschema()["properties"]  # each strategy's own context
        assert {"model", "prompt_budget"} <= set(settings)
        own = {"fidelis": "beam_width", "tog": "width"}.get(name, "max_edits")
        assert own in settings
    assert dataclasses.is_dataclass(ReadiContext)
