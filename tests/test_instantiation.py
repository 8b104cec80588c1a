"""Connecting paths on the real MetaQA KB and a Freebase-style KG: faithful and O(1) per hop."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from readi_graph.core.base import Term
from readi_graph.datasets.metaqa import gold_path, gold_plan, load_questions
from readi_graph.environments.kg.knowledge_graph import KGSettings, KnowledgeGraph, count_queries
from readi_graph.environments.kg.reasoning.instantiation import Merged, bind, connect, merge
from readi_graph.environments.kg.relations.paths import Candidate, KGPath
from readi_graph.environments.kg.store.local import METAQA_RELATION, load_metaqa
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS


def rel(name: str, direction: str = "both") -> tuple[Candidate, ...]:
    return (Candidate(METAQA_RELATION + name, direction),)  # type: ignore[arg-type]


def names(kg: KnowledgeGraph, terms: tuple[Term, ...]) -> set[str]:
    return {v or "" for v in kg.labels(terms).values()}


def test_gold_plan_from_question_type() -> None:
    plan = gold_plan("actor_to_movie_to_director")
    assert [(c.relation.removeprefix(METAQA_RELATION), c.direction) for c in plan] == [
        ("starred_actors", "backward"),
        ("directed_by", "forward"),
    ]
    with pytest.raises(ValueError):
        gold_plan("movie_to_planet")


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_gold_paths_reach_the_gold_answers_with_one_query_per_hop(
    metaqa_kg: KnowledgeGraph, metaqa_dir: Path, hops: int
) -> None:
    for question in itertools.islice(load_questions(metaqa_dir, hops, "dev"), 0, 2000, 50):
        path, bindings = gold_path(question)
        start = metaqa_kg.resolve(question.topic)
        with count_queries() as queries:
            instance = connect(metaqa_kg, path, bindings, start)
        assert instance.complete
        assert queries.n == hops  # one query per hop, whatever the frontier size
        found = names(metaqa_kg, instance.frontier)
        assert set(question.answers) <= found | {"Paris", "Texas"}  # MetaQA splits "Paris, Texas"


def test_paths_may_end_in_literals_and_start_from_them(metaqa_kg: KnowledgeGraph) -> None:
    gump = connect(metaqa_kg, KGPath("Forrest Gump", ("release year",)), [rel("release_year")])
    assert gump.frontier == (Term.literal("1994", "http://www.w3.org/2001/XMLSchema#gYear"),)
    back = metaqa_kg.expand(gump.frontier, [], [METAQA_RELATION + "release_year"])
    assert Term.iri("urn:readi:metaqa:entity:Forrest%20Gump") in {e.target for e in back.edges}


def test_candidates_are_tried_in_both_directions_and_matches_kept(
    metaqa_kg: KnowledgeGraph,
) -> None:
    path = KGPath("Tom Hanks", ("acted in", "directed by"))
    bindings = [rel("starred_actors") + rel("has_genre"), rel("directed_by")]
    instance = connect(metaqa_kg, path, bindings)
    assert instance.complete
    assert instance.hops[0].matched == [(METAQA_RELATION + "starred_actors", False)]
    assert "Robert Zemeckis" in names(metaqa_kg, instance.frontier)


def test_stuck_path_reports_the_position(metaqa_kg: KnowledgeGraph) -> None:
    path = KGPath("Tom Hanks", ("acted in", "release year", "directed by"))
    instance = connect(
        metaqa_kg, path, [rel("starred_actors"), rel("release_year"), rel("directed_by")]
    )
    assert not instance.complete and instance.failed_at == 2 and instance.depth == 2
    assert all(t.is_literal for t in instance.frontier)  # the half-way instances are kept


def test_unknown_topic_entity_is_a_result_not_an_exception(metaqa_kg: KnowledgeGraph) -> None:
    instance = connect(
        metaqa_kg, KGPath("No Such Film 1234", ("directed by",)), [rel("directed_by")]
    )
    assert not instance.start.found and not instance.complete and instance.hops == []


def test_frontier_cap_is_deterministic_and_reported(metaqa_dir: Path) -> None:
    capped = KnowledgeGraph(load_metaqa(metaqa_dir / "kb.txt"), KGSettings(frontier_cap=5))
    path = KGPath("Drama", ("genre of",))
    first = connect(capped, path, [rel("has_genre", "backward")])
    second = connect(capped, path, [rel("has_genre", "backward")])
    hop = first.hops[0]
    assert hop.capped and hop.reached > 1000 and len(first.frontier) == 5
    assert first.frontier == second.frontier
    assert {e.target for e in hop.edges} == set(first.frontier)


def test_long_frontiers_are_chunked(metaqa_dir: Path) -> None:
    chunked = KnowledgeGraph(load_metaqa(metaqa_dir / "kb.txt"), KGSettings(chunk_size=10))
    path = KGPath("Tom Hanks", ("acted in", "directed by"))
    start = chunked.resolve("Tom Hanks")
    with count_queries() as queries:
        instance = connect(
            chunked, path, [rel("starred_actors", "backward"), rel("directed_by")], start
        )
    movies = instance.hops[0].reached
    assert movies > 10 and queries.n == 1 + -(-movies // 10)


def test_walks_do_not_return_to_the_topic(metaqa_kg: KnowledgeGraph) -> None:
    path = KGPath("Forrest Gump", ("directed by", "directed"))
    instance = connect(
        metaqa_kg, path, [rel("directed_by", "forward"), rel("directed_by", "backward")]
    )
    assert "Forrest Gump" not in names(metaqa_kg, instance.frontier)
    assert "Back to the Future" in names(metaqa_kg, instance.frontier)


def test_merge_intersects_topic_entities(metaqa_kg: KnowledgeGraph) -> None:
    hanks = connect(
        metaqa_kg, KGPath("Tom Hanks", ("acted in",)), [rel("starred_actors", "backward")]
    )
    zemeckis = connect(
        metaqa_kg, KGPath("Robert Zemeckis", ("directed",)), [rel("directed_by", "backward")]
    )
    merged = merge([hanks, zemeckis])
    assert merged.intersected
    assert {"Forrest Gump", "The Polar Express"} <= names(metaqa_kg, merged.answers)
    assert names(metaqa_kg, merged.answers) < names(metaqa_kg, hanks.frontier)
    # Evidence holds only the triples that lead to the merged answers.
    assert {t.subject for t in merged.evidence} <= set(merged.answers)


def test_merge_keeps_the_union_when_constraints_disagree(metaqa_kg: KnowledgeGraph) -> None:
    a = connect(
        metaqa_kg, KGPath("Forrest Gump", ("directed by",)), [rel("directed_by", "forward")]
    )
    b = connect(metaqa_kg, KGPath("Kismet", ("written by",)), [rel("written_by", "forward")])
    merged = merge([a, b])
    assert not merged.intersected and set(merged.answers) == set(a.frontier) | set(b.frontier)
    # nothing to vote: no answer, no evidence, and nothing was intersected
    assert merge([]) == Merged((), [], False)
    stuck = connect(metaqa_kg, KGPath("Kismet", ("zzz",)), [()])
    assert stuck.failed_at == 0 and merge([stuck]) == Merged((), [], False)


def test_compound_nodes_are_walked_through(freebase_mini: KnowledgeGraph) -> None:
    path = KGPath("France", ("borders", "adjoins"))
    bindings = [
        (Candidate(FREEBASE_NS + "location.location.adjoin_s"),),
        (Candidate(FREEBASE_NS + "location.adjoining_relationship.adjoins"),),
    ]
    instance = connect(freebase_mini, path, bindings)
    assert names(freebase_mini, instance.frontier) == {"Germany", "Spain"}
    assert len(instance.triples()) == 4


def test_bind_uses_the_relation_index(freebase_mini: KnowledgeGraph) -> None:
    (spouse, children) = bind(
        freebase_mini, KGPath("Barack Obama", ("spouse", "children")), top_k=3
    )
    assert spouse[0].relation == FREEBASE_NS + "people.person.spouse_s" or any(
        c.relation.endswith("marriage.spouse") for c in spouse
    )
    assert children[0].relation == FREEBASE_NS + "people.person.children"
    assert all(c.direction == "both" for c in spouse + children)


def test_a_self_loop_on_the_topic_is_kept(metaqa_kg: KnowledgeGraph) -> None:
    """MetaQA's film "Malcolm X" is written by the person "Malcolm X": one name, one node."""
    path = KGPath("Malcolm X", ("wrote", "genre"))
    instance = connect(
        metaqa_kg, path, [rel("written_by", "backward"), rel("has_genre", "forward")]
    )
    assert {"Drama", "Biography", "History"} <= names(metaqa_kg, instance.frontier)


