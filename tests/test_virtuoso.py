"""The same instantiation against a real Virtuoso over HTTP (the store the paper used)."""

from __future__ import annotations

import itertools
from pathlib import Path

import httpx
import pytest

from readi_graph.datasets.metaqa import gold_path, load_questions
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph, count_queries
from readi_graph.environments.kg.reasoning.diagnosis import diagnose
from readi_graph.environments.kg.reasoning.instantiation import connect
from readi_graph.environments.kg.relations.paths import KGPath

from servers import Virtuoso

pytestmark = pytest.mark.virtuoso


def triple_count(server: Virtuoso) -> int:
    r = httpx.post(
        server.endpoint,
        data={"query": "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"},
        headers={"Accept": "application/sparql-results+json"},
    )
    return int(r.json()["results"]["bindings"][0]["n"]["value"])


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_endpoint_and_embedded_store_agree(
    virtuoso_kg: KnowledgeGraph, metaqa_kg: KnowledgeGraph, metaqa_dir: Path, hops: int
) -> None:
    for question in itertools.islice(load_questions(metaqa_dir, hops, "dev"), 0, 3000, 150):
        path, bindings = gold_path(question)
        cold = virtuoso_kg.cold()  # no resolution cached by an earlier question
        with count_queries() as queries:
            remote = connect(cold, path, bindings)
        local = connect(metaqa_kg, path, bindings)
        assert remote.complete and queries.n == 1 + hops  # resolve + one query per hop
        assert remote.frontier == local.frontier
        assert set(question.answers) <= {
            v for v in virtuoso_kg.labels(remote.frontier).values()
        } | {"Paris", "Texas"}


def test_relations_and_diagnosis_over_http(virtuoso_kg: KnowledgeGraph) -> None:
    assert len(virtuoso_kg.relations()) == 9
    instance = connect(virtuoso_kg, KGPath("Joel Zwick", ("directed", "language")), [(), ()])
    d = diagnose(virtuoso_kg, "which language are the films of Joel Zwick in", [instance])
    assert d.reasons[0].kind == "irrelevant_relation"
    assert "directed_by" in {c.name for c in d.candidates}


def test_hostile_names_reach_virtuoso_only_as_literals(
    virtuoso: Virtuoso, virtuoso_kg: KnowledgeGraph
) -> None:
    before = triple_count(virtuoso)
    hostile = [
        'x" } INSERT DATA { GRAPH <urn:evil> { <urn:a> <urn:b> <urn:c> } } #',
        'x" } ; DELETE WHERE { ?s ?p ?o } ; SELECT * { "',
        'x" . SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } } #',
        "<urn:x> } CLEAR ALL #",
        "nul\x00byte and \\ backslash",
    ]
    for name in hostile:
        assert not virtuoso_kg.resolve(name).found
    assert triple_count(virtuoso) == before


def test_literal_frontiers_work_remotely(virtuoso_kg: KnowledgeGraph) -> None:
    from readi_graph.environments.kg.store.local import METAQA_RELATION

    gump = virtuoso_kg.resolve("Forrest Gump").nodes
    (year,) = {
        e.target for e in virtuoso_kg.expand(gump, [METAQA_RELATION + "release_year"], []).edges
    }
    back = virtuoso_kg.expand([year], [], [METAQA_RELATION + "release_year"])
    assert gump[0] in {e.target for e in back.edges}


def test_entity_linking_over_http_agrees_with_the_embedded_store(
    virtuoso_kg: KnowledgeGraph, metaqa_kg: KnowledgeGraph, metaqa_dir: Path
) -> None:
    """Topic entities found in MetaQA questions (brackets removed) with the bounded look-ups
    an endpoint gets are those the embedded store's label scan finds."""
    from readi_graph.bench.entity_linking import bare
    from readi_graph.environments.kg.entities.names import NAMES_CHUNK, NAMES_LIMIT

    for hops in (1, 2, 3):
        for question in itertools.islice(load_questions(metaqa_dir, hops, "dev"), 0, 3000, 300):
            text = bare(question.question)
            with count_queries() as queries:
                remote = virtuoso_kg.link_topic_entities(text)
            assert remote.entities == metaqa_kg.link_topic_entities(text).entities
            assert remote.entities == [question.topic]
            look_ups = -(-NAMES_LIMIT // NAMES_CHUNK)
            assert queries.n <= look_ups + 4 * len(remote.mentions)  # + resolving each one


def test_a_read_of_several_branches_names_each_edge_by_its_branch(
    virtuoso_kg: KnowledgeGraph, metaqa_kg: KnowledgeGraph
) -> None:
    """The store sends back only the nodes (and which branch a row came from): the relation
    and direction of every edge must still be the ones of the triple behind it, on both
    stores, whether the rows name their source node (several nodes) or not (one)."""
    from readi_graph.environments.kg.store.edges import Edge
    from readi_graph.environments.kg.store.local import METAQA_RELATION as R

    forward, backward = [R + "directed_by", R + "release_year"], [R + "directed_by"]
    seen: set[Edge] = set()
    for kg in (metaqa_kg, virtuoso_kg):
        (gump,) = kg.resolve("Forrest Gump").nodes
        (zemeckis,) = kg.resolve("Robert Zemeckis").nodes
        for frontier in ([gump], [gump, zemeckis], [zemeckis]):
            want = set()
            for n, p in itertools.product(frontier, forward):
                rows = kg.backend.select(f"SELECT ?y WHERE {{ <{n.value}> <{p}> ?y }}")
                want |= {Edge(n, p, r["y"], True) for r in rows}
            for n, p in itertools.product(frontier, backward):
                rows = kg.backend.select(f"SELECT ?y WHERE {{ ?y <{p}> <{n.value}> }}")
                want |= {Edge(n, p, r["y"], False) for r in rows}
            assert set(kg.expand(frontier, forward, backward).edges) == want
            seen |= want
    # Both directions and both forward relations were among the edges checked.
    assert {(e.relation, e.forward) for e in seen} == {
        *((p, True) for p in forward),
        *((p, False) for p in backward),
    }
