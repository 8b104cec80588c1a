"""Offline measurement: corrupt/empty planners, the oracle editor, binding recall, reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readi_graph.cli import main
from readi_graph.datasets.metaqa import MetaQAQuestion
from readi_graph.offline.editors import paraphrases
from readi_graph.offline.readi import OfflineModel, corrupt, gold_steps
from readi_graph.offline.scripted_answer import scripted_answers

QUESTION = MetaQAQuestion(
    id="2hop-dev-x",
    question="which person directed the movies starred by [Tom Hanks]",
    topic="Tom Hanks",
    answers=("Robert Zemeckis",),
    qtype="actor_to_movie_to_director",
    hops=2,
)


def _edit_prompt(
    previous: list[str], candidates: str, step: int | None = None, earlier: str = "(none)"
) -> str:
    line = " -> ".join(["Tom Hanks", *previous])
    error = (
        f'relation "{previous[step - 1]}" (step {step} from "Tom Hanks") is not instantiated'
        if step
        else 'the path from "Tom Hanks" has no relation'
    )
    return (
        "A reasoning path over a knowledge graph could not be instantiated.\n### Your turn\n"
        f'Question: {QUESTION.question}\nTopic Entities: ["Tom Hanks"]\n'
        f"Previous Path: {json.dumps({'Tom Hanks': [line]})}\n>>>> Error Message\n1. {error}\n"
        f"Candidate Relations: {candidates}\nEarlier Relations: {earlier}\n"
        ">>>> Corrected Path\nGoal:"
    )


def _reply(model: OfflineModel, prompt: str) -> str:
    return str(model.invoke(prompt).content)


def test_the_oracle_of_before_repairs_only_what_the_feedback_offers() -> None:
    assert gold_steps(QUESTION) == ["<- starred_actors", "directed_by"]
    wrong = corrupt(QUESTION)
    assert wrong != ["starred_actors", "directed_by"] and len(wrong) == 2
    assert corrupt(QUESTION) == wrong  # fixed by the question: runs repeat

    oracle = OfflineModel.over([QUESTION], editor="oracle-all-ids")
    stuck = ["starred_actors", "has_genre"]
    offered = _reply(oracle, _edit_prompt(stuck, "directed_by, has_tags", 2))
    assert "Tom Hanks -> starred_actors -> directed_by" in offered
    missing = _reply(oracle, _edit_prompt(stuck, "has_tags, <- x", 2))
    assert "Tom Hanks -> starred_actors -> has_genre" in missing  # cannot know: no repair
    # the direction is part of what the prompt offers
    backwards = _reply(oracle, _edit_prompt(["has_genre"], "starred_actors", 1))
    assert "Tom Hanks -> has_genre" in backwards
    assert oracle.feedback(QUESTION.question) == [True, False, False]
    assert oracle.feedback(QUESTION.question) == []  # reported once

    empty = OfflineModel.over([QUESTION], planner="empty", editor="oracle-all-ids")
    assert '"Tom Hanks": ["Tom Hanks"]' in _reply(empty, f"Question: {QUESTION.question}\n")
    step = _reply(empty, _edit_prompt([], "<- starred_actors, <- directed_by"))
    assert "Tom Hanks -> starred_actors -> directed_by" in step  # the whole path, ids unseen


def test_the_oracle_writes_an_id_only_where_a_prompt_showed_it() -> None:
    assert paraphrases(QUESTION) == ["actor", "director"]
    oracle = OfflineModel.over([QUESTION], planner="empty", editor="oracle")
    # an empty path: the first step is offered, the second was never shown: a paraphrase
    first = _reply(oracle, _edit_prompt([], "<- starred_actors, <- directed_by"))
    assert "Tom Hanks -> starred_actors -> director" in first
    # stuck at step 2, where the gold relation is offered
    second = _reply(oracle, _edit_prompt(["starred_actors", "director"], "directed_by", 2))
    assert "Tom Hanks -> starred_actors -> directed_by" in second
    # not offered (or offered in the wrong direction): the paraphrase, never the id
    missing = _reply(oracle, _edit_prompt(["starred_actors", "has_genre"], "has_tags", 2))
    assert "Tom Hanks -> starred_actors -> director" in missing
    backwards = _reply(oracle, _edit_prompt(["has_genre"], "starred_actors", 1))
    assert "Tom Hanks -> actor -> director" in backwards
    # an id listed among the earlier steps' relations has been shown
    earlier = "step 1 (from Tom Hanks): <- starred_actors, <- written_by"
    shown = _reply(oracle, _edit_prompt(["actor", "has_genre"], "directed_by", 2, earlier))
    assert "Tom Hanks -> starred_actors -> directed_by" in shown
    assert oracle.outcomes(QUESTION.question) == ([True, True, False, False, True], [])

    # every edit prompt is a sample or a named exclusion, under either oracle
    for editor in ("oracle", "oracle-all-ids"):
        model = OfflineModel.over([QUESTION], editor=editor)
        _reply(model, _edit_prompt(["starred_actors", "directed_by"], "has_tags", 2))
        _reply(model, _edit_prompt(["starred_actors", "directed_by", "has_genre"], "x", 3))
        assert model.outcomes(QUESTION.question) == ([], ["gold_path_stuck", "longer_than_gold"])


def test_the_scripted_answer_picks_the_far_ends_of_what_the_prompt_shows() -> None:
    prompt = (
        "Knowledge Triples:\n(A, r, B)\n### Your turn\nQuestion: q [Tom Hanks]\n"
        "Knowledge Triples:\n"
        "(Big, starred_actors, Tom Hanks)\n(Cast Away, starred_actors, Tom Hanks)\n"
        "(Big, directed_by, Penny Marshall)\n(Cast Away, directed_by, Robert Zemeckis)\n"
        "(Forrest Gump, starred_actors, Tom Hanks)\n(Forrest Gump, directed_by, Robert Zemeckis)\n"
        "(Paris, Texas, directed_by, Wim Wenders)\n(Paris, Texas, starred_actors, Tom Hanks)\n"
        "(2 more triples not shown)\nAnswer:"
    )
    relations = ["starred_actors", "directed_by"]
    # the far layer only, best supported first (Zemeckis directed two of them), then as shown
    assert scripted_answers(prompt, ["Tom Hanks"], relations) == [
        "Robert Zemeckis", "Penny Marshall", "Wim Wenders"
    ]  # fmt: skip
    assert scripted_answers(prompt, ["Nobody"], relations) == []
    one_hop = "Knowledge Triples:\n(Big, directed_by, Penny Marshall)\nAnswer:"
    assert scripted_answers(one_hop, ["Penny Marshall"]) == ["Big"]


def _eval(metaqa_dir: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, float]:
    assert main(["eval", "metaqa", "--data", str(metaqa_dir), *args]) == 0
    summary: dict[str, float] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return summary


# Pinned on the first 40 dev questions (corrupt first paths; MiniLM binding):
# reached, hit1, feedback samples; the same for the editor that does nothing, which
# repeats its path: its second diagnosis repeats the first, so editing stops after one edit
# (`stop_hopeless`); the published loop (`--keep-editing`) spends the whole budget of 4.
# The scripted answer reads the evidence shown: with whole chains, on-path ends first; one
# tree per path (a film reached by two relations is listed once, so its triples count once
# as support: 2-hop oracle 0.6 -> 0.575, none 0.05 -> 0.025) whose chains of the relations
# bound first come first (genres before the tags and ratings "has genre" also walked: 3-hop
# oracle 0.55 -> 0.6, none 0.2 -> 0.25).
PINNED = {
    2: {
        "oracle": (0.7, 0.575, 23),
        "none": (0.125, 0.025, 23),
        "none, kept editing": (0.125, 0.025, 92),
    },
    3: {
        "oracle": (0.75, 0.6, 20),
        "none": (0.4, 0.25, 20),
        "none, kept editing": (0.4, 0.25, 80),
    },
}


@pytest.mark.parametrize("hops", [2, 3])
def test_corrupt_paths_with_the_oracle_editor_report_feedback_recall(
    metaqa_dir: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, hops: int
) -> None:
    common = ["--hops", str(hops), "--limit", "40", "--planner", "corrupt", "--concurrency", "2"]
    out = tmp_path / "oracle.jsonl"
    oracle = _eval(metaqa_dir, capsys, *common, "--editor", "oracle", "--out", str(out))
    none = _eval(metaqa_dir, capsys, *common, "--editor", "none")
    kept = _eval(metaqa_dir, capsys, *common, "--editor", "none", "--keep-editing")
    assert oracle["n"] == none["n"] == 40 and oracle["errors"] == 0
    runs = ((oracle, "oracle"), (none, "none"), (kept, "none, kept editing"))
    for run, name in runs:
        assert (run["reached"], run["hit1"], run["feedback_samples"]) == PINNED[hops][name]
        assert run["accuracy"] == run["hit1"] and run["edit_prompts"] == run["feedback_samples"]
    # every prompt offered the gold relation of the corrupted step (the diagnosis's Earlier
    # Relations: before them 3-hop recall was 0.306)
    assert oracle["feedback_recall"] == 1.0
    # The same first paths; only repairs differ, so the oracle can only do better.
    assert oracle["instantiation_first_complete"] == none["instantiation_first_complete"]
    assert oracle["instantiation_final_complete"] == 1.0 > none["instantiation_final_complete"]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for r in records:  # one feedback sample (or exclusion) per edit prompt, none without an edit
        assert len(r["feedback"]) + len(r.get("feedback_excluded", [])) == r["edits"]
        assert r["usage"]["llm_calls"] == 1 + r["edits"] + (1 if r["trace"]["evidence"] else 0)
        assert r["reached"] >= r["hit1"] and r["ends"] >= (1 if r["reached"] else 0)

    report = tmp_path / "report"
    assert main(["report", str(out), "--out", str(report)]) == 0
    text = (report / "report.md").read_text()
    assert "| feedback_recall | 1.0 |" in text and "## Edits per question" in text
    for png in ("edits", "accuracy", "cost", "instantiation"):
        data = (report / f"{png}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000


def test_an_empty_first_path_under_both_oracles(
    metaqa_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The oracle of before wrote hops 2 and 3 in KG ids it was never shown; the shown-only
    oracle writes them in words, and binding has to find them (here it does, and binds more
    narrowly: "director" does not pull in `written_by` as the id's "by" does)."""
    common = ["--hops", "3", "--limit", "20", "--planner", "empty"]
    shown = _eval(metaqa_dir, capsys, *common, "--editor", "oracle")
    all_ids = _eval(metaqa_dir, capsys, *common, "--editor", "oracle-all-ids")
    for run in (shown, all_ids):
        assert run["reached"] == 1.0 and run["llm_calls_per_question"] == 3.0
    # hit1 with the evidence cut alphabetically: 0.9 and 0.8; as whole chains (issue 31):
    # 0.95 and 0.9, then 0.9 and 0.85 with one tree per path: a film reached by directed_by
    # and written_by no longer shows its triples twice, so the rule (which reads no relation
    # names) finds more support elsewhere: another actor, a `has_tags` tag on more films
    assert (shown["hit1"], shown["ends_per_question"]) == (0.9, 10.45)
    assert (all_ids["hit1"], all_ids["ends_per_question"]) == (0.85, 19.35)