def test_typed_and_plain_literals_of_one_value_are_one_answer() -> None:
    """A question whose constraints end in "1979"^^xsd:gYear and "1979" (it raised TypeError
    in merge: `None < str` while sorting the terms)."""
    from readi_graph.environments.kg.store.local import load_ntriples

    ex, year = "http://example.org/", "http://www.w3.org/2001/XMLSchema#gYear"
    kg = KnowledgeGraph(
        load_ntriples(
            f'<{ex}a> <http://www.w3.org/2000/01/rdf-schema#label> "Ann" .\n'
            f'<{ex}b> <http://www.w3.org/2000/01/rdf-schema#label> "Bob" .\n'
            f'<{ex}a> <{ex}born> "1979"^^<{year}> .\n<{ex}a> <{ex}born> "1979" .\n'
            f'<{ex}b> <{ex}born> "1979.0"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n'
            f'<{ex}b> <{ex}born> "1980" .\n'
        )
    )
    ann, bob = KGPath("Ann", ("born",)), KGPath("Bob", ("born",))
    merged = merge([connect(kg, ann, bind(kg, ann)), connect(kg, bob, bind(kg, bob))])
    assert merged.intersected and len(merged.answers) == 1  # 1979 = 1979 = 1979.0, not 1980
    assert merged.answers[0].value.startswith("1979")
    assert {t.subject.value for t in merged.evidence} == {f"{ex}a", f"{ex}b"}  # both reach it
    assert "1980" not in {t.object.value for t in merged.evidence}


