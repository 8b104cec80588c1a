"""Query text is built only from validated IRIs and escaped literals."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from readi_graph.core.base import Term, UnsafeQueryInput
from readi_graph.environments.kg.store import sparql
from readi_graph.environments.kg.store.local import OxigraphBackend
from readi_graph.environments.kg.store.vocabulary import RDFS_LABEL

HOSTILE_NAMES = [
    'x" } ; DROP GRAPH <urn:g> ; SELECT * { "',
    'a"@en . } INSERT DATA { <urn:a> <urn:b> <urn:c> } #',
    "line\nbreak\r\tand\x00nul",
    "SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o }",
    'back\\slash\\" quote',
    "# comment } ",
    "\\u0022 escaped quote",
    "'; DROP TABLE x; --",
    "emoji 🎬 and accents ÉÀ",
]


@pytest.mark.parametrize(
    "iri",
    [
        "urn:x> } INSERT DATA { <urn:a> <urn:b> <urn:c> } <urn:y",
        "http://a/b c",
        'http://a/"x',
        "http://a/{x}",
        "http://a/\\u003E",
        "relative/iri",
        "",
        "http://a/\x00",
    ],
)
def test_unsafe_iris_are_refused(iri: str) -> None:
    with pytest.raises(UnsafeQueryInput):
        sparql.iri_ref(iri)


def test_safe_iris_pass_unchanged() -> None:
    assert (
        sparql.iri_ref("http://rdf.freebase.com/ns/m.0d3k14")
        == "<http://rdf.freebase.com/ns/m.0d3k14>"
    )
    assert sparql.iri_ref("urn:readi:metaqa:entity:Tom%20Hanks").startswith("<urn:")


def test_names_are_not_mistaken_for_iris() -> None:
    assert sparql.as_iri("Re:Zero") is None
    assert sparql.as_iri("Star Wars: Episode IV") is None
    assert sparql.as_iri("<urn:x:y>") == "urn:x:y"
    assert sparql.as_iri("http://example.org/a") == "http://example.org/a"


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_literal_round_trips_as_a_value(name: str) -> None:
    """A store holding the hostile string as a label finds it exactly, and nothing else."""
    store = ox.Store()
    node = ox.NamedNode("urn:node")
    store.add(ox.Quad(node, ox.NamedNode(RDFS_LABEL), ox.Literal(name)))
    store.add(ox.Quad(ox.NamedNode("urn:other"), ox.NamedNode(RDFS_LABEL), ox.Literal("x")))
    backend = OxigraphBackend(store)
    rows = backend.select(sparql.lookup_query([name], [RDFS_LABEL], ["en"], 10))
    assert [r["x"] for r in rows] == [Term.iri("urn:node")]
    assert len(store) == 2  # nothing was inserted or dropped


def test_blank_nodes_cannot_be_named() -> None:
    with pytest.raises(UnsafeQueryInput):
        sparql.sparql_term(Term("bnode", "b0"))


def test_language_tags_are_validated() -> None:
    with pytest.raises(UnsafeQueryInput):
        sparql.literal("x", lang="en } DROP")


def test_chunked_splits_long_lists() -> None:
    assert [list(c) for c in sparql.chunked(list(range(5)), 2)] == [[0, 1], [2, 3], [4]]


def test_expand_query_parses_and_needs_a_relation() -> None:
    q = sparql.expand_query([Term.iri("urn:a"), Term.literal("1999")], ["urn:p"], ["urn:q"], 10)
    ox.Store().query(q)  # parses
    with pytest.raises(ValueError):
        sparql.expand_query([Term.iri("urn:a")], [], [], 10)
