"""One ledger, several strategies (eval/ledger.py): the same questions through each strategy,
one row per strategy, every rate over the questions asked, and each question checked against
the call bound its strategy registered."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest
from langgraph.graph import END, START, StateGraph

from readi_graph import strategies
from readi_graph.cli import main
from readi_graph.cli.evaluate import Plan, compare
from readi_graph.core.context import ReadiContext
from readi_graph.core.models.llm import ModelRef
from readi_graph.core.run.nodes import Meter
from readi_graph.core.state import ReadiInput, ReadiOutput, RunState
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.eval import ledger, runner
from readi_graph.eval.metrics import kgqa_scores
from readi_graph.graph import build_graph
from readi_graph.strategies import Strategy

from fakes import function_model, path, routed


def make_talker(kg: KnowledgeGraph, llm: Any = None, *, context: Any = None, **_: Any) -> Any:
    """A toy strategy: asks the model `calls=N` times (N read from the question), answers
    with its last reply, shows that reply as evidence; a question saying "crash" raises."""
    model = ModelRef(llm, context or ReadiContext())

    def talk(state: RunState) -> dict[str, Any]:
        question = state.get("question") or ""
        if "crash" in question:
            raise RuntimeError("the toy crashed")
        wanted = int(re.search(r"calls=(\d+)", question).group(1))  # type: ignore[union-attr]
        with Meter("talk") as meter:
            said = [meter.llm(model.ask(f"say something {i}")).text for i in range(wanted)]
        return {"answers": said[-1:], "answer": said[-1], "evidence": [["toy", "says", said[-1]]],
                "usage": meter.usage}  # fmt: skip

    builder = StateGraph(RunState, input_schema=ReadiInput, output_schema=ReadiOutput)
    builder.add_node("talk", talk)
    builder.add_edge(START, "talk")
    builder.add_edge("talk", END)
    return builder


def two_per_topic(context: Any, topics: int) -> int:
    return 2 * topics


@pytest.fixture
def talker(monkeypatch: pytest.MonkeyPatch) -> Strategy:
    strategy = Strategy("talker", make_talker, RunState, ReadiContext, lambda *_: "",
                        calls_bound=two_per_topic, calls_formula="2 per topic entity")  # fmt: skip
    monkeypatch.setitem(strategies.STRATEGIES, "talker", strategy)
    return strategy


ITEMS = [
    runner.Item("within", {"question": "calls=1", "topic_entities": ["Joel Zwick"]}, ["Bo"]),
    runner.Item("over", {"question": "calls=3", "topic_entities": ["Joel Zwick"]}, ["Cy"]),
    runner.Item("two topics", {"question": "calls=3", "topic_entities": ["A", "B"]}, ["Bo"]),
    runner.Item("crashed", {"question": "crash", "topic_entities": ["Joel Zwick"]}, ["Bo"]),
]


def _args(out: Path | None) -> argparse.Namespace:
    return argparse.Namespace(out=str(out) if out else None, resume=False, concurrency=1,
                              asynchronous=False)  # fmt: skip


def test_the_ledger_has_a_row_per_strategy_over_the_questions_asked(
    talker: Strategy, demo: KnowledgeGraph, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toy = build_graph(demo, function_model(lambda _: "Bo"), strategy="talker")
    readi = build_graph(demo, routed(path({"Joel Zwick": ["Joel Zwick -> directed"]}), "{Bo}"))
    context = ReadiContext(max_edits=1)
    plans = {
        "talker": Plan(lambda _: toy, kgqa_scores, "toy run", context),
        "readi": Plan(lambda _: readi, kgqa_scores, "readi run", context, driven_by="a script"),
    }
    assert compare(_args(tmp_path / "r.jsonl"), ITEMS, plans) == 0
    out, err = capsys.readouterr()
    rows = json.loads(out.strip().splitlines()[-1])["compare"]
    assert list(rows) == ["talker", "readi"]  # the order asked for
    toy_row = rows["talker"]
    # over the 4 questions asked: the crashed one counts 0 in every rate, and as an error
    assert toy_row["n"] == 4 and toy_row["errors"] == 1
    assert toy_row["hit1"] == 0.5  # "within" and "two topics"
    assert toy_row["answer_in_evidence"] == 0.5
    assert toy_row["llm_calls_per_question"] == (1 + 3 + 3 + 0) / 4
    assert toy_row["prompt_tokens_per_question"] > 0
    # the bound is per question (2 per topic entity): only "over" went past it
    assert toy_row["calls_bound"] == "2-4" and toy_row["max_calls"] == 3
    assert toy_row["over_bound"] == ["over"]
    assert rows["readi"]["calls_bound"] == "3" and rows["readi"]["over_bound"] == []
    assert rows["readi"]["errors"] == 0 and rows["readi"]["driven_by"] == "a script"
    # the table: a line per strategy in order, the bounds and the flag
    table = (tmp_path / "r.ledger.md").read_text()
    assert table.strip() in err
    body = [line for line in table.splitlines() if line.startswith("| ")][1:]
    assert [line.split(" | ")[0] for line in body] == ["| talker", "| readi"]
    assert "| 0.500 | 0.500 | 1.75 |" in body[0]
    assert "talker: LLM calls per question at most 2 per topic entity" in table
    assert "OVER THE BOUND: 1 question(s) made more calls than talker guarantees: over" in table
    assert "readi: LLM calls per question at most 1 plan + E edits + 1 answer" in table
    # one resumable results file per strategy, each line naming its strategy and bound
    for name in ("talker", "readi"):
        lines = [json.loads(x) for x in (tmp_path / f"r.{name}.jsonl").read_text().splitlines()]
        assert len(lines) == 4 and {x["strategy"] for x in lines} == {name}
    bounds = {x["id"]: x["calls_bound"] for x in map(json.loads, (tmp_path / "r.talker.jsonl")
                                                    .read_text().splitlines())}  # fmt: skip
    assert bounds == {"within": 2, "over": 2, "two topics": 4, "crashed": 2}


def test_a_strategy_without_a_bound_shows_none_and_flags_nothing() -> None:
    records = [{"id": "a", "usage": {"llm_calls": 99}, "topics": 1}]
    found = ledger.bounds("fidelis", records, None)
    assert (found.low, found.high, found.over) == (22, 22, ["a"])
    plain = Strategy("plain", make_talker, RunState, ReadiContext, lambda *_: "")
    strategies.STRATEGIES["plain"] = plain
    try:
        found = ledger.bounds("plain", records, None)
    finally:
        del strategies.STRATEGIES["plain"]
    assert (found.shown(), found.max_calls, found.over) == ("-", 99, [])


def test_the_summary_fields_are_read_through_one_mapping() -> None:
    """Renamed summary fields are followed by editing `COLUMNS` alone."""
    hit = next(c for c in ledger.COLUMNS if c.header == "hit@1")
    assert ledger.read({"hit1": 0.25}, hit) == 0.25
    assert ledger.read({}, hit) is None
    row = ledger.Row("x", {"n": 2}, ledger.Bounds("f", None, None, 0))
    assert "| x | 2 | - |" in ledger.table([row])


def test_readi_eval_compares_readi_and_fidelis_offline_and_report_shows_them(
    metaqa_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command of the README's table, on 3 questions: Readi (corrupt first path, oracle
    editor) and FiDeLiS (its oracle), no model anywhere."""
    out = tmp_path / "cmp.jsonl"
    code = main(["eval", "metaqa", "--data", str(metaqa_dir), "--hops", "2", "--limit", "3",
                 "--strategy", "readi,fidelis", "--out", str(out)])  # fmt: skip
    stdout = capsys.readouterr().out.strip().splitlines()
    assert code == 0
    rows = json.loads(stdout[-1])["compare"]
    assert list(rows) == ["readi", "fidelis"]
    for name, bound in (("readi", 6), ("fidelis", 22)):
        assert rows[name]["n"] == 3 and rows[name]["errors"] == 0
        assert rows[name]["calls_bound"] == str(bound) and rows[name]["over_bound"] == []
        assert 0 < rows[name]["max_calls"] <= bound
    assert "planner=corrupt editor=oracle" in rows["readi"]["run"]
    assert rows["fidelis"]["hit1"] > 0
    report = tmp_path / "report"
    assert main(["report", str(out), "--out", str(report)]) == 0
    text = (report / "report.md").read_text()
    assert "# Strategies side by side" in text and "| readi |" in text and "| fidelis |" in text
    assert (report / "readi" / "report.md").exists() and (report / "fidelis" / "report.md").exists()


