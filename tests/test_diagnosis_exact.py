"""A KG diagnosis field by field on small made-up KGs: the reasons' exact words, positions and
order, the half-way walks, the candidate relations (ids, labels, direction, order) and the
default caps the edit prompt is built with. A prompt that changes silently changes edits."""

from __future__ import annotations

from typing import Any

from readi_graph.bench.replay import fragment_ntriples, node_iri
from readi_graph.core.diagnosis import CandidateRelation, Reason
from readi_graph.environments.kg.knowledge_graph import KGSettings, KnowledgeGraph
from readi_graph.environments.kg.reasoning.diagnosis import diagnose
from readi_graph.environments.kg.reasoning.instantiation import Instance, connect
from readi_graph.environments.kg.relations.paths import Candidate, KGPath
from readi_graph.environments.kg.store.local import load_ntriples
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS as NS


def _kg(triples: list[tuple[str, str, str]], extra: str = "", **settings: Any) -> KnowledgeGraph:
    return KnowledgeGraph(load_ntriples(fragment_ntriples(triples) + extra), KGSettings(**settings))


def _walk(kg: KnowledgeGraph, topic: str, *relations: str) -> Instance:
    """`relations` are ids (x.y.r); a missing one is a hop with nothing to bind."""
    words = tuple(r.rsplit(".", 1)[-1] for r in relations)
    return connect(kg, KGPath(topic, words), [(Candidate(NS + r),) for r in relations])


def _four_paths() -> tuple[KnowledgeGraph, list[Instance]]:
    kg = _kg(
        [
            ("A", "x.y.r", "B"),
            ("B", "x.y.s", "C"),
            ("Z", "x.y.r", "m.0cvt"),  # an unnamed node: a compound one
            ("m.0cvt", "x.y.t", "W"),
        ]
    )
    empty = connect(kg, KGPath("A", ()), [])
    unknown = _walk(kg, "Nowhere", "x.y.r")
    failed = _walk(kg, "A", "x.y.r", "x.y.missing")
    compound = _walk(kg, "Z", "x.y.r")
    return kg, [empty, unknown, failed, compound]


def test_reasons_in_the_order_of_the_paths_with_their_exact_words() -> None:
    """The paper's feedback: what failed, the relations around, no earlier step."""
    kg, instances = _four_paths()
    d = diagnose(kg, "q", instances, feedback="paper")
    assert d.reasons == [
        Reason("empty_path", 'the path from "A" has no relation', topic="A"),
        Reason("unknown_entity", 'topic entity "Nowhere" is not in the knowledge graph', "Nowhere"),
        Reason(
            "irrelevant_relation",
            'relation "missing" (step 2 from "A") is not instantiated: none of its candidate '
            "KG relations connects",
            topic="A",
            position=1,
            relation="missing",
        ),
        Reason(
            "compound_end",
            'the path from "Z" ends in compound nodes (<compound>), which are not answers: add '
            "the relation that leads on to a named entity",
            topic="Z",
            position=0,
        ),
    ]
    assert d.halfway == ["A -> x.y.r -> B", "Z -> x.y.r -> <compound>"]
    assert d.earlier == [] and d.notes == [] and d.hopeless == ""
    r = CandidateRelation
    assert d.candidates == [  # around A, B and the compound node, the way back included
        r(NS + "x.y.r", True, "x.y.r"),
        r(NS + "x.y.r", False, "x.y.r"),
        r(NS + "x.y.s", True, "x.y.s"),
        r(NS + "x.y.t", True, "x.y.t"),
    ]


def test_the_steerable_reasons_say_what_to_do_with_their_exact_words() -> None:
    kg, instances = _four_paths()
    d = diagnose(kg, "q", instances)
    assert [r.message for r in d.reasons] == [
        'the path from "A" has no relation: write at least one, from Candidate Relations (the '
        'relations of "A")',
        'topic entity "Nowhere" is not in the knowledge graph',
        'relation "missing" (step 2 from "A") was read as x.y.missing, which does not connect '
        "here; choose one from Candidate Relations (they lead on from where the path stopped), "
        "or change an earlier step with Earlier Relations",
        'the path from "Z" ends in compound nodes (<compound>) after step 1 ("r"), which are '
        "not answers: add one more relation from Candidate Relations, from the compound nodes "
        "to a named entity (either direction)",
    ]
    assert [(r.kind, r.topic, r.position, r.relation) for r in d.reasons] == [
        ("empty_path", "A", None, None),
        ("unknown_entity", "Nowhere", None, None),
        ("irrelevant_relation", "A", 1, "missing"),
        ("compound_end", "Z", 0, None),
    ]
    r = CandidateRelation
    # what leads on from A, from B (not `<- x.y.r`, back to A) and from the compound node
    assert d.candidates == [r(NS + f"x.y.{p}", True, f"x.y.{p}") for p in "rst"]
    walked = [r(NS + "x.y.r", True, "x.y.r")]
    assert d.earlier == [(1, "A", walked), (1, "Z", walked)]  # compound ends back up too
    assert d.notes == [] and d.hopeless == ""


