"""A strategy is a package plus one registry line: a toy one, defined here and registered from
this test module, runs through `build_graph`, `readi ask --strategy` and `readi eval`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.graph import END, START, StateGraph

from readi_graph import strategies
from readi_graph.cli import main
from readi_graph.core.context import ReadiContext, current_settings
from readi_graph.core.run.progress import reporting
from readi_graph.core.state import ReadiInput, ReadiOutput, RunState
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph
from readi_graph.strategies import Strategy, UnknownStrategy


class ToyState(RunState, total=False):
    neighbours: list[str]


def toy_describe(node: str, update: dict[str, Any], environment: str) -> str:
    return f"{len(update.get('neighbours') or update.get('answers') or [])} names"


def make_toy_builder(
    kg: KnowledgeGraph, llm: Any = None, *, context: ReadiContext | None = None, **_: Any
) -> StateGraph[Any, Any, Any, Any]:
    """One hop from each topic entity over any relation; the names reached are the answers."""

    def look(state: ToyState) -> dict[str, Any]:
        nodes = [n for t in state.get("topic_entities") or [] for n in kg.resolve(t).nodes]
        ends = [e.target for e in kg.expand(nodes, kg.relations(), kg.relations()).edges]
        labels = kg.labels(ends)
        names = sorted({labels.get(e) or e.value for e in ends})
        return {"neighbours": names[: current_settings().max_edits + 1]}

    def say(state: ToyState) -> dict[str, Any]:
        return {"answers": state.get("neighbours") or [], "answer": "; ".join(state["neighbours"])}

    builder = StateGraph(ToyState, input_schema=ReadiInput, output_schema=ReadiOutput)
    describe = strategies.get("toy").describer()
    builder.add_node("look", reporting("look", look, "kg", describe))
    builder.add_node("say", reporting("say", say, "kg", describe))
    builder.add_edge(START, "look")
    builder.add_edge("look", "say")
    builder.add_edge("say", END)
    return builder


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Strategy:
    strategy = Strategy("toy", make_toy_builder, ToyState, ReadiContext, toy_describe)
    monkeypatch.setitem(strategies.STRATEGIES, "toy", strategy)  # the one registry line
    return strategy


def test_a_registered_strategy_is_built_by_name(toy: Strategy, demo: KnowledgeGraph) -> None:
    graph = build_graph(demo, strategy="toy")
    out = graph.invoke(
        {"question": "who?", "topic_entities": ["Joel Zwick"]}, context=ReadiContext(max_edits=9)
    )
    assert "My Big Fat Greek Wedding" in out["answers"]
    assert graph.name == "toy" and "look --> say" in graph.get_graph().draw_mermaid()
    with pytest.raises(UnknownStrategy, match="does not search a table"):
        from readi_graph.demo import demo_table

        build_graph(demo_table(), strategy="toy")
    with pytest.raises(UnknownStrategy, match="'readi', 'fidelis', 'tog', 'toy'"):
        build_graph(demo, strategy="nope")


def test_readi_ask_offers_and_runs_it(toy: Strategy, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "who?", "--entity", "Joel Zwick", "--strategy", "toy"]) == 0
    out, err = capsys.readouterr()
    assert "[look]" in err and "names" in err  # progress lines from the toy's describe
    assert "My Big Fat Greek Wedding" in out


def test_readi_eval_runs_it(
    toy: Strategy, metaqa_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "toy.jsonl"
    code = main(["eval", "metaqa", "--data", str(metaqa_dir), "--hops", "1", "--limit", "5",
                 "--planner", "model", "--strategy", "toy", "--out", str(out)])  # fmt: skip
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and summary["n"] == 5 and summary["errors"] == 0
    assert all(json.loads(line)["prediction"] for line in out.read_text().splitlines())


def test_a_registered_dataset_is_offered_by_readi_eval(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from readi_graph import datasets

    def arguments(parser: Any) -> None:
        parser.add_argument("--colour", default="blue")
        parser.set_defaults(func=lambda args: print(f"{args.data} {args.colour} {args.split}") or 0)

    toy = datasets.Dataset("toyqa", "a toy dataset", "train", arguments, "x:load", "x:score")
    monkeypatch.setitem(datasets.DATASETS, "toyqa", toy)
    assert main(["eval", "toyqa", "--data", "here", "--colour", "red"]) == 0
    assert capsys.readouterr().out.strip() == "here red train"  # common options and its own