def test_strategy_lists_are_checked_against_the_registry(
    metaqa_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["eval", "metaqa", "--data", str(metaqa_dir), "--hops", "1", "--strategy", "readi,nope"]
    )
    assert code == 2 and "unknown strategy 'readi,nope'" in capsys.readouterr().err
    code = main(["eval", "metaqa", "--data", str(metaqa_dir), "--hops", "1", "--strategy", "all",
                 "--planner", "gold"])  # fmt: skip
    assert code == 2 and "compare strategies with --planner" in capsys.readouterr().err


def test_report_finds_a_comparisons_files_and_their_strategies(tmp_path: Path) -> None:
    from readi_graph.eval.ledger_report import runs_of, strategy_of

    for name in ("r.readi.jsonl", "r.fidelis.jsonl", "r.max_edits=2.jsonl", "other.readi.jsonl"):
        (tmp_path / name).write_text('{"id": "a"}\n')
    runs = runs_of(tmp_path / "r.jsonl")
    assert runs == {"fidelis": tmp_path / "r.fidelis.jsonl", "readi": tmp_path / "r.readi.jsonl"}
    assert runs_of(tmp_path / "r.readi.jsonl") == {}  # an existing file is one run
    assert strategy_of(tmp_path / "other.readi.jsonl") == "readi"  # by its name
    (tmp_path / "x.jsonl").write_text('{"id": "a", "strategy": "fidelis"}\n')
    assert strategy_of(tmp_path / "x.jsonl") == "fidelis"  # by what its lines say


def test_each_strategy_of_a_comparison_starts_cold(
    metaqa_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ToG after Readi and FiDeLiS sends the queries it sends alone: no label or relation it
    reads was cached by the strategies before it (the ledger's queries/q compare alike)."""

    def queries(strategies: str) -> list[int]:
        out = tmp_path / f"{strategies.replace(',', '-')}.jsonl"
        args = ["eval", "metaqa", "--data", str(metaqa_dir), "--hops", "2", "--limit", "4",
                "--strategy", strategies, "--out", str(out)]  # fmt: skip
        assert main(args) == 0
        capsys.readouterr()
        mine = out.with_suffix(".tog.jsonl") if "," in strategies else out
        return [json.loads(line)["usage"]["queries"] for line in mine.read_text().splitlines()]

    alone = queries("tog")
    assert queries("readi,fidelis,tog") == alone and sum(alone) > 4
