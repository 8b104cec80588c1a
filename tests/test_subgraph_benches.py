"""`readi bench replay --subgraphs` and `readi bench pathrag --subgraphs` on the RoG-format
fixture: the published GPT-3.5 paths of four CWQ questions, each walked on its own subgraph,
and Path-RAG's candidates checked against the subgraphs' own ground paths."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from readi_graph.cli import main

from conftest import FIXTURES

ROG = FIXTURES / "rog" / "cwq_subgraphs.jsonl"
FRAGMENT = FIXTURES / "cwq_fragment"


def _last(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    result: dict[str, object] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return result


def test_replay_on_subgraphs_counts_every_question(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    paths = json.loads((FRAGMENT / "cwq_paths.json").read_text())
    stray = {**paths[0], "ID": "not-in-the-file", "question": "A question without a subgraph?"}
    (tmp_path / "paths.json").write_text(json.dumps([*paths, stray]))
    args = ["bench", "replay", "--real", str(tmp_path / "paths.json"), "--subgraphs", str(ROG),
            "--freebase", str(FRAGMENT)]  # fmt: skip
    assert main(args) == 0
    results = _last(capsys)["paths"]
    assert isinstance(results, dict) and len(results) == 3  # paper, readi-graph, + local
    for result in results.values():
        assert result["questions"] == 5 and result["errors"] == 1  # the stray one, counted
        # Lou Seal, Portuguese and Buenos Aires reach their answers on their own subgraphs;
        # Jenny's Father's answer is not in its subgraph
        assert result["gold_among_instances"] == 0.6
        assert result["answer_in_subgraph"] == 0.6
        assert result["answerable_subset"]["n"] == 3
        assert result["answerable_subset"]["gold_among_instances"] == 1.0


def test_replay_without_a_kg_is_a_clear_refusal(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "replay", "--real", str(FRAGMENT / "cwq_paths.json")]
    assert main(args) == 2
    assert "--subgraphs PATH" in capsys.readouterr().err  # one line on stderr (cli/errors.py)


def test_pathrag_on_subgraphs_checks_the_ground_paths(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "pathrag", "--subgraphs", str(ROG), "--alphas", "0,0.3"]) == 0
    result = _last(capsys)["pathrag"]
    assert isinstance(result, dict)
    assert result["questions"] == 6 and result["answer_in_subgraph"] == 0.8333
    # no ground path: Jenny's Father (answer absent) and Mr. Met (not connected)
    assert result["with_ground_path"] == 0.6667
    assert result["steps"] == 2 + 1 + 2 + 2  # Lou Seal, Portuguese, Buenos Aires, Obama (CVT)
    for alpha in ("alpha=0.0", "alpha=0.3"):
        coverage, whole = result["coverage"][alpha], result["path_covered"][alpha]
        assert coverage["top1"] <= coverage["top3"] <= coverage["top10"] == 1.0
        assert whole["top10"] == 0.6667  # every answerable question, over all six asked


GOLDS = ("2014 World Series", "Mozambique", "Michael Connor Humphreys", "Argentine peso",
         "New York Mets", "Michelle Obama")  # fmt: skip


def _fidelis_stub(prompt: str) -> str:
    """FiDeLiS's prompts: a plan; the candidates that mention a gold answer (else the first);
    a path is verified when it ends in a gold answer; the reasoning names the golds it sees."""
    own = prompt.split("### Your turn")[-1]
    if "plan for it" in prompt:
        return json.dumps({"keywords": "team champion language country currency spouse",
                           "planning_steps": ["follow the question"],
                           "declarative_statement": "The answer is *placeholder*."})  # fmt: skip
    if "You choose how a search" in prompt:
        lines = re.findall(r"(?m)^(\d+)\. (.*)$", own)
        return json.dumps([int(n) for n, text in lines if any(g in text for g in GOLDS)] or [1])
    if "You check a reasoning path" in prompt:
        return "yes" if any(own.rstrip().endswith(g) for g in GOLDS) else "no"
    found = [g for g in GOLDS if g in own]
    return "{" + " | ".join(found) + "}"


def test_fidelis_runs_on_each_question_s_subgraph(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from openai_stub import openai_stub

    out = tmp_path / "f.jsonl"
    with openai_stub(_fidelis_stub) as (base_url, prompts):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        args = ["eval", "cwq", "--subgraphs", str(ROG), "--strategy", "fidelis", "--model",
                "stub", "--no-cache", "--out", str(out)]  # fmt: skip
        assert main(args) == 0
    summary = _last(capsys)
    assert summary["n"] == 6 and summary["errors"] == 0 and str(summary["run"]).endswith("fidelis")
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert all("answer_in_subgraph" in r for r in records)
    assert summary["answer_in_subgraph"] == round(5 / 6, 5)
    # a candidate of one question never comes from another question's subgraph
    lou = [p for p in prompts if "Lou Seal" in p and "You choose how a search" in p]
    assert lou and not any("Mozambique" in p or "Argentina" in p for p in lou)


def test_a_registered_strategy_runs_on_subgraphs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from test_strategies import ToyState, make_toy_builder, toy_describe

    from readi_graph import strategies
    from readi_graph.core.context import ReadiContext
    from readi_graph.strategies import Strategy

    toy = Strategy("toy", make_toy_builder, ToyState, ReadiContext, toy_describe)
    monkeypatch.setitem(strategies.STRATEGIES, "toy", toy)  # the one registry line
    out = tmp_path / "t.jsonl"
    args = ["eval", "cwq", "--subgraphs", str(ROG), "--strategy", "toy", "--max-edits", "20",
            "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    summary = _last(capsys)
    assert summary["n"] == 6 and summary["errors"] == 0
    predicted = {
        r["id"].split("_")[0]: r["prediction"]
        for r in map(json.loads, out.read_text().splitlines())
    }
    assert predicted["WebQTest-832"] == ["San Francisco Giants"]  # one hop in its own subgraph
    assert predicted["WebQTrn-1023"] == ["Argentina"]
    assert "Mozambique" in predicted["WebQTrn-60"]
