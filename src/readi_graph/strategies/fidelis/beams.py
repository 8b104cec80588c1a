"""Beams as JSON records: a topic entity's start node and the steps walked from it.

A beam is `{"topic", "start", "start_label", "steps": [{"relation", "forward", "node",
"label", "name"}], "score", "closed", "copy"}`; it is shown as `Topic -> relation -> Entity ->
<- relation -> Entity` (`<-` marks a relation walked against its direction). A closed beam
ended on a node it had passed: it may answer, it is never walked on. A copy's last node only
copies a sibling's name (`pathrag.mark_copies`): it ranks after the others.
"""

from __future__ import annotations

from typing import Any

from readi_graph.core.base import Term
from readi_graph.core.text import local_name
from readi_graph.environments.kg.reasoning.records import term_from, term_record
from readi_graph.strategies.fidelis.pathrag import Step, Walked

Beam = dict[str, Any]


def start(topic: str, node: Term, label: str) -> Beam:
    return {
        "topic": topic,
        "start": term_record(node),
        "start_label": label,
        "steps": [],
        "score": 0,
    }


def end(beam: Beam) -> Term:
    steps = beam["steps"]
    return term_from(steps[-1]["node"] if steps else beam["start"])


def visited(beam: Beam) -> set[Term]:
    return {term_from(beam["start"]), *(term_from(s["node"]) for s in beam["steps"])}


def walked(beam: Beam) -> Walked:
    """What the beam has walked: its nodes, its start, the edge it came by."""
    steps = beam["steps"]
    back = None
    if steps:
        previous = steps[-2]["node"] if len(steps) > 1 else beam["start"]
        back = (term_from(previous), steps[-1]["relation"])
    return Walked(frozenset(visited(beam)), term_from(beam["start"]), back)


def chain(beam: Beam) -> tuple[str, str, tuple[tuple[str, bool], ...]]:
    """The beam's start node and the relations it followed (with their directions): paths
    that share it are equally valid answers to the same plan."""
    start = beam["start"]
    relations = tuple((s["relation"], s["forward"]) for s in beam["steps"])
    return (start["kind"], start["value"], relations)


def extend(beam: Beam, step: Step) -> Beam:
    taken = {
        "relation": step.relation,
        "forward": step.forward,
        "node": term_record(step.node),
        "label": step.label,
        "name": step.name or local_name(step.relation),
    }
    return {
        **beam,
        "steps": [*beam["steps"], taken],
        "score": step.score,
        "closed": step.revisit,
        "copy": step.copy,
    }


def text(beam: Beam) -> str:
    parts = [beam["start_label"]]
    for s in beam["steps"]:
        name = s.get("name") or local_name(s["relation"])
        parts += [name if s["forward"] else f"<- {name}", s["label"]]
    return " -> ".join(parts)


def triples(beam: Beam) -> list[list[str]]:
    """The beam's edges as stored: [subject, relation, object] display strings."""
    out = []
    previous = beam["start_label"]
    for s in beam["steps"]:
        name = s.get("name") or local_name(s["relation"])
        out.append([previous, name, s["label"]] if s["forward"] else [s["label"], name, previous])
        previous = s["label"]
    return out
