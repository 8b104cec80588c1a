"""Topic entities: ids start from exactly their node; names resolve ranked and
deterministically, the same embedded and on an endpoint; homonyms are told apart."""

from __future__ import annotations

import pytest
from test_kg_shapes import load_shape

from readi_graph.core.base import Term
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.topics import ambiguity_notes

from conftest import FIXTURES
from servers import Virtuoso

FB = "http://rdf.freebase.com/ns/"
WD = "http://www.wikidata.org/entity/"


@pytest.fixture(scope="module")
def freebase() -> KnowledgeGraph:
    return KnowledgeGraph.from_file(FIXTURES / "shapes" / "freebase.ttl", settings="freebase")


@pytest.fixture(scope="module")
def wikidata() -> KnowledgeGraph:
    return KnowledgeGraph.from_file(FIXTURES / "shapes" / "wikidata.ttl", settings="wikidata")


def test_short_ids_prefixed_names_and_iris_name_exactly_one_node(
    freebase: KnowledgeGraph, wikidata: KnowledgeGraph
) -> None:
    assert freebase.resolve("m.paris_a").nodes == (Term.iri(FB + "m.paris_a"),)
    assert freebase.resolve("ns:m.paris_a").nodes == (Term.iri(FB + "m.paris_a"),)
    for written in ("Q200", "wd:Q200", WD + "Q200", f"<{WD}Q200>"):
        resolution = wikidata.resolve(written)
        assert resolution.nodes == (Term.iri(WD + "Q200"),) and resolution.match == "iri"
    assert not wikidata.resolve("Q999").found  # an id that is not in the KG
    assert not wikidata.resolve("xx:Q200").found  # an unknown prefix is a name, not an id


def ranked(kg: KnowledgeGraph) -> dict[str, tuple[tuple[Term, ...], str]]:
    names = ("Paris", "Obama", "Barack Hussein Obama II", "barack obama", "BARACK OBAMA")
    return {n: (kg.resolve(n).nodes, kg.resolve(n).match) for n in names}


def test_names_resolve_ranked_label_then_alias_then_normalized(freebase: KnowledgeGraph) -> None:
    found = ranked(freebase)
    paris = found["Paris"][0]
    # both homonyms, the better connected first (not in IRI order)
    assert set(paris) == {Term.iri(FB + "m.paris_fr"), Term.iri(FB + "m.paris_a")}
    assert paris[0] == Term.iri(FB + "m.paris_fr")
    # a label beats an alias: "Obama" is the Japanese city's label and Barack Obama's alias
    assert found["Obama"] == ((Term.iri(FB + "m.obama_jp"),), "exact")
    assert found["Barack Hussein Obama II"] == ((Term.iri(FB + "m.obama"),), "alias")
    assert found["barack obama"] == ((Term.iri(FB + "m.obama"),), "normalized")
    assert found["BARACK OBAMA"] == found["barack obama"]
    assert freebase.resolve("amelie").nodes == (Term.iri(FB + "m.amelie"),)  # accents


def test_homonyms_are_told_apart_by_a_distinguishing_fact(freebase: KnowledgeGraph) -> None:
    notes = ambiguity_notes(freebase, freebase.resolve("Paris"))
    assert len(notes) == 1
    assert "capital of France" in notes[0] and "Lamar County, Texas" in notes[0]
    assert "m.paris_fr" in notes[0] and "m.paris_a" in notes[0]
    assert ambiguity_notes(freebase, freebase.resolve("Barack Obama")) == []


def test_homonyms_without_descriptions_are_told_apart_by_a_neighbour(tmp_path: object) -> None:
    from pathlib import Path

    kb = Path(str(tmp_path)) / "kb.ttl"
    kb.write_text(
        "@prefix ex: <http://example.org/> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        'ex:a rdfs:label "Springfield" ; ex:state ex:il . ex:il rdfs:label "Illinois" .\n'
        'ex:b rdfs:label "Springfield" ; ex:state ex:ma . ex:ma rdfs:label "Massachusetts" .\n'
    )
    kg = KnowledgeGraph.from_file(kb)
    (note,) = ambiguity_notes(kg, kg.resolve("Springfield"))
    assert "Illinois" in note and "Massachusetts" in note


@pytest.mark.virtuoso
def test_resolution_is_the_same_on_an_endpoint(
    virtuoso: Virtuoso, freebase: KnowledgeGraph
) -> None:
    graph = load_shape(virtuoso, "freebase.ttl")
    remote = KnowledgeGraph.from_endpoint(virtuoso.endpoint, "freebase", default_graph=graph)
    assert ranked(remote) == ranked(freebase)
    assert remote.resolve("m.paris_a").nodes == freebase.resolve("m.paris_a").nodes
    assert ambiguity_notes(remote, remote.resolve("Paris")) == ambiguity_notes(
        freebase, freebase.resolve("Paris")
    )


def test_an_unknown_topic_entity_spends_no_edit() -> None:
    """An edit can change paths, not the topic entities: nothing to edit, no call spent."""
    from readi_graph.demo import demo_kg
    from readi_graph.graph import build_graph

    from fakes import path, scripted

    wrong = path({"Nobody Atall": ["Nobody Atall -> directed -> language"]})
    llm = scripted(*[wrong] * 6)
    out = build_graph(demo_kg(), llm).invoke(
        {
            "question": "which languages are the films of Nobody Atall in",
            "topic_entities": ["Nobody Atall"],
        },
        {"recursion_limit": 60},
    )
    # resolved before the plan (issue 30): no plan, no edit, no answer call
    assert out["edits"] == 0 and out["usage"]["llm_calls"] == 0 and out["answers"] == []


def test_an_unknown_topic_entity_beside_a_known_one_still_lets_the_other_be_edited() -> None:
    from readi_graph.demo import demo_kg
    from readi_graph.graph import build_graph

    from fakes import path, scripted

    topics = ["Nobody Atall", "Joel Zwick"]
    llm = scripted(
        path(
            {"Nobody Atall": ["directed"], "Joel Zwick": ["Joel Zwick -> directed -> nationality"]}
        ),
        path(
            {"Nobody Atall": ["directed"], "Joel Zwick": ["Joel Zwick -> directed -> in_language"]}
        ),
        "{Greek}",
    )
    out = build_graph(demo_kg(), llm).invoke(
        {
            "question": "which languages are the films of Joel Zwick and Nobody Atall in",
            "topic_entities": topics,
        },
        {"recursion_limit": 60},
    )
    assert out["edits"] == 1 and out["answers"] == ["Greek"]


def test_a_name_with_its_id_starts_from_that_id(freebase: KnowledgeGraph) -> None:
    """`Name [id]` (how `readi eval webqsp|cwq` passes gold mids): the model reads the name,
    the walk starts from the id; an id that is not in the KG leaves the name."""
    assert freebase.resolve("Paris [m.paris_a]").nodes == (Term.iri(FB + "m.paris_a"),)
    assert freebase.resolve("Paris [ns:m.paris_a]").match == "iri"
    fallback = freebase.resolve("Paris [m.atlantis]")
    assert set(fallback.nodes) == set(freebase.resolve("Paris").nodes)
