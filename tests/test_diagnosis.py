"""Diagnosis: the paper's reasons, with half-way instances and ranked candidate relations."""

from __future__ import annotations

import pytest

from readi_graph.core.diagnosis import unparseable
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.diagnosis import diagnose
from readi_graph.environments.kg.reasoning.instantiation import connect
from readi_graph.environments.kg.relations.paths import Candidate, KGPath
from readi_graph.environments.kg.store.local import METAQA_RELATION
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS


def fb(name: str) -> tuple[Candidate, ...]:
    return (Candidate(FREEBASE_NS + name),)


def mq(name: str, direction: str = "both") -> tuple[Candidate, ...]:
    return (Candidate(METAQA_RELATION + name, direction),)  # type: ignore[arg-type]


def test_success_needs_no_edit(freebase_mini: KnowledgeGraph) -> None:
    path = KGPath("Barack Obama", ("children",))
    instance = connect(freebase_mini, path, [fb("people.person.children")])
    assert diagnose(freebase_mini, "who are obama's children", [instance]).ok


def test_compound_ending_offers_the_way_out(freebase_mini: KnowledgeGraph) -> None:
    """Paper Figure 3: France -> adjoin ends in compound nodes; offer what leaves them."""
    instance = connect(
        freebase_mini, KGPath("France", ("border",)), [fb("location.location.adjoin_s")]
    )
    d = diagnose(freebase_mini, "which countries border france", [instance])
    assert [r.kind for r in d.reasons] == ["compound_end"]
    assert d.halfway == ["France -> location.location.adjoin_s -> <compound>"]
    offered = {(c.name, c.forward) for c in d.candidates}
    # the steerable feedback offers what leads on; `<- adjoin_s` only goes back to France
    assert offered == {("location.adjoining_relationship.adjoins", True)}
    assert "add one more relation from Candidate Relations" in d.reasons[0].message
    assert d.earlier[0][:2] == (1, "France")  # the step that reached them, to back up over
    paper = diagnose(freebase_mini, "which countries border france", [instance], feedback="paper")
    offered = {(c.name, c.forward) for c in paper.candidates}
    assert ("location.adjoining_relationship.adjoins", True) in offered
    assert ("location.location.adjoin_s", False) in offered
    assert paper.earlier == [] and paper.notes == []


def test_irrelevant_relation_reports_position_and_neighbours(metaqa_kg: KnowledgeGraph) -> None:
    path = KGPath("Joel Zwick", ("directed", "nationality"))
    instance = connect(metaqa_kg, path, [mq("directed_by", "backward"), ()])
    d = diagnose(metaqa_kg, "in which language are the films of Joel Zwick", [instance])
    (reason,) = d.reasons
    assert reason.kind == "irrelevant_relation" and reason.position == 1
    assert reason.relation == "nationality" and '"nationality"' in reason.message
    assert d.halfway == ["Joel Zwick -> directed_by -> My Big Fat Greek Wedding"]
    names = [c.name for c in d.candidates]
    assert "in_language" in names
    # Ranked by similarity to the question: the language relation comes first.
    assert names[0] == "in_language"


def test_a_wrong_earlier_step_is_offered_its_alternatives(metaqa_kg: KnowledgeGraph) -> None:
    """The walk went the wrong way at step 1 (actors, not the director) and got stuck at step
    2: the relations around the stuck actors cannot repair it, those at step 1 can."""
    path = KGPath("The Slugger's Wife", ("starred_actors", "directed_by"))
    instance = connect(
        metaqa_kg, path, [mq("starred_actors", "forward"), mq("directed_by", "backward")]
    )
    d = diagnose(
        metaqa_kg, "the director of [The Slugger's Wife] directed which movies", [instance]
    )
    assert d.reasons[0].position == 1
    assert ("directed_by", True) not in {(c.name, c.forward) for c in d.candidates}
    (step, where, found) = d.earlier[0]
    assert (step, where) == (1, "The Slugger's Wife") and len(d.earlier) == 1
    assert ("directed_by", True) in {(c.name, c.forward) for c in found}
    from readi_graph.core.diagnosis import earlier_text

    assert earlier_text(d).startswith("step 1 (from The Slugger's Wife): ")


def test_unknown_entity_and_empty_path(metaqa_kg: KnowledgeGraph) -> None:
    unknown = connect(
        metaqa_kg, KGPath("Zzyzx Road Movie 9", ("directed by",)), [mq("directed_by")]
    )
    empty = connect(metaqa_kg, KGPath("Tom Hanks", ()), [])
    d = diagnose(metaqa_kg, "who directed it", [unknown, empty])
    assert [r.kind for r in d.reasons] == ["unknown_entity", "empty_path"]
    assert "Zzyzx Road Movie 9" in d.reasons[0].message
    assert {c.name for c in d.candidates} >= {"starred_actors", "directed_by"}


def test_caps_and_determinism(metaqa_kg: KnowledgeGraph) -> None:
    path = KGPath("Drama", ("genre of", "nationality"))
    instance = connect(metaqa_kg, path, [mq("has_genre", "backward"), ()])
    first = diagnose(metaqa_kg, "q", [instance], halfway_cap=15, candidate_cap=3)
    second = diagnose(metaqa_kg, "q", [instance], halfway_cap=15, candidate_cap=3)
    assert len(first.halfway) == 15 and len(first.candidates) == 3
    assert first == second


