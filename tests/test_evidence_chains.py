"""Readi's answer prompt on Freebase-shaped KGs (issue 31): bare compound nodes collapsed and
counted, a compound node's facts under it, which path reached what (no "union" that invites
answers from a path that reached nothing), a dropped path never fills the prompt, and every
triple shown is connected to its topic entity through triples shown."""

from __future__ import annotations

from typing import Any

from readi_graph.core.context import ReadiContext
from readi_graph.environments.kg.answer_evidence import read as evidence_read
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.adapter import KGAdapter
from readi_graph.environments.kg.reasoning.instantiation import connect
from readi_graph.environments.kg.reasoning.records import instance_record
from readi_graph.environments.kg.relations.paths import Candidate, KGPath
from readi_graph.environments.kg.store.local import load_ntriples

NS = "http://rdf.freebase.com/ns/"
NAME = NS + "type.object.name"


def _kg() -> KnowledgeGraph:
    lines = [
        f'<{NS}m.team> <{NAME}> "Rovers"@en .',
        f'<{NS}m.town> <{NAME}> "Harbourton"@en .',
        f"<{NS}m.team> <{NS}sports.team.location> <{NS}m.town> .",
        f'<{NS}m.coach> <{NAME}> "Ada Quill"@en .',
        f"<{NS}m.cc> <{NS}sports.tenure.coach> <{NS}m.coach> .",
        f"<{NS}m.team> <{NS}sports.team.coaches> <{NS}m.cc> .",
        f'<{NS}m.cc> <{NS}sports.tenure.from> "2019" .',
        f'<{NS}m.stadium> <{NAME}> "Quay Park"@en .',
        f"<{NS}m.stadium> <{NS}location.located_in> <{NS}m.town> .",
        f'<{NS}m.lonely> <{NAME}> "Lonely Town"@en .',
    ]
    # thirty roster entries that name nobody: compound nodes with nothing beyond them
    lines += [f"<{NS}m.team> <{NS}sports.team.roster> <{NS}m.r{i}> ." for i in range(30)]
    lines += [f"<{NS}m.r{i}> <{NS}sports.roster.number> <{NS}m.n{i}> ." for i in range(30)]
    return KnowledgeGraph(load_ntriples("\n".join(lines) + "\n"))


def _record(kg: KnowledgeGraph, topic: str, *relations: tuple[str, str]) -> dict[str, Any]:
    path = KGPath(topic, tuple(r.rsplit(".", 1)[-1] for r, _ in relations))
    bindings = [(Candidate(NS + r, d),) for r, d in relations]  # type: ignore[arg-type]
    return dict(instance_record(connect(kg, path, bindings)))


def _prompt_values(kg: KnowledgeGraph, state: dict[str, Any], **ctx: Any) -> Any:
    return KGAdapter(kg).material(state, ReadiContext(**ctx))  # type: ignore[arg-type]


def connected(text: str) -> bool:
    """Every triple shown reaches its tree's topic entity through triples shown."""
    lines = evidence_read.lines(text)
    for topic in {line.topic for line in lines}:
        triples = [line.triple for line in lines if line.topic == topic]
        if evidence_read.unlinked(triples, [topic]):
            return False
    return bool(lines)


def test_bare_compound_nodes_are_counted_not_listed_and_facts_hang_under_their_node() -> None:
    kg = _kg()
    state = {
        "question": "who coaches the Rovers",
        "topic_entities": ["Rovers"],
        "instances": [_record(kg, "Rovers", ("sports.team.coaches", "forward"),
                              ("sports.tenure.coach", "forward"))],
    }  # fmt: skip
    material = _prompt_values(kg, state)
    text = material.prompt_values["triples"]
    assert "(Rovers, sports.team.coaches, <compound 1>)" in text
    assert "\n  (<compound 1>, sports.tenure.from, 2019)" in text  # its fact, under it
    assert "\n  (<compound 1>, sports.tenure.coach, Ada Quill)" in text
    assert connected(text)

    state["instances"] = [_record(kg, "Rovers", ("sports.team.roster", "forward"))]
    material = _prompt_values(kg, state)
    text = material.prompt_values["triples"]
    assert not evidence_read.lines(text)  # no chain listed
    assert "reached its end, but only at compound nodes (30)" in text
    (note,) = [n for n in material.notes if n.startswith("Not shown")]
    assert "30 chains that end at a compound node with nothing beyond it" in note
    assert "sports.team.roster" in note
    assert len(material.evidence) == 30  # the output still has them all