def test_binding_recall_on_metaqa_templates(
    metaqa_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "binding", "--metaqa", str(metaqa_dir), "--dense", "off"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["metaqa"]["bm25"]
    assert result["queries"] == 158  # distinct 1-hop templates
    # BM25 alone finds nothing for most templates ("what did X act in" for starred_actors)
    assert (result["recall@1"], result["recall@5"], result["recall@10"]) == (0.443, 0.443, 0.443)


def test_binding_recall_on_freebase_labels(
    freebase_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["bench", "binding", "--freebase", str(freebase_dir), "--sample", "300"]
    assert main([*args, "--dense", "off"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["freebase"]["bm25"]
    assert result["queries"] == 300
    assert (result["recall@1"], result["recall@5"], result["recall@10"]) == (0.6, 0.84, 0.92)


def test_the_papers_analyses_without_an_llm(
    metaqa_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tables 4, 8 and 9 (Readi) and Path-RAG candidate coverage (FiDeLiS), no model."""
    common = ["--hops", "2", "--limit", "20", "--planner", "corrupt", "--editor", "oracle"]
    summary = _eval(metaqa_dir, capsys, *common)
    assert (summary["reached"], summary["coverage"], summary["hit1"]) == (0.7, 0.7, 0.6)
    assert summary["retrieved_triples_per_question"] == 12.2  # #RK
    assert summary["path_length"] == 2.0  # the oracle writes the 2-relation gold path
    assert summary["compound_end_rate"] == 0.0  # MetaQA has no compound nodes
    gold = _eval(metaqa_dir, capsys, "--hops", "2", "--limit", "20", "--planner", "gold")
    assert gold["retrieved_triples_per_question"] == 4.25 and gold["coverage"] == 1.0
    assert gold["reached"] == gold["exact"] == 1.0 and gold["ends_per_question"] == 2.35

    assert main(["eval", "metaqa", "--data", str(metaqa_dir), *common, "--budgets", "0,1,4"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    sweep = json.loads(lines[-1])["budget_sweep"]
    assert [row["max_edits"] for row in sweep] == [0, 1, 4]
    assert sweep[0]["edits_per_question"] == 0
    assert [row["reached"] for row in sweep] == [0.15, 0.7, 0.7]  # one edit repairs all
    assert [row["hit1"] for row in sweep] == [0.05, 0.6, 0.6]
    assert [row["llm_calls_per_question"] for row in sweep] == [1.6, 2.55, 2.55]

    args = ["bench", "pathrag", "--data", str(metaqa_dir), "--hops", "2", "--limit", "4"]
    assert main([*args, "--alphas", "0,0.6", "--top-m", "5"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["pathrag"]
    assert result["steps"] == 8 and set(result["coverage"]) == {"alpha=0.0", "alpha=0.6"}
    for cut in result["coverage"].values():
        assert 0 <= cut["top1"] <= cut["top3"] <= cut["top5"] <= 1
