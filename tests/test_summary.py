"""Every published figure is over the questions requested: a crashed or missing question
counts as 0, in the summary, in `readi report`, in each group, and in the analyses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from readi_graph.bench.analyses import pathrag_coverage
from readi_graph.cli import main
from readi_graph.datasets.metaqa import MetaQAQuestion
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.eval.metrics import f1
from readi_graph.eval.results import read_results, requested_path, write_requested
from readi_graph.eval.summary import by_group, summarize, with_missing

# Every rate a line can carry, each 1.0 on the two answered questions.
RATES = {
    "correct": "accuracy",
    "hit1": "hit1",
    "hit_lenient": "hit_lenient",
    "f1": "f1",
    "reached": "reached",
    "coverage": "coverage",
    "exact": "exact",
    "first_complete": "instantiation_first_complete",
    "final_complete": "instantiation_final_complete",
    "first_progress": "instantiation_first_progress",
    "final_progress": "instantiation_final_progress",
    "compound_end": "compound_end_rate",
}


def _answered(i: int) -> dict[str, Any]:
    line: dict[str, Any] = {"id": f"ok{i}", "hops": 2, **dict.fromkeys(RATES, 1.0)}
    line.update(
        ends=3.0, retrieved_triples=10, path_length=2.0, edits=1, feedback=[True],
        usage={"llm_calls": 2, "queries": 6, "plans": 1, "answers": 1},
    )  # fmt: skip
    return line


def _crashed(i: int) -> dict[str, Any]:
    return {"id": f"bad{i}", "hops": 3, "correct": 0.0, "prediction": [],
            "error": "EndpointUnavailable: down"}  # fmt: skip


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _report_table(report: Path) -> dict[str, str]:
    rows = {}
    for line in report.read_text().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 2 and cells[0] not in ("metric", "---"):
            rows[cells[0]] = cells[1]
    return rows


def test_two_answered_and_two_crashed_questions_give_half_of_every_rate(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    _write(results, [_answered(0), _crashed(0), _answered(1), _crashed(1)])
    summary = summarize(read_results(results), label="t")
    assert (summary["n"], summary["answered"], summary["errors"], summary["missing"]) == (
        4,
        4,
        2,
        0,
    )
    for name in RATES.values():
        assert summary[name] == 0.5, name
    assert summary["coverage"] <= summary["accuracy"]  # coverage can no longer pass accuracy
    assert summary["ends_per_question"] == 1.5 and summary["retrieved_triples_per_question"] == 5
    assert summary["llm_calls_per_question"] == 1.0 and summary["queries_per_question"] == 3.0
    # a mean that is not a rate says what it is over
    assert summary["path_length"] == 2.0 and summary["path_length_questions"] == 2
    assert summary["feedback_recall"] == 1.0 and summary["feedback_samples"] == 2

    report = tmp_path / "report"
    assert main(["report", str(results), "--out", str(report)]) == 0
    table = _report_table(report / "report.md")
    for key, value in summary.items():
        if key != "run":
            assert table[key] == str(value), key
    assert "- final path instantiated: 0.5" in (report / "report.md").read_text()


def test_missing_questions_count_in_the_report_and_in_their_group(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    _write(results, [_answered(0), _crashed(0), _answered(1), _crashed(1)])
    requested = [{"id": x, "hops": h} for x, h in
                 [("ok0", 2), ("bad0", 3), ("ok1", 2), ("bad1", 3), ("gone0", 3), ("gone1", 3)]]  # fmt: skip
    write_requested(results, "t", requested)
    assert requested_path(results).name == "r.jsonl.requested.json"

    report = tmp_path / "report"
    assert main(["report", str(results), "--out", str(report)]) == 0
    text = (report / "report.md").read_text()
    table = _report_table(report / "report.md")
    assert (table["n"], table["answered"], table["missing"], table["errors"]) == (
        "6",
        "4",
        "2",
        "2",
    )
    for name in RATES.values():
        assert float(table[name]) == pytest.approx(2 / 6, abs=1e-4), name
    assert "| 2 | 2 | 0 | 0 | 1.0 | 2.0 |" in text  # hops 2: both answered
    assert "| 3 | 4 | 2 | 2 | 0.0 | 0.0 |" in text  # hops 3: two crashed, two never ran

    groups = by_group(with_missing(read_results(results), requested), "hops")
    assert groups["3"]["n"] == 4 and groups["3"]["missing"] == 2 and groups["3"]["accuracy"] == 0
    assert groups["2"]["coverage"] == 1.0

    # without the list of requested questions, the count is given or the report says it lacks it
    requested_path(results).unlink()
    assert main(["report", str(results), "--out", str(report), "--requested", "8"]) == 0
    table = _report_table(report / "report.md")
    assert table["n"] == "8" and table["missing"] == "4" and table["coverage"] == "0.25"
    assert main(["report", str(results), "--out", str(report)]) == 0
    assert "No list of requested questions" in (report / "report.md").read_text()


def test_the_runner_writes_the_requested_questions_beside_its_results(tmp_path: Path) -> None:
    from readi_graph.core.context import ReadiContext
    from readi_graph.eval import runner
    from readi_graph.eval.metrics import kgqa_scores

    class Answers:
        def invoke(self, *_: object, **__: object) -> dict[str, object]:
            return {"answers": ["x"]}

    items = [runner.Item(f"q{i}", {"question": "q"}, ["x"], {"hops": i % 2}) for i in range(3)]
    out = tmp_path / "r.jsonl"
    summary = runner.run(items, lambda _: Answers(), kgqa_scores, context=ReadiContext(),
                         label="t", out=out)  # fmt: skip
    assert summary["n"] == 3 and summary["accuracy"] == 1.0
    written = json.loads(requested_path(out).read_text())
    assert written["requested"] == [{"id": f"q{i}", "hops": i % 2} for i in range(3)]


def test_old_offline_lines_are_read_under_the_new_names() -> None:
    """Before issue 24 an offline line's `correct` meant "a gold answer among the ends"."""
    old = {"id": "a", "correct": 1.0, "hit1": 0.0, "f1": 0.5, "coverage": 0.0, "feedback": []}
    summary = summarize([old], label="old")
    assert summary["reached"] == 1.0 and summary["accuracy"] == 0.0 and summary["hit1"] == 0.0
    assert summary["legacy_records"] == 1
    gold = {"id": "b", "hit": True, "coverage": True, "exact": False}  # the gold planner's
    assert summarize([gold], label="gold")["reached"] == 1.0


