"""Binding what real models write: exact ids, reverse twins, question context, local binding,
and the two benchmarks on real GPT-3.5 output (a fixture cut from `readi_cwq`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readi_graph.environments.kg.binding import BindingOptions, bind_phrase
from readi_graph.environments.kg.instantiation import bind, bind_locally, connect
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.local import load_ntriples
from readi_graph.environments.kg.paths import KGPath
from readi_graph.environments.kg.retrieval import RelationIndex, id_key
from readi_graph.environments.kg.schema import FREEBASE_NS, RelationSchema
from readi_graph.eval.binding_real import (
    IndexBinder,
    gold_relations,
    load_real,
    recall,
    split_path,
)
from readi_graph.eval.replay import (
    fragment_kg,
    fragment_ntriples,
    fragment_triples,
    replay,
)

FIXTURE = Path(__file__).parent / "fixtures" / "cwq_fragment"
NS = FREEBASE_NS


@pytest.fixture(scope="module")
def schema() -> RelationSchema:
    return RelationSchema.from_freebase(FIXTURE)


@pytest.fixture(scope="module")
def questions() -> list[dict[str, object]]:
    return json.loads((FIXTURE / "cwq_paths.json").read_text(encoding="utf-8"))


def test_id_key_ignores_case_separators_and_prefixes() -> None:
    assert id_key("ns:Sports.Sports_Team.Team_Mascot") == id_key("sports.sports_team.team_mascot")
    assert id_key("directed by") == id_key("http://x.org/directed_by")
    assert id_key("!!!") == ""


def test_a_relation_written_verbatim_is_bound_first() -> None:
    # On Freebase's inventory BM25 ranks 9% of ids below another id made of the same words.
    names = (
        "transit_line.transit_system",
        "transit_system.transit_lines",
        "transit_stop.transit_lines",
    )
    relations = [NS + "metropolitan_transit." + n for n in names]
    plain = RelationIndex(relations, dense=False, exact_first=False)
    index = RelationIndex(relations, dense=False)
    for written in (
        "metropolitan_transit.transit_system.transit_lines",
        "Metropolitan Transit Transit-System Transit_Lines",
    ):
        assert plain.search(written, 1)[0][0] != relations[1]
        assert index.search(written, 1)[0][0] == relations[1]
        assert index.rank(written, relations)[0] == relations[1]


def test_twins_come_from_unique_swapped_signatures(schema: RelationSchema) -> None:
    assert schema.twin(NS + "sports.sports_team.team_mascot") == NS + "sports.mascot.team"
    assert schema.twin(NS + "sports.mascot.team") == NS + "sports.sports_team.team_mascot"
    # domain == range: no way to tell which relation is the reverse
    assert schema.twin(NS + "location.location.containedby") is None


def test_each_bound_relation_brings_its_twin_without_taking_a_place(
    schema: RelationSchema,
) -> None:
    index = RelationIndex(sorted(schema.info), dense=False)
    bound = [
        c.relation for c in bind_phrase(index, "sports.sports_team.team_mascot", 1, schema=schema)
    ]
    assert bound == [NS + "sports.sports_team.team_mascot", NS + "sports.mascot.team"]
    assert len(bind_phrase(index, "team mascot", 1)) == 1  # no schema, no twin


def test_the_question_reorders_but_never_adds_candidates() -> None:
    relations = [NS + "film.film.language", NS + "film.film.country", NS + "people.person.gender"]
    index = RelationIndex(relations, dense=False)
    ask = "which country and language is the film from"
    phrase_only = bind_phrase(index, "film", 3, question_weight=0.0)
    with_question = bind_phrase(index, "film", 3, question=ask, question_weight=0.5)
    assert {c.relation for c in with_question} == {c.relation for c in phrase_only}
    assert NS + "people.person.gender" not in {c.relation for c in with_question}
    # "gender" shares no word with the phrase: the question alone does not bind it
    assert (
        bind_phrase(index, "sex", 3, question="what gender is the person", question_weight=1.0)
        == ()
    )


def _mini_kg(binding: BindingOptions) -> KnowledgeGraph:
    triples = [
        ("Lou Seal", "sports.mascot.team", "San Francisco Giants"),
        ("San Francisco Giants", "sports.sports_team.championships", "2014 World Series"),
    ]
    relations = [NS + r for r in ("sports.mascot.team", "sports.sports_team.championships")]
    relations += [NS + "sports.sports_team.team_mascot", NS + "sports.team_owner.teams_owned"]
    schema = RelationSchema.from_inventory(
        {
            "sports.mascot.team": {"domain": "sports.mascot", "range": "sports.sports_team"},
            "sports.sports_team.team_mascot": {
                "domain": "sports.sports_team",
                "range": "sports.mascot",
            },
        },
        NS,
    )
    return KnowledgeGraph(
        load_ntriples(fragment_ntriples(triples)),
        relations=relations,
        schema=schema,
        binding=binding,
    )


def test_a_twin_finds_the_fact_the_kg_stored_the_other_way() -> None:
    path = KGPath("Lou Seal", ("sports.sports_team.team_mascot", "championships"))
    # the model wrote an id that exists (bound first) but the KG stored the other direction
    # (local binding, which would also find it, is off to see the twin alone)
    for twins in (False, True):
        kg = _mini_kg(BindingOptions(twins=twins, local_fallback=False))
        instance = connect(kg, path, bind(kg, path, 1))
        assert instance.complete is twins


def test_local_binding_is_opt_in_and_walks_what_is_there() -> None:
    kg = _mini_kg(BindingOptions(twins=False, local_fallback=True))
    frontier = kg.resolve("San Francisco Giants").nodes
    local = bind_locally(kg, frontier, "championships won", 1)
    assert [c.relation for c in local] == [NS + "sports.sports_team.championships"]
    assert bind_locally(kg, frontier, "gender", 3) == ()  # nothing the phrase reaches
    # "team owner teams" binds (top-1) to a relation absent at the Giants
    path = KGPath("Lou Seal", ("sports.mascot.team", "team owner teams"))
    default = _mini_kg(BindingOptions(twins=False))
    stuck = connect(default, path, bind(default, path, 1))
    assert stuck.failed_at == 1 and not any(h.local for h in stuck.hops)  # an edit is due
    # opted in, a relation sharing one word is walked instead: the risk the default avoids
    walked = connect(kg, path, bind(kg, path, 1))
    assert walked.complete and walked.hops[1].local
    assert walked.hops[1].matched == [(NS + "sports.sports_team.championships", True)]


def test_gold_relations_leave_type_filters_and_entities_out() -> None:
    sparql = (
        "?c ns:sports.sports_team.team_mascot ns:m.03_dwn . "
        "?c ns:common.topic.notable_types ns:m.01m9 . ?c ns:sports.sports_team.championships ?x ."
    )
    assert gold_relations(sparql) == (
        "sports.sports_team.team_mascot",
        "sports.sports_team.championships",
    )
    assert split_path("Lou Seal -> a.b.c -> d.e.f", "Lou Seal") == ["a.b.c", "d.e.f"]
    assert split_path("a.b.c -> d.e.f", "Lou Seal") == ["a.b.c", "d.e.f"]


def test_binding_recall_on_real_gpt35_paths(schema: RelationSchema) -> None:
    questions = load_real(FIXTURE / "cwq_paths.json")
    assert len(questions) == 4 and all(q.gold and q.written for q in questions)
    index = RelationIndex(sorted(schema.info), dense=False)
    plain = RelationIndex(sorted(schema.info), dense=False, exact_first=False)
    ours = recall(questions, IndexBinder(index, schema), schema)
    paper = recall(questions, IndexBinder(plain, None, question_weight=0.0), schema)
    for result in (ours, paper):
        assert result["gold_relations"] == sum(len(q.gold) for q in questions)
        assert 0 <= result["recall@1"] <= result["recall@5"] <= result["recall@10"] <= 1
        assert result["recall@5"] <= result["either@5"]
    assert ours["either@5"] >= paper["either@5"] and ours["recall@1"] >= paper["recall@1"]
    assert 0 < ours["verbatim"] < 1  # GPT-3.5 wrote some gold ids verbatim, not all


def test_replay_of_real_paths_through_the_graph(
    schema: RelationSchema, questions: list[dict[str, object]]
) -> None:
    triples = fragment_triples(FIXTURE / "run.jsonl")
    assert any(o.startswith("m.") for _, _, o in triples)  # CVT nodes are in the fragment
    kg = fragment_kg(FIXTURE / "run.jsonl", schema)
    result = replay(questions, kg)
    assert result["errors"] == 0  # the halfway instances of nodes met at two steps
    assert result["questions"] == 4
    assert result["first_path_instantiated"] > 0 and result["gold_among_instances"] > 0
    assert result["queries_per_question"] > 0


def test_a_walk_through_a_real_cvt_node(schema: RelationSchema) -> None:
    kg = fragment_kg(FIXTURE / "run.jsonl", schema)
    path = KGPath("Jenny's Father", ("film.film_character.portrayed_in_films", "performance actor"))
    instance = connect(kg, path, bind(kg, path, 5))
    assert instance.complete
    assert (
        kg.labels(instance.frontier).values()
        and "Kevin Mangan" in kg.labels(instance.frontier).values()
    )
    (middle,) = {e.target for e in instance.hops[0].edges}
    assert middle.value.endswith("m.0y54dnx") and kg.is_compound(
        middle, kg.labels([middle])[middle]
    )


def test_cli_benchmarks_on_real_output(capsys: pytest.CaptureFixture[str]) -> None:
    from readi_graph.cli import main

    assert main(["bench", "binding", "--real", str(FIXTURE), "--freebase", str(FIXTURE)]) == 0
    results = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["real"]["cwq_paths"]
    assert {k.split(" ", 1)[1] for k in results} == {
        "paper",
        "readi-graph",
        "readi-graph, no twins",
    }
    for result in results.values():
        assert result["questions"] == 4 and "either@5" in result and "either@100" in result
    run = str(FIXTURE / "run.jsonl")
    paths = str(FIXTURE / "cwq_paths.json")
    args = ["bench", "replay", "--real", paths, "--run", run, "--freebase", str(FIXTURE)]
    assert main(args) == 0
    replayed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["cwq_paths"]
    assert len(replayed) == 6 and all(r["errors"] == 0 for r in replayed.values())
    assert main(["bench", "binding", "--real", str(FIXTURE)]) == 2  # needs the inventory


def test_a_paths_new_phrases_are_encoded_in_one_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from readi_graph.environments.kg.encoder import DenseEncoder, PhraseCache

    calls: list[list[str]] = []

    def encode(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return np.ones((len(texts), 3), dtype=np.float32)

    monkeypatch.setattr(DenseEncoder, "encode", encode)
    cache = PhraseCache(size=2)
    assert len(cache.many(["directed by", "language", "directed by"])) == 3
    assert calls == [["directed by", "language"]]  # one forward pass, each phrase once
    cache.many(["directed by", "genre"])
    assert calls[-1] == ["genre"]  # cached phrases are not encoded again
    cache.many(["language"])  # the least recently used one was dropped past the size
    assert calls[-1] == ["language"]


def test_freebase_evaluation_takes_twins_from_the_inventory_file() -> None:
    import argparse

    from readi_graph.cli.evaluate_freebase import load_freebase

    args = argparse.Namespace(
        frontier_cap=200,
        relations=str(FIXTURE / "fb_relations_domain_range_label.json"),
        endpoint=None,
        graph=None,
        kg=str(Path(__file__).parent / "fixtures" / "freebase_mini.ttl"),
        binding="paper",
    )
    kg = load_freebase(args)
    assert kg.schema.twin(NS + "sports.mascot.team") == NS + "sports.sports_team.team_mascot"
    assert kg.binding == BindingOptions.paper()
    args.relations = None
    assert load_freebase(args).schema.twins == {}


def test_other_models_files_may_write_a_lone_path_per_topic(tmp_path: Path) -> None:
    item = {"ID": "q1", "question": "?", "sparql": "?c ns:sports.mascot.team ?x .",
            "relation_path_candidates": {"Lou Seal": "Lou Seal -> sports.mascot.team", "x": 3}}  # fmt: skip
    (tmp_path / "other_model.json").write_text(json.dumps([item]))
    (tmp_path / "unrelated.json").write_text(json.dumps({"a": 1}))
    from readi_graph.eval.binding_real import real_files

    assert [f.name for f in real_files(tmp_path)] == ["other_model.json"]
    (question,) = load_real(tmp_path / "other_model.json")
    assert question.paths == {"Lou Seal": [["sports.mascot.team"]]} and question.gold