def test_candidates_carry_the_kg_label_and_go_forward_first() -> None:
    # x.y.loop both leaves and enters B; x.y.named has a label of its own
    label = f'<{NS}x.y.named> <{NS}type.object.name> "named relation"@en .\n'
    kg = _kg(
        [
            ("A", "x.y.r", "B"),
            ("B", "x.y.loop", "C"),
            ("D", "x.y.loop", "B"),
            ("B", "x.y.named", "E"),
        ],
        label,
    )
    d = diagnose(kg, "loop", [_walk(kg, "A", "x.y.r", "x.y.missing")])
    assert d.candidates[:2] == [
        CandidateRelation(NS + "x.y.loop", True, "x.y.loop"),
        CandidateRelation(NS + "x.y.loop", False, "x.y.loop"),
    ]
    assert CandidateRelation(NS + "x.y.named", True, "named relation") in d.candidates


def test_every_failed_path_brings_its_earlier_steps() -> None:
    kg = _kg([("A", "x.y.r", "B"), ("P", "x.y.s", "Q")])
    d = diagnose(kg, "q", [_walk(kg, "A", "x.y.r", "x.y.no"), _walk(kg, "P", "x.y.s", "x.y.no")])
    assert [(step, where) for step, where, _ in d.earlier] == [(1, "A"), (1, "P")]


def test_a_topic_without_a_name_is_shown_by_its_id() -> None:
    # unnamed is not compound here: the walk goes on from it
    kg = _kg([("Named", "x.y.r", "m.0top"), ("m.0top", "x.y.s", "Named2")], compound="blank")
    instance = _walk(kg, NS + "m.0top", "x.y.s", "x.y.missing")
    d = diagnose(kg, "q", [instance])
    assert d.halfway == ["m.0top -> x.y.s -> Named2"]
    assert d.earlier[0][1] == "m.0top"


def test_the_default_caps_of_the_edit_prompt() -> None:
    """A hub T with 201 neighbours n000..n200, each leaving by one of 40 relations; T has 11
    relations of its own. Defaults: 15 half-way walks, 35 candidates, 8 relations per earlier
    step, the relations of the first 200 stuck nodes (n200's `x.y.special` is not among them)."""
    triples = [("T", "x.y.hub", f"n{i:03}") for i in range(201)]
    triples += [(f"n{i:03}", f"x.y.s{i % 40}", f"e{i}") for i in range(200)]
    triples += [("n200", "x.y.special", "e200")]
    triples += [("T", f"x.y.t{j}", f"u{j}") for j in range(10)]
    triples += [(f"n{i:03}", "x.y.all", "end") for i in range(201)]
    kg = _kg(triples, frontier_cap=1000)
    instance = _walk(kg, "T", "x.y.hub", "x.y.special_missing")
    assert len(instance.frontier) == 201
    d = diagnose(kg, "special", [instance])
    assert len(d.halfway) == 15 and d.halfway[0] == "T -> x.y.hub -> n000"
    assert len(d.candidates) == 35
    assert NS + "x.y.special" not in {c.relation for c in d.candidates}
    (step, where, found) = d.earlier[0]
    assert (step, where, len(found)) == (1, "T", 8)
    wider = diagnose(kg, "special", [instance], stuck_sample=201)
    assert wider.candidates[0] == CandidateRelation(NS + "x.y.special", True, "x.y.special")
    assert node_iri("n200") == instance.frontier[-1].value
    # an earlier step from all 201: its relations too come from the first 200 only
    deeper = _walk(kg, "T", "x.y.hub", "x.y.all", "x.y.special")
    (_, (step, where, found)) = diagnose(kg, "q", [deeper]).earlier
    assert (step, where) == (2, "n000 and 200 more")
    assert NS + "x.y.special" not in {c.relation for c in found}
    (_, (_, _, found)) = diagnose(kg, "q", [deeper], stuck_sample=201).earlier
    assert found[0] == CandidateRelation(NS + "x.y.special", True, "x.y.special")
