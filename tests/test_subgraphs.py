"""Per-question subgraphs in RoG's release format (`readi eval cwq --subgraphs`): the reader
and its variants, the KG built from a record, what a subgraph holds of its answers, and whole
runs where every question is counted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from readi_graph.cli import main
from readi_graph.core.base import Term
from readi_graph.datasets.metaqa import DatasetError
from readi_graph.datasets.subgraphs import load_subgraphs
from readi_graph.environments.kg.name_triples import ENTITY, name_triples_kg, node_iri
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS
from readi_graph.eval.subgraph_paths import ground_paths, subgraph_facts

from conftest import FIXTURES

ROG = FIXTURES / "rog"
JSONL, PARQUET = ROG / "cwq_subgraphs.jsonl", ROG / "cwq_subgraphs.parquet"
IDS = ["WebQTest-832", "WebQTrn-60", "WebQTrn-962", "WebQTrn-1023", "made-up-mr-met",
       "made-up-obama-spouse"]  # fmt: skip


def _short(ident: str) -> str:
    return ident.split("_")[0]


def test_the_release_format_and_its_variants_are_read_alike() -> None:
    subgraphs, questions = load_subgraphs(JSONL)
    with subgraphs:
        assert [_short(q.id) for q in questions] == IDS
        sizes = [subgraphs.triples(q) for q in questions]
    assert [(len(t), bad) for t, bad in sizes] == [(11, 0), (159, 0), (3, 0), (8, 0), (2, 0),
                                                   (4, 1)]  # fmt: skip
    lou, *_, obama = questions
    assert lou.topics == ("Lou Seal",) and lou.answers == ("2014 World Series",)
    # `ID`, `answers` as a string, a {mid: name} topic map, `subgraph.tuples`: read alike
    assert obama.id == "made-up-obama-spouse" and obama.topics == ("Barack Obama",)
    assert obama.answers == ("Michelle Obama",)
    assert questions[2].topics == ("Jenny's Father", "Forrest Gump")


def test_parquet_gives_the_same_questions_and_graphs_and_the_spool_is_removed() -> None:
    json_set, from_json = load_subgraphs(JSONL, limit=5)
    parquet_set, from_parquet = load_subgraphs(PARQUET)
    with json_set, parquet_set:
        assert [(q.id, q.question, q.topics, q.answers) for q in from_parquet] == [
            (q.id, q.question, q.topics, q.answers) for q in from_json
        ]
        for a, b in zip(from_json, from_parquet, strict=True):
            assert json_set.triples(a) == parquet_set.triples(b)
        spool = from_parquet[0].place.path.parent
        assert spool.is_dir() and spool.name.startswith("readi-subgraphs-")
    assert not spool.exists()


def test_a_release_directory_is_read_by_split(tmp_path: Path) -> None:
    data = tmp_path / "RoG-cwq" / "data"
    data.mkdir(parents=True)
    shutil.copy(PARQUET, data / "validation-00000-of-00001.parquet")
    shutil.copy(JSONL, data / "test-00000-of-00001.jsonl")
    dev, questions = load_subgraphs(tmp_path / "RoG-cwq", "dev", limit=2)  # dev = validation
    with dev:
        assert len(questions) == 2 and questions[0].place.path.suffix == ".jsonl"
    with pytest.raises(DatasetError, match="no train"):
        load_subgraphs(tmp_path / "RoG-cwq", "train")


def test_broken_records_are_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "graph": []}\n{"id": "a", "graph": []}\n')
    with pytest.raises(DatasetError, match="appears twice"):
        load_subgraphs(bad)
    bad.write_text('{"id": "a", "graph": [}\n')
    with pytest.raises(DatasetError, match="byte 0 is not JSON"):
        load_subgraphs(bad)
    with pytest.raises(DatasetError, match="cannot read it as Parquet"):
        (tmp_path / "x.parquet").write_bytes(b"not parquet")
        load_subgraphs(tmp_path / "x.parquet")


def test_names_are_labels_ids_stay_ids_and_unnamed_ids_are_compound() -> None:
    subgraphs, questions = load_subgraphs(JSONL)
    with subgraphs:
        triples, _ = subgraphs.triples(questions[-1])
    kg = name_triples_kg(triples)
    obama = kg.resolve("Barack Obama")
    assert obama.match == "exact" and obama.nodes == (Term.iri(node_iri("Barack Obama")),)
    assert obama.nodes[0].value.startswith(ENTITY)
    cvt = Term.iri(FREEBASE_NS + "m.02nqglv")
    labels = kg.labels([cvt, obama.nodes[0]])
    assert (
        labels[cvt] is None and kg.is_compound(cvt, None) and kg.display(cvt, None) == "<compound>"
    )
    assert labels[obama.nodes[0]] == "Barack Obama"
    assert FREEBASE_NS + "people.marriage.spouse" in kg.relations()


def test_what_a_subgraph_holds_of_its_answers() -> None:
    subgraphs, questions = load_subgraphs(JSONL)
    with subgraphs:
        facts = [subgraph_facts(*_triples_topics_answers(subgraphs, q)) for q in questions]
    assert [f.answer_in_subgraph for f in facts] == [True, True, False, True, True, True]
    assert [f.answer_hops for f in facts] == [2, 1, None, 2, None, 2]
    assert facts[-1].malformed == 1 and facts[-1].record()["subgraph_malformed"] == 1


def _triples_topics_answers(subgraphs, question):  # type: ignore[no-untyped-def]
    triples, bad = subgraphs.triples(question)
    return triples, question.topics, question.answers, bad


def test_ground_paths_follow_edges_both_ways_and_are_all_the_shortest() -> None:
    triples = [("A", "r", "B"), ("C", "s", "B"), ("A", "t", "D"), ("D", "u", "C"), ("C", "v", "E")]
    paths = ground_paths(triples, ["A"], {"C"})
    assert [[(s.node, s.relation, s.forward) for s in p] for p in paths] == [
        [("A", "r", True), ("B", "s", False)],
        [("A", "t", True), ("D", "u", True)],
    ]
    assert ground_paths(triples, ["A"], {"Z"}) == [] and ground_paths(triples, ["Q"], {"C"}) == []
    assert len(ground_paths(triples, ["A"], {"C"}, limit=1)) == 1


def _stub(prompt: str) -> str:
    """Readi's prompts for the fixture questions: a real path per question, then the answer
    when the gold answer is among the triples the walk returned."""
    paths = {
        "Lou Seal": "Lou Seal -> sports.mascot.team -> sports.sports_team.championships",
        "Portuguese Language": "Portuguese Language -> language.human_language.countries_spoken_in",
        "Jenny's Father": "Jenny's Father -> film.film_character.portrayed_in_films -> film.performance.actor",
        "Buenos Aires": "Buenos Aires -> location.location.containedby -> location.country.currency_used",
        "Mr. Met": "Mr. Met -> sports.mascot.team",
        "Barack Obama": "Barack Obama -> people.person.spouse_s -> people.marriage.spouse",
    }
    golds = ["2014 World Series", "Mozambique", "Michael Connor Humphreys", "Argentine peso",
             "New York Mets", "Michelle Obama"]  # fmt: skip
    if "Answer the question using only" in prompt:
        triples = prompt.split("Knowledge Triples:\n")[-1]
        found = [g for g in golds if f", {g})" in triples]
        return "{" + (found[0] if found else "") + "}"
    topics = json.loads(prompt.split("\nTopic Entities: ")[-1].splitlines()[0])
    return "Path: " + json.dumps({t: [paths[t]] for t in topics if t in paths})


def _lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]


@pytest.mark.parametrize("source", [JSONL, PARQUET], ids=["jsonl", "parquet"])
def test_eval_cwq_on_subgraphs_counts_every_question(
    source: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from openai_stub import openai_stub

    out = tmp_path / "r.jsonl"
    with openai_stub(_stub) as (base_url, _):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        args = ["eval", "cwq", "--subgraphs", str(source), "--model", "stub", "--max-edits", "1",
                "--no-cache", "--out", str(out), "--concurrency", "2"]  # fmt: skip
        assert main(args) == 0
    summary = _lines(capsys)[-1]
    records = {_short(r["id"]): r for r in map(json.loads, out.read_text().splitlines())}
    n = 6 if source == JSONL else 5
    assert summary["n"] == n and summary["errors"] == 0 and summary["missing"] == 0
    assert str(summary["run"]).startswith("cwq dev subgraphs")
    hits = {k for k, r in records.items() if r["hit1"] == 1.0}
    assert hits == {"WebQTest-832", "WebQTrn-60", "WebQTrn-1023"} | (
        {"made-up-obama-spouse"} if source == JSONL else set()
    )
    assert records["WebQTrn-962"]["answer_in_subgraph"] is False  # stays in the denominator
    assert records["made-up-mr-met"]["answer_hops"] is None
    assert summary["hit1"] == round(len(hits) / n, 5)
    assert summary["answer_in_subgraph"] == round((n - 1) / n, 5)
    subset = summary["answerable_subset"]
    assert isinstance(subset, dict) and subset["n"] == n - 1
    assert (
        subset["hit1"] == round(len(hits) / (n - 1), 5) and "only the questions" in subset["note"]
    )


def test_eval_without_data_or_subgraphs_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["eval", "cwq", "--model", "stub"]) == 2  # bad input (cli/errors.py)
    assert "--data DIR (official JSON) or --subgraphs PATH" in capsys.readouterr().err


def test_subgraph_kgs_share_relation_vectors_and_write_no_cache_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from readi_graph.environments.kg.name_triples import POOLED_VECTORS
    from readi_graph.environments.kg.relations.encoder import dense_available

    if not dense_available():
        pytest.skip("needs the [embed] extra")
    monkeypatch.setenv("READI_CACHE_DIR", str(tmp_path))
    POOLED_VECTORS.cache_clear()
    first = name_triples_kg(
        [("A", "people.person.spouse_s", "m.0x"), ("m.0x", "people.marriage.spouse", "B")]
    )
    second = name_triples_kg([("C", "people.person.spouse_s", "D")])
    a, b = first.relation_index, second.relation_index
    spouse = FREEBASE_NS + "people.person.spouse_s"
    # the same vector, scored in two batches of different shapes: equal up to the last bits
    # of float32 (the BLAS kernel and the batch shape decide those), not bit for bit
    same = b.dense_scores("spouse")[b.position[spouse]]
    assert a.dense_scores("spouse")[a.position[spouse]] == pytest.approx(same, rel=1e-5, abs=1e-6)
    assert a.dense_scores("spouse")[a.position[spouse]] > 0.4  # a real MiniLM similarity
    assert not (tmp_path / "embeddings").exists()  # no file per subgraph
    assert len(POOLED_VECTORS._vectors) == 2  # each relation text encoded once


def test_eval_webqsp_on_subgraphs_async(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from openai_stub import openai_stub

    with openai_stub(_stub) as (base_url, _):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        args = ["eval", "webqsp", "--subgraphs", str(JSONL), "--model", "stub", "--no-cache",
                "--async", "--concurrency", "3", "--limit", "4"]  # fmt: skip
        assert main(args) == 0
    summary = _lines(capsys)[-1]
    assert summary["run"] == "webqsp test subgraphs readi"
    assert summary["n"] == 4 and summary["errors"] == 0 and summary["hit1"] == 0.75
    assert summary["answer_in_subgraph"] == 0.75 and summary["answer_reachable"] == 0.75
