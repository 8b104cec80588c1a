"""Small KGs shaped like Freebase, Wikidata, DBpedia and a label-less extract, each answering a
2-hop question through the whole graph with a scripted model, embedded and on Virtuoso."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph

from conftest import FIXTURES
from fakes import path, scripted
from servers import Virtuoso

SHAPES = FIXTURES / "shapes"
LIMIT = {"recursion_limit": 60}


@dataclass(frozen=True)
class Case:
    file: str
    preset: str
    question: str
    topic: str
    relations: str  # the path the scripted model writes, after the topic
    answer: str  # what the scripted model answers; it must be a node of the evidence


CASES = {
    "freebase_cvt": Case(
        "freebase.ttl",
        "freebase",
        "who is Barack Obama married to",
        "Barack Obama",
        "spouse_s -> marriage spouse",
        "Michelle Obama",
    ),
    "freebase_mid": Case(
        "freebase.ttl",
        "freebase",
        "who is Barack Obama married to",
        "m.obama",
        "spouse_s -> marriage spouse",
        "Michelle Obama",
    ),
    "wikidata_direct": Case(
        "wikidata.ttl",
        "wikidata",
        "which country is the director of Blade Runner from",
        "Blade Runner",
        "director -> country of citizenship",
        "United Kingdom",
    ),
    "wikidata_qualifier": Case(
        "wikidata.ttl",
        "wikidata",
        "since when is Ridley Scott married",
        "Ridley Scott",
        "spouse -> start time",
        "1979",
    ),
    "wikidata_id": Case(
        "wikidata.ttl",
        "wikidata",
        "which country is the director of Blade Runner from",
        "wd:Q100",
        "director -> country of citizenship",
        "United Kingdom",
    ),
    "dbpedia": Case(
        "dbpedia.ttl",
        "dbpedia",
        "where was the director of Blade Runner born",
        "Blade Runner",
        "director -> birth place",
        "South_Shields",
    ),
    "iris_only": Case(
        "iris_only.ttl",
        "default",
        "what is the citizenship of the director of Q100",
        "http://www.wikidata.org/entity/Q100",
        "P57 -> P27",
        "Q400",
    ),
}


def ask(kg: KnowledgeGraph, case: Case) -> tuple[dict[str, Any], list[str]]:
    llm = scripted(path({case.topic: [f"{case.topic} -> {case.relations}"]}), f"{{{case.answer}}}")
    out = build_graph(kg, llm).invoke(
        {"question": case.question, "topic_entities": [case.topic]}, LIMIT
    )
    return out, llm.prompts


def check(out: dict[str, Any], case: Case) -> None:
    """Answered from the first path: no edit, two calls, the answer is a node of the evidence."""
    assert out["edits"] == 0 and out["usage"]["llm_calls"] == 2, out["attempts"]
    assert out["answers"] == [case.answer] and out["grounded"], out["evidence"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_shape_answers_a_two_hop_question_embedded(name: str) -> None:
    case = CASES[name]
    kg = KnowledgeGraph.from_file(SHAPES / case.file, settings=case.preset)
    out, _ = ask(kg, case)
    check(out, case)


def test_wikidata_relations_are_shown_by_their_labels() -> None:
    kg = KnowledgeGraph.from_file(SHAPES / "wikidata.ttl", settings="wikidata")
    out, prompts = ask(kg, CASES["wikidata_direct"])
    assert ["Blade Runner", "director", "Ridley Scott"] in out["evidence"]
    assert "P57" not in prompts[-1] and "(Blade Runner, director, Ridley Scott)" in prompts[-1]


def test_fidelis_shows_wikidata_relations_by_their_labels() -> None:
    from readi_graph.core.base import Term
    from readi_graph.strategies.fidelis import beams
    from readi_graph.strategies.fidelis.pathrag import candidates

    kg = KnowledgeGraph.from_file(SHAPES / "wikidata.ttl", settings="wikidata")
    start = Term.iri("http://www.wikidata.org/entity/Q100")
    found = candidates(kg, [start], "director", top_m=5, alpha=0.0).ranked[0]
    walked = [
        beams.text(beams.extend(beams.start("Blade Runner", start, "Blade Runner"), s))
        for s in found
    ]
    assert "Blade Runner -> director -> Ridley Scott" in walked
    assert not any("P57" in line for line in walked)


def test_wikidata_statement_nodes_are_compound_and_lead_to_their_qualifiers() -> None:
    kg = KnowledgeGraph.from_file(SHAPES / "wikidata.ttl", settings="wikidata")
    from readi_graph.core.base import Term

    statement = Term.iri("http://www.wikidata.org/entity/statement/Q200-spouse-1")
    unlabelled_entity = Term.iri("http://www.wikidata.org/entity/Q999")
    assert kg.is_compound(statement, None) and not kg.is_compound(unlabelled_entity, None)
    out, _ = ask(kg, CASES["wikidata_qualifier"])
    ends = {o for _, r, o in out["evidence"] if r == "start time (qualifier)"}
    assert ends == {"1979"}


def test_a_kg_without_labels_has_no_compound_nodes_but_blank_ones() -> None:
    from readi_graph.core.base import Term

    kg = KnowledgeGraph.from_file(SHAPES / "iris_only.ttl")
    q = kg.resolve("http://www.wikidata.org/entity/Q100").nodes[0]
    assert not kg.is_compound(q, None) and kg.display(q, None) == "Q100"
    p19 = "http://www.wikidata.org/prop/direct/P19"
    (edge,) = kg.expand([Term.iri("http://www.wikidata.org/entity/Q200")], [p19], []).edges
    assert kg.is_compound(edge.target, kg.labels([edge.target])[edge.target])  # still blank


def test_presets_by_name_and_an_unknown_one() -> None:
    from readi_graph.environments.kg.knowledge_graph import KGSettings

    assert KGSettings.preset("default") == KGSettings()
    for name in ("metaqa", "freebase", "wikidata", "dbpedia"):
        assert KGSettings.preset(name) != KGSettings()
    assert KGSettings.preset("freebase", frontier_cap=7).frontier_cap == 7
    with pytest.raises(ValueError, match="wikidata"):
        KGSettings.preset("wikipedia")


@pytest.mark.virtuoso
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_shape_answers_the_same_on_virtuoso(virtuoso: Virtuoso, name: str) -> None:
    case = CASES[name]
    graph = load_shape(virtuoso, case.file)
    remote = KnowledgeGraph.from_endpoint(virtuoso.endpoint, case.preset, default_graph=graph)
    local = KnowledgeGraph.from_file(SHAPES / case.file, settings=case.preset)
    remote_out, _ = ask(remote, case)
    local_out, _ = ask(local, case)
    check(remote_out, case)
    assert remote_out["answers"] == local_out["answers"]
    assert remote_out["evidence"] == local_out["evidence"]


_LOADED: set[str] = set()


def load_shape(virtuoso: Virtuoso, file: str) -> str:
    """The fixture in its own named graph of the test Virtuoso (loaded once per session)."""
    import rdflib

    graph = f"urn:readi:test:shape:{file}"
    if graph not in _LOADED:
        data = rdflib.Graph().parse(SHAPES / file).serialize(format="nt")
        virtuoso.load_ntriples(data.encode(), graph, name=f"shape_{file}.nt")
        _LOADED.add(graph)
    return graph
