"""Offline measurement: corrupt/empty planners, the oracle editor, binding recall, reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readi_graph.cli import main
from readi_graph.datasets.metaqa import MetaQAQuestion
from readi_graph.datasets.metaqa_offline import OfflineModel, corrupt, gold_steps

QUESTION = MetaQAQuestion(
    id="2hop-dev-x",
    question="which person directed the movies starred by [Tom Hanks]",
    topic="Tom Hanks",
    answers=("Robert Zemeckis",),
    qtype="actor_to_movie_to_director",
    hops=2,
)


def _edit_prompt(previous: list[str], candidates: str) -> str:
    line = " -> ".join(["Tom Hanks", *previous])
    return (
        "A reasoning path over a knowledge graph could not be instantiated.\n### Your turn\n"
        f'Question: {QUESTION.question}\nTopic Entities: ["Tom Hanks"]\n'
        f"Previous Path: {json.dumps({'Tom Hanks': [line]})}\n>>>> Error Message\n1. failed\n"
        f"Candidate Relations: {candidates}\n>>>> Corrected Path\nGoal:"
    )


def _reply(model: OfflineModel, prompt: str) -> str:
    return str(model.invoke(prompt).content)


def test_oracle_repairs_only_what_the_feedback_offers() -> None:
    assert gold_steps(QUESTION) == ["<- starred_actors", "directed_by"]
    wrong = corrupt(QUESTION)
    assert wrong != ["starred_actors", "directed_by"] and len(wrong) == 2
    assert corrupt(QUESTION) == wrong  # fixed by the question: runs repeat

    oracle = OfflineModel.over([QUESTION], editor="oracle")
    offered = _reply(oracle, _edit_prompt(["starred_actors", "has_genre"], "directed_by, has_tags"))
    assert "Tom Hanks -> starred_actors -> directed_by" in offered
    missing = _reply(oracle, _edit_prompt(["starred_actors", "has_genre"], "has_tags, <- x"))
    assert "Tom Hanks -> starred_actors -> has_genre" in missing  # cannot know: no repair
    # the direction is part of what the prompt offers
    backwards = _reply(oracle, _edit_prompt(["has_genre"], "starred_actors"))
    assert "Tom Hanks -> has_genre" in backwards
    assert oracle.feedback(QUESTION.question) == [True, False, False]
    assert oracle.feedback(QUESTION.question) == []  # reported once

    empty = OfflineModel.over([QUESTION], planner="empty", editor="oracle")
    assert '"Tom Hanks": ["Tom Hanks"]' in _reply(empty, f"Question: {QUESTION.question}\n")
    step = _reply(empty, _edit_prompt([], "<- starred_actors, <- directed_by"))
    assert "Tom Hanks -> starred_actors -> directed_by" in step  # offered: the whole path


def _eval(metaqa_dir: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, float]:
    assert main(["eval", "metaqa", "--data", str(metaqa_dir), *args]) == 0
    summary: dict[str, float] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return summary


@pytest.mark.parametrize("hops", [2, 3])
def test_corrupt_paths_with_the_oracle_editor_report_feedback_recall(
    metaqa_dir: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, hops: int
) -> None:
    common = ["--hops", str(hops), "--limit", "40", "--planner", "corrupt", "--concurrency", "2"]
    out = tmp_path / "oracle.jsonl"
    oracle = _eval(metaqa_dir, capsys, *common, "--editor", "oracle", "--out", str(out))
    none = _eval(metaqa_dir, capsys, *common, "--editor", "none")
    assert oracle["n"] == none["n"] == 40 and oracle["errors"] == 0
    assert 0 < oracle["feedback_recall"] <= 1 and oracle["edit_prompts"] > 0
    # The same first paths; only repairs differ, so the oracle can only do better.
    assert oracle["instantiation_first_complete"] == none["instantiation_first_complete"]
    assert oracle["accuracy"] > none["accuracy"]
    assert oracle["instantiation_final_complete"] > none["instantiation_final_complete"]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for r in records:  # one feedback sample per edit prompt, none without an edit
        assert len(r["feedback"]) == r["edits"]
        assert r["usage"]["llm_calls"] == 1 + r["edits"] + (1 if r["prediction"] else 0)

    report = tmp_path / "report"
    assert main(["report", str(out), "--out", str(report)]) == 0
    text = (report / "report.md").read_text()
    assert "feedback_recall" in text and "## Edits per question" in text
    for png in ("edits", "accuracy", "cost", "instantiation"):
        data = (report / f"{png}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000


def test_binding_recall_on_metaqa_templates(
    metaqa_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "binding", "--metaqa", str(metaqa_dir), "--dense", "off"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["metaqa"]["bm25"]
    assert result["queries"] > 100  # distinct 1-hop templates
    assert 0 < result["recall@1"] <= result["recall@5"] <= result["recall@10"] <= 1


def test_binding_recall_on_freebase_labels(
    freebase_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["bench", "binding", "--freebase", str(freebase_dir), "--sample", "300"]
    assert main([*args, "--dense", "off"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["freebase"]["bm25"]
    assert result["queries"] == 300
    assert 0.3 < result["recall@1"] <= result["recall@5"] <= result["recall@10"] <= 1


def test_the_papers_analyses_without_an_llm(
    metaqa_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tables 4, 8 and 9 (Readi) and Path-RAG candidate coverage (FiDeLiS), no model."""
    common = ["--hops", "2", "--limit", "20", "--planner", "corrupt", "--editor", "oracle"]
    summary = _eval(metaqa_dir, capsys, *common)
    assert 0 < summary["coverage"] <= summary["accuracy"] <= 1
    assert summary["retrieved_triples_per_question"] > 1  # #RK
    assert summary["path_length"] == 2.0  # the oracle writes the 2-relation gold path
    assert summary["compound_end_rate"] == 0.0  # MetaQA has no compound nodes
    gold = _eval(metaqa_dir, capsys, "--hops", "2", "--limit", "20", "--planner", "gold")
    assert gold["retrieved_triples_per_question"] > 1 and gold["coverage"] == 1.0

    assert main(["eval", "metaqa", "--data", str(metaqa_dir), *common, "--budgets", "0,1,4"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    sweep = json.loads(lines[-1])["budget_sweep"]
    assert [row["max_edits"] for row in sweep] == [0, 1, 4]
    assert sweep[0]["edits_per_question"] == 0
    accuracy = [row["accuracy"] for row in sweep]
    calls = [row["llm_calls_per_question"] for row in sweep]
    assert accuracy == sorted(accuracy) and accuracy[0] < accuracy[-1]
    assert calls == sorted(calls) and calls[0] < calls[-1]

    args = ["bench", "pathrag", "--data", str(metaqa_dir), "--hops", "2", "--limit", "4"]
    assert main([*args, "--alphas", "0,0.6", "--top-m", "5"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["pathrag"]
    assert result["steps"] == 8 and set(result["coverage"]) == {"alpha=0.0", "alpha=0.6"}
    for cut in result["coverage"].values():
        assert 0 <= cut["top1"] <= cut["top3"] <= cut["top5"] <= 1