def test_unparseable_output_is_a_diagnosis() -> None:
    from readi_graph.core.parsing import OutputParseError
    from readi_graph.environments.kg.reasoning.parsing import parse_kg_paths

    with pytest.raises(OutputParseError) as error:
        parse_kg_paths("I think the answer is Paris!!", ["Paris"])
    d = unparseable(str(error.value))
    assert not d.ok and d.reasons[0].kind == "unparseable_path"
    assert (
        "could not be read" in d.reasons[0].message and "I think the answer" in d.reasons[0].message
    )
    assert 'Path: {"Topic Entity"' in d.reasons[0].message  # the expected format


def test_halfway_instances_of_a_node_reached_at_two_steps() -> None:
    """Real KGs have cycles: X is reached at step 1 (T -p-> X) and at step 2 (Y -q-> X).
    Walking back from X must use step 2's pointer, not step 1's (a KeyError on CWQ data)."""
    from readi_graph.bench.replay import fragment_ntriples
    from readi_graph.environments.kg.reasoning.diagnosis import halfway_instances
    from readi_graph.environments.kg.store.local import load_ntriples

    triples = [("T", "a.b.p", "X"), ("T", "a.b.p", "Y"), ("Y", "a.b.q", "X")]
    kg = KnowledgeGraph(load_ntriples(fragment_ntriples(triples)))
    path = KGPath("T", ("p", "q", "missing"))
    instance = connect(kg, path, [fb("a.b.p"), fb("a.b.q"), fb("a.b.missing")])
    assert instance.failed_at == 2
    lines = halfway_instances(kg, instance, 15)
    assert lines == ["T -> a.b.p -> X -> a.b.q -> Y", "T -> a.b.p -> Y -> a.b.q -> X"]
    assert diagnose(kg, "?", [instance]).halfway == lines


def test_a_diagnosis_survives_state_and_reads_as_the_edit_prompt_says() -> None:
    """State keeps a diagnosis as JSON (checkpointers, Studio); the edit prompt reads it."""
    import json

    from readi_graph.core.diagnosis import (
        CandidateRelation,
        Diagnosis,
        Reason,
        diagnosis_from,
        diagnosis_record,
        diagnosis_text,
        earlier_text,
    )

    d = Diagnosis(
        [
            Reason("unknown_entity", 'topic entity "X" is not in the knowledge graph', topic="X"),
            Reason("irrelevant_relation", "r2 fails", topic="T", position=1, relation="r2"),
        ],
        ["T -> r1 -> A"],
        [CandidateRelation("urn:x:in_language", True), CandidateRelation("urn:x:r3", False, "r 3")],
        [(1, "T", [CandidateRelation("urn:x:r1", False)]), (2, "A and 2 more", [])],
    )
    assert diagnosis_from(json.loads(json.dumps(diagnosis_record(d)))) == d
    assert diagnosis_text(d) == (
        '1. topic entity "X" is not in the knowledge graph\n2. r2 fails',
        "T -> r1 -> A",
        "in_language, <- r 3",  # the KG's label when it has one; backward marked
    )
    assert earlier_text(d) == "step 1 (from T): <- r1; step 2 (from A and 2 more): "
    empty = Diagnosis()
    assert empty.ok and not d.ok
    assert diagnosis_text(empty) == (
        "",
        "(none: the path did not get past its topic entity)",
        "(none)",
    )
    assert earlier_text(empty) == "(none)"
    assert diagnosis_from({"reasons": [], "halfway": [], "candidates": []}) == empty


def test_each_earlier_step_says_where_it_started() -> None:
    from readi_graph.bench.replay import fragment_ntriples
    from readi_graph.environments.kg.store.local import load_ntriples

    triples = [("A", "x.y.r", f"n{i}") for i in range(4)]
    triples += [("n2", "x.y.s", "B"), ("n3", "x.y.s", "B")]
    kg = KnowledgeGraph(load_ntriples(fragment_ntriples(triples)))
    stuck_first = connect(kg, KGPath("A", ("missing",)), [fb("x.y.missing")])
    assert stuck_first.failed_at == 0 and diagnose(kg, "?", [stuck_first]).earlier == []
    path = KGPath("A", ("r", "s", "missing"))
    instance = connect(kg, path, [fb("x.y.r"), fb("x.y.s"), fb("x.y.missing")])
    d = diagnose(kg, "?", [instance])
    assert [(step, where) for step, where, _ in d.earlier] == [(1, "A"), (2, "n2 and 1 more")]
    assert [[(c.name, c.forward) for c in found] for _, _, found in d.earlier] == [
        [("x.y.r", True)],
        [("x.y.r", False), ("x.y.s", True)],
    ]
    assert d.halfway == ["A -> x.y.r -> n2 -> x.y.s -> B"]
    assert (d.reasons[0].position, d.reasons[0].relation) == (2, "missing")