def test_each_path_says_what_it_reached_and_only_one_that_reached_its_end_offers_answers() -> None:
    kg = _kg()
    state = {
        "question": "which town holds the Rovers and Quay Park",
        "topic_entities": ["Rovers", "Lonely Town"],
        "instances": [
            _record(kg, "Rovers", ("sports.team.location", "forward")),
            _record(kg, "Lonely Town", ("location.located_in", "backward")),
        ],
    }
    material = _prompt_values(kg, state)
    text = material.prompt_values["triples"]
    assert (
        '- from "Rovers": "location" [sports.team.location]: reached its end (1 end node)' in text
    )
    assert (
        '- from "Lonely Town": "located_in" [nothing walked]: stopped at hop 1 of 1: no relation '
        'walked for "located_in" from "Lonely Town"; it offers no answers' in text
    )
    assert (
        'Chains from "Lonely Town"' not in text
        and "(Rovers, sports.team.location, Harbourton)" in text
    )
    assert not any("union" in n for n in material.notes)
    assert connected(text)


def test_a_stopped_path_says_where_it_stopped_and_a_missing_entity_says_so() -> None:
    """Where a path stopped reads as such (the hop, its words, the nodes it started from),
    never as if the topic entity were missing; a missing one is named as missing."""
    kg = _kg()
    state = {
        "question": "who owns the town the Rovers play in",
        "topic_entities": ["Rovers", "Nowhere Athletic"],
        "instances": [
            _record(
                kg, "Rovers", ("sports.team.location", "forward"), ("made.up.owner", "forward")
            ),
            _record(kg, "Nowhere Athletic", ("sports.team.location", "forward")),
        ],
    }
    text = _prompt_values(kg, state).prompt_values["triples"]
    assert (
        'stopped at hop 2 of 2: no relation walked for "owner" from the 1 node hop 1 reached '
        "(Harbourton); it offers no answers" in text
    )
    assert (
        '- from "Nowhere Athletic": "location" [nothing walked]: not walked: the topic entity '
        "is not in the knowledge graph; it offers no answers" in text
    )
    assert connected(text)  # the partial chain to Harbourton, under its path


def test_a_path_dropped_from_the_plan_does_not_fill_the_prompt() -> None:
    kg = _kg()
    roster = _record(kg, "Rovers", ("sports.team.roster", "forward"))
    town = _record(kg, "Quay Park", ("location.located_in", "forward"))
    state = {
        "question": "where is Quay Park",
        "topic_entities": ["Rovers", "Quay Park"],
        "instances": [roster, town],
        "plan": {"Rovers": [], "Quay Park": [["located_in"]]},
    }
    material = _prompt_values(kg, state)
    text = material.prompt_values["triples"]
    assert "Rovers" not in text and "(Quay Park, location.located_in, Harbourton)" in text
    assert any('"Rovers" was dropped from the plan' in n for n in material.notes)
    assert material.path == ["Quay Park -> located_in"]
    assert all("Rovers" not in " ".join(row) for row in material.evidence)


def test_the_flat_layout_is_the_papers_set_of_triples() -> None:
    kg = _kg()
    state = {
        "question": "who coaches the Rovers",
        "topic_entities": ["Rovers"],
        "instances": [_record(kg, "Rovers", ("sports.team.coaches", "forward"), ("sports.tenure.coach", "forward"))],
    }  # fmt: skip
    material = _prompt_values(kg, state, evidence_layout="flat")
    text = material.prompt_values["triples"]
    assert "Paths walked" not in text and material.prompt == "kg_answer_flat"
    lines = text.splitlines()  # one set of triples, each on its own line, none indented
    assert lines == [f"({s}, {p}, {o})" for s, p, o in material.evidence] and len(lines) == 3
    assert "(<compound 1>, sports.tenure.coach, Ada Quill)" in text