EX = "http://example.org/"


def _fan(**settings: int) -> KnowledgeGraph:
    """A -r-> n00 ... n09 (labelled), C -r-> n05."""
    from readi_graph.environments.kg.store.local import load_ntriples

    label = "http://www.w3.org/2000/01/rdf-schema#label"
    lines = [f"<{EX}A> <{EX}r> <{EX}n{i:02d}> ." for i in range(10)] + [
        f"<{EX}C> <{EX}r> <{EX}n05> ."
    ]
    lines += [f'<{EX}{n}> <{label}> "{n}" .' for n in ["A", "C", *(f"n{i:02d}" for i in range(10))]]
    return KnowledgeGraph(load_ntriples("\n".join(lines) + "\n"), KGSettings(**settings))


R = [(Candidate(EX + "r"),)]


def test_the_cap_keeps_first_the_ends_other_constraints_reached() -> None:
    kg = _fan(frontier_cap=3)
    plain = connect(kg, KGPath("A", ("r",)), R)
    assert [t.value for t in plain.frontier] == [EX + "n00", EX + "n01", EX + "n02"]
    assert plain.hops[0].capped and plain.hops[0].reached == 10
    preferred = connect(kg, KGPath("A", ("r",)), R, prefer=[Term.iri(EX + "n08")])
    assert [t.value for t in preferred.frontier] == [EX + "n00", EX + "n01", EX + "n08"]
    assert {e.target for e in preferred.hops[0].edges} == set(preferred.frontier)
    # only the last hop prefers: A -r-> n.. <-r- (A and C) keeps n00..n02 at the first hop
    two = connect(kg, KGPath("A", ("r", "r back")), [R[0], (Candidate(EX + "r", "backward"),)])
    assert two.hops[0].edges == plain.hops[0].edges


def test_a_frontier_of_exactly_the_cap_is_not_capped_or_reordered() -> None:
    kg = _fan(frontier_cap=10)  # A reaches exactly 10 nodes
    walked = connect(kg, KGPath("A", ("r",)), R, prefer=[Term.iri(EX + "n08")])
    assert not walked.hops[0].capped and walked.hops[0].reached == 10
    assert [t.value for t in walked.frontier] == [EX + f"n{i:02d}" for i in range(10)]


def test_truncated_rows_are_searched_again_for_the_preferred_ends() -> None:
    kg = _fan(frontier_cap=3, rows_per_relation=4)
    plain = connect(kg, KGPath("A", ("r",)), R)
    hop = plain.hops[0]
    assert hop.truncated and hop.reached == 4  # the store's first 4 rows only
    unread = next(Term.iri(f"{EX}n{i:02d}") for i in range(10)
                  if Term.iri(f"{EX}n{i:02d}") not in plain.frontier)  # fmt: skip
    preferred = connect(kg, KGPath("A", ("r",)), R, prefer=[unread])
    assert unread in preferred.frontier and preferred.hops[0].reached == 5
    assert len(preferred.frontier) == 3


def test_revisiting_the_topic_is_a_setting() -> None:
    path = KGPath("A", ("r", "r back"))
    back = [R[0], (Candidate(EX + "r", "backward"),)]
    assert {t.value for t in connect(_fan(), path, back).frontier} == {EX + "C"}
    revisit = connect(_fan(revisit_topic=True), path, back)
    assert {t.value for t in revisit.frontier} == {EX + "A", EX + "C"}


def test_an_empty_path_is_not_complete_and_does_not_vote() -> None:
    kg = _fan()
    empty = connect(kg, KGPath("C", ()), [])
    assert empty.start.found and not empty.complete and empty.depth == 0
    walked = connect(kg, KGPath("A", ("r",)), R)
    merged = merge([empty, walked])
    assert merged.intersected and set(merged.answers) == set(walked.frontier)
    assert len(merged.answers) == 10
