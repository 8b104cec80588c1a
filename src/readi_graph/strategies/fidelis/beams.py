"""Beams as JSON records: a topic entity's start node and the steps walked from it.

A beam is `{"topic", "start", "start_label", "steps": [{"relation", "forward", "node",
"label"}], "score"}`; it is shown as `Topic -> relation -> Entity -> <- relation -> Entity`
(`<-` marks a relation walked against its direction).
"""

from __future__ import annotations

from typing import Any

from readi_graph.core.base import Term
from readi_graph.core.text import local_name
from readi_graph.environments.kg.records import term_from, term_record
from readi_graph.strategies.fidelis.pathrag import Step

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


def extend(beam: Beam, step: Step) -> Beam:
    walked = {
        "relation": step.relation,
        "forward": step.forward,
        "node": term_record(step.node),
        "label": step.label,
        "name": step.name or local_name(step.relation),
    }
    return {**beam, "steps": [*beam["steps"], walked], "score": step.score}


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
