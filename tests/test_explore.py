"""The KG's one exploration interface (`Explorer`): relations around nodes with their counts in
both directions, bounded reads, names, compound facts and similarity, each a counted query."""

from __future__ import annotations

from pathlib import Path

import pytest

from readi_graph.bench.synthetic import EX, hub_ntriples
from readi_graph.core.base import Term
from readi_graph.environments.kg.explore import COMPOUND, Explorer, Reach
from readi_graph.environments.kg.knowledge_graph import KGSettings, KnowledgeGraph, count_queries
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS

NS = FREEBASE_NS


def fb(name: str) -> Term:
    return Term.iri(NS + name)


def test_relations_both_ways_with_counts_hidden_ones_left_out(
    freebase_mini: KnowledgeGraph,
) -> None:
    explorer = Explorer(freebase_mini)
    with count_queries() as queries:
        found = explorer.relations([fb("m.france"), fb("m.germany")])
    assert queries.n == 1  # one pass for all the nodes
    assert found[fb("m.france")] == [
        (NS + "location.country.capital", True, 1),
        (NS + "location.location.adjoin_s", True, 2),
    ]  # the name and common.topic.notable_for are not relations to explore
    assert (NS + "location.adjoining_relationship.adjoins", False, 1) in found[fb("m.germany")]
    assert (NS + "location.location.containedby", False, 1) in found[fb("m.germany")]


def test_unqueryable_relations_are_neither_listed_nor_read() -> None:
    import rdflib

    graph = rdflib.Graph()
    a, b = rdflib.URIRef("http://x/a"), rdflib.URIRef("http://x/b")
    graph.add((a, rdflib.URIRef("http://x/bad iri"), b))
    graph.add((a, rdflib.URIRef("http://x/good"), b))
    explorer = Explorer(KnowledgeGraph.from_rdflib(graph, backend="rdflib"))
    assert explorer.relations([Term.iri("http://x/a")]) == {
        Term.iri("http://x/a"): [("http://x/good", True, 1)]
    }
    with count_queries() as queries:
        nothing = explorer.reach([Reach((Term.iri("http://x/a"),), "http://x/bad iri", True)])
    assert nothing.edges == [] and queries.n == 0  # never sent


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeGraph:
    file: Path = tmp_path_factory.mktemp("hub") / "hub.nt"
    file.write_text(hub_ntriples(500), encoding="utf-8")
    return KnowledgeGraph.from_file(
        file, KGSettings(label_predicates=(EX + "label",), row_limit=50)
    )


def test_reads_are_capped_inside_the_query_and_truncation_is_reported(hub: KnowledgeGraph) -> None:
    explorer = Explorer(hub)
    node = Term.iri(EX + "hub")
    both = explorer.reach(
        [Reach((node,), EX + "links", True, 7), Reach((node,), EX + "born_in", True, 7)]
    )
    assert len([e for e in both.edges if e.relation == EX + "links"]) == 7
    assert [e.target for e in both.edges if e.relation == EX + "born_in"] == [Term.iri(EX + "town")]
    assert not both.truncated
    whole = explorer.reach([Reach((node,), EX + "links", True)])  # no cap of its own
    assert len(whole.edges) == 50 and whole.truncated  # the KG's row limit, said
    assert explorer.relations([node])[node] == [
        (EX + "born_in", True, 1),
        (EX + "links", True, 500),
    ]


def test_names_and_compound_facts(freebase_mini: KnowledgeGraph) -> None:
    explorer = Explorer(freebase_mini)
    date = Term.literal("1992-10-03", "http://www.w3.org/2001/XMLSchema#date")
    names = explorer.names([fb("m.obama"), fb("m.cvt_marriage"), date])
    assert names == {fb("m.obama"): "Barack Obama", fb("m.cvt_marriage"): COMPOUND,
                     date: "1992-10-03"}  # fmt: skip
    with count_queries() as queries:
        facts = explorer.compound_facts([fb("m.obama"), fb("m.cvt_marriage")])
    assert {(f.subject, f.predicate.removeprefix(NS), f.object) for f in facts} == {
        (fb("m.cvt_marriage"), "people.marriage.spouse", fb("m.michelle")),
        (fb("m.cvt_marriage"), "people.marriage.spouse", fb("m.obama")),
        (fb("m.cvt_marriage"), "people.marriage.from", date),
        (fb("m.obama"), "people.person.spouse_s", fb("m.cvt_marriage")),  # both directions
    }  # Obama is no compound node: only the marriage's facts
    assert queries.n <= 4
    shown = [f for f in facts if f.subject == fb("m.obama")]
    assert not set(shown) & set(explorer.compound_facts([fb("m.cvt_marriage")], exclude=shown))
    assert len(explorer.compound_facts([fb("m.cvt_marriage")], per_node=2)) == 2
    assert explorer.resolve("Barack Obama").nodes == (fb("m.obama"),)


@pytest.mark.parametrize("dense", [None, False])
def test_similarity_ranks_relations_and_names(
    freebase_mini: KnowledgeGraph, dense: bool | None
) -> None:
    similarity = Explorer(freebase_mini).similarity("the capital city of the country", dense=dense)
    capital, spouse = (similarity.relation(NS + r) for r in
                       ("location.country.capital", "people.person.spouse_s"))  # fmt: skip
    assert capital > spouse
    scores = similarity.names(["Capital city", COMPOUND, ""])
    assert scores[0] > 0 and scores[1:] == [0.0, 0.0]
    if dense is False:
        assert not similarity.dense and similarity.overlap("capital city") == 1.0
