"""The offline ToG oracle: it plays ToG's prompts from the gold relation chain only, so
`readi eval metaqa --strategy tog` measures the environment and the loop without a model."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import pytest

from readi_graph.cli import main
from readi_graph.datasets.metaqa import load_questions
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph
from readi_graph.offline.tog import TogOracle, depths, leads_of, reached
from readi_graph.strategies.tog.context import call_bound


@pytest.mark.parametrize("hops", [2, 3])
def test_readi_eval_runs_tog_with_the_oracle(
    metaqa_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], hops: int
) -> None:
    out = tmp_path / "tog.jsonl"
    args = ["eval", "metaqa", "--data", str(metaqa_dir), "--hops", str(hops), "--limit", "12",
            "--strategy", "tog", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["run"].endswith("strategy=tog driver=oracle")
    assert summary["n"] == 12 and summary["errors"] == 0
    assert summary["hit1"] >= 11 / 12  # measured on these 12: 1.0 (2-hop), 1.0 (3-hop)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for r in records:
        assert 2 <= r["usage"]["llm_calls"] <= call_bound(3, 3, 1)
        assert r["trace"]["attempts"][-1]["verdict"] in ("yes", "nothing new")
    assert sum(len(r["trace"]["attempts"]) == hops for r in records) >= 11  # yes at depth = hops
    page = tmp_path / "first.html"
    assert main(["trace", str(out), "--out", str(page)]) == 0  # the picture of a results line
    assert page.read_text().count('class="verdict"') == hops + 1  # each depth, then answers


def test_the_oracle_never_reads_the_answers(metaqa_kg: KnowledgeGraph, metaqa_dir: Path) -> None:
    questions = list(itertools.islice(load_questions(metaqa_dir, 2, "dev"), 6))
    blind = [dataclasses.replace(q, answers=("nothing",)) for q in questions]
    runs = []
    for known in (questions, blind):
        graph = build_graph(metaqa_kg, TogOracle.over(known), strategy="tog")
        runs.append(
            [graph.invoke({"question": q.question, "topic_entities": [q.topic]})["answers"]
             for q in questions]
        )  # fmt: skip
    assert runs[0] == runs[1] and all(runs[0])
    assert any(set(a) & set(q.answers) for a, q in zip(runs[0], questions, strict=True))


def test_the_oracle_reads_its_prompts_by_their_markers(metaqa_dir: Path) -> None:
    q = next(iter(load_questions(metaqa_dir, 2, "dev")))
    oracle = TogOracle.over([q])
    with pytest.raises(KeyError, match="no gold data"):
        oracle.invoke("You choose which relations a search\n### Your turn\nQuestion: unknown\n")
    triples = ("Knowledge Triples:\nDepth 1:\n(Paris, Texas, directed_by, Wim Wenders)\n"
               "(B, directed_by, Wim Wenders)\nDepth 2:\n(B, in_language, German)\nNotes:\n- x")  # fmt: skip
    found = depths(triples)
    assert found == {1: ["Paris, Texas, directed_by, Wim Wenders", "B, directed_by, Wim Wenders"],
                     2: ["B, in_language, German"]}  # fmt: skip
    assert reached(found[1], "<- directed_by") == ["Paris, Texas", "B"]  # names with commas
    assert reached(found[2], "in_language") == ["German"]


def test_the_width_oracle_keeps_w_relations_and_costs_what_a_model_would(
    metaqa_kg: KnowledgeGraph, metaqa_dir: Path
) -> None:
    questions = list(itertools.islice(load_questions(metaqa_dir, 2, "dev"), 8))
    runs = {}
    for keep in ("gold", "width"):
        oracle = TogOracle.over(questions, keep=keep)
        graph = build_graph(metaqa_kg, oracle, strategy="tog")
        outs = [graph.invoke({"question": q.question, "topic_entities": [q.topic]})
                for q in questions]  # fmt: skip
        runs[keep] = (oracle, outs)
    gold, width = runs["gold"][1], runs["width"][1]
    for a, b in zip(gold, width, strict=True):
        assert b["usage"]["llm_calls"] >= a["usage"]["llm_calls"]
        assert b["usage"]["llm_calls"] <= call_bound(3, 3, 1)
    assert sum(b["usage"]["llm_calls"] for b in width) > sum(a["usage"]["llm_calls"] for a in gold)
    assert [o["answers"] for o in gold] == [o["answers"] for o in width]  # off-chain: scored 0
    wide = [o["attempts"][0]["relations"] for o in width if len(o["attempts"][0]["relations"]) >= 3]
    assert wide  # topics with three relations or more: W kept, the gold one first
    for first in wide:
        kept = sorted((r["score"] for r in first if r["kept"]), reverse=True)
        assert kept == [0.6, 0.2, 0.2]
    with pytest.raises(ValueError, match="keep is one of"):
        TogOracle.over(questions, keep="all")


def test_the_oracle_reads_what_leads_on_and_says_the_hops_left(
    metaqa_kg: KnowledgeGraph, metaqa_dir: Path
) -> None:
    q = next(iter(load_questions(metaqa_dir, 2, "dev")))  # director_to_movie_to_language
    oracle = TogOracle.over([q])
    graph = build_graph(metaqa_kg, oracle, strategy="tog")
    out = graph.invoke({"question": q.question, "topic_entities": [q.topic]})
    assert out["answers"] == ["Greek"]
    reply = oracle.invoke(
        "You choose which relations a search ... `Hops left: N` ...\n### Your turn\n"
        f"Question: {q.question}\nEntity: {q.topic}\nReached by: {q.topic}\nRelations:\n"
        "<- directed_by\n<- written_by\nChoose at most 3:\n"
    ).content
    assert "{<- directed_by (Score: 1.0)}" in reply and "Hops left: 1" in reply
    scored = oracle.invoke(
        "You score the entities a search\n### Your turn\n"
        f"Question: {q.question}\nEntity: {q.topic}\nReached by: {q.topic}\n"
        "Relation: <- directed_by\nCandidates:\n1. A: in_language (1), release_year (1)\n"
        "2. Star Wars: Episode IV: release_year (1)\n3. C: release_year (1), +2 more\n"
    ).content
    assert scored == "Scores: 1, 0, 1"  # C may have a language among those not shown
    assert leads_of("Star Wars: Episode IV: <- directed_by (2), in_language (1)") == (
        {"<- directed_by", "in_language"}, True)  # fmt: skip
    assert leads_of("1994: a value") == (set(), True) and leads_of("Plain Name") is None


def test_readi_eval_takes_the_width_oracle(
    metaqa_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["eval", "metaqa", "--data", str(metaqa_dir), "--hops", "2", "--limit", "4",
            "--strategy", "tog", "--tog-oracle", "width", "--out", str(tmp_path / "w.jsonl")]  # fmt: skip
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["run"].endswith("strategy=tog driver=oracle keep=width")
    assert summary["n"] == 4 and summary["errors"] == 0 and summary["hit1"] == 1.0
