"""WebQSP and CWQ in their official formats, run against the fixture KG in the test Virtuoso."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readi_graph.cli import main
from readi_graph.datasets.freebase import GOLD_QUERY, load_cwq, load_webqsp
from readi_graph.datasets.metaqa import DatasetError

from conftest import FIXTURES


def test_loaders_read_answers_aliases_and_topic_entities(tmp_path: Path) -> None:
    webqsp = load_webqsp(FIXTURES / "webqsp", "test")
    assert webqsp[0].topics == ("France",) and webqsp[0].topic_ids == ("m.france",)
    assert webqsp[0].answers == (("Germany", "m.germany"), ("Spain", "m.spain"))
    assert webqsp[0].chain[-1] == "location.adjoining_relationship.adjoins"
    cwq = load_cwq(FIXTURES / "cwq", "dev")
    assert cwq[0].topic_ids == ("m.france",) and cwq[0].topics_from == GOLD_QUERY
    assert cwq[1].topics == ("Malia Obama",) and cwq[1].topics_from == "topic_entity"
    assert webqsp[0].topics_from == "TopicEntityMid"
    assert cwq[1].answers[0] == ("Michelle Obama", "Michelle LaVaughn Robinson Obama", "m.michelle")
    (tmp_path / "WebQSP.test.json").write_text('{"Questions": 3}')
    with pytest.raises(DatasetError, match="WebQSP format"):
        load_webqsp(tmp_path, "test")


def _summary(capsys: pytest.CaptureFixture[str]) -> dict[str, float]:
    result: dict[str, float] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return result


def test_webqsp_gold_chains_over_the_endpoint(
    virtuoso: object, virtuoso_freebase: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    endpoint = getattr(virtuoso, "endpoint")  # noqa: B009
    out = tmp_path / "w.jsonl"
    args = ["eval", "webqsp", "--data", str(FIXTURES / "webqsp"), "--endpoint", endpoint,
            "--graph", virtuoso_freebase, "--planner", "gold", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    summary = _summary(capsys)
    assert summary["n"] == 3 and summary["errors"] == 0
    assert summary["f1"] == 1.0 and summary["reached"] == summary["accuracy"] == 1.0
    assert summary["topic_entities_from"] == {"TopicEntityMid": 3}
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(records[0]["prediction"]) == ["Germany", "Spain"]  # through the CVT nodes


def _freebase_model(prompt: str) -> str:
    """A stand-in model: Freebase paths for the two CWQ questions, answers from the triples."""
    if "Answer the question using only the knowledge triples" in prompt:
        triples = prompt.split("Knowledge Triples:\n")[-1]
        wanted = "Madrid" if "capital" in prompt.split("Question: ")[-1] else "Michelle Obama"
        return "{" + wanted + "}" if f", {wanted})" in triples else "{}"
    topic = json.loads(prompt.split("\nTopic Entities: ")[-1].splitlines()[0])[0]
    name, mid = topic.removesuffix("]").split(" [")  # the gold mid, shown with its name
    assert mid in {"m.france", "m.malia"}
    paths = {
        "France": "France -> location.location.adjoin_s -> location.adjoining_relationship.adjoins"
        " -> location.country.capital",
        "Malia Obama": "Malia Obama -> people.person.children -> people.person.spouse_s"
        " -> people.marriage.spouse",
    }
    return f"Path: {json.dumps({topic: [paths[name]]})}"


def test_cwq_with_a_model_over_the_endpoint(
    virtuoso: object,
    virtuoso_freebase: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from openai_stub import openai_stub

    endpoint = getattr(virtuoso, "endpoint")  # noqa: B009
    with openai_stub(_freebase_model) as (base_url, _):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        args = ["eval", "cwq", "--data", str(FIXTURES / "cwq"), "--endpoint", endpoint,
                "--graph", virtuoso_freebase, "--model", "stub", "--max-edits", "1"]  # fmt: skip
        assert main(args) == 0
        summary = _summary(capsys)
        assert summary["n"] == 2 and summary["errors"] == 0
        assert summary["hit1"] == 1.0 and summary["llm_calls_per_question"] == 2.0
        # the summary says where the topic entities came from (one from the gold query)
        assert summary["topic_entities_from"] == {GOLD_QUERY: 1, "topic_entity": 1}
        assert "constraint entities included" in summary["topic_entities_note"]
        assert main(args) == 0  # the rerun is answered from the reply cache
        again = _summary(capsys)
    assert again["hit1"] == 1.0 and again["llm_calls_per_question"] == 0.0
    assert again["cached_calls"] == 4