def test_f1_counts_the_aliases_of_one_answer_once() -> None:
    obama = [["Barack Obama", "Obama"]]
    assert f1(obama, ["Obama", "Barack Obama"]) == 1.0
    # two aliases and one wrong answer: one right prediction of two, not two of three
    assert f1(obama, ["Obama", "Barack Obama", "Biden"]) == pytest.approx(2 / 3)
    assert f1([["Paris"], ["Lyon"]], ["paris", "Paris!", "Lyon"]) == 1.0
    # one prediction cannot stand for two gold answers
    assert f1([["Georgia"], ["Georgia (country)", "Georgia"]], ["Georgia"]) == pytest.approx(2 / 3)


def test_pathrag_coverage_counts_the_steps_it_cannot_reach(demo: KnowledgeGraph) -> None:
    known = MetaQAQuestion("k", "what films did [Robert Zemeckis] direct", "Robert Zemeckis",
                           ("Forrest Gump",), "director_to_movie", 1)  # fmt: skip
    unknown = MetaQAQuestion("u", "who directed the films of [Nobody At All]", "Nobody At All",
                             ("x",), "actor_to_movie_to_director", 2)  # fmt: skip
    alone = pathrag_coverage(demo, [known], [0.0], top_m=3)
    both = pathrag_coverage(demo, [known, unknown], [0.0], top_m=3)
    assert (alone["steps"], alone["steps_unreached"]) == (1, 0)
    assert (both["steps"], both["steps_unreached"], both["questions_unreached"]) == (3, 2, 1)
    for k in ("top1", "top3"):  # the same hits, now over three steps
        assert both["coverage"]["alpha=0.0"][k] == pytest.approx(
            alone["coverage"]["alpha=0.0"][k] / 3, abs=1e-4
        )
    assert alone["coverage"]["alpha=0.0"]["top3"] == 1.0


def test_edit_stops_and_spared_edits_are_summed_over_the_questions_requested() -> None:
    stopped = {
        "id": "a",
        "correct": 0,
        "usage": {"llm_calls": 3, "edit_stops": 1, "edits_spared": 3},
    }
    plain = {"id": "b", "correct": 1, "usage": {"llm_calls": 2}}
    summary = summarize([stopped, plain], label="x", requested=4)
    assert summary["edit_stops"] == 1
    assert summary["edits_spared_per_question"] == 0.75  # 3 spared over 4 requested
    assert "edit_stops" not in summarize([plain], label="y")  # a run that never counts them
