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
from readi_graph.datasets.metaqa_tog import TogOracle, depths, reached
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph
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
