"""JSON records of instances (typed: `InstanceRecord`), for LangGraph state.

State must be plain JSON: checkpointers serialize it (and will refuse unregistered classes),
Studio shows it, and a parent graph may read it. Nodes keep working with the dataclasses and
convert at their edges with these functions.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from readi_graph.core.base import Term
from readi_graph.core.text import local_name
from readi_graph.environments.kg.entities.names import Resolution
from readi_graph.environments.kg.knowledge_graph import Edge
from readi_graph.environments.kg.reasoning.instantiation import Hop, Instance
from readi_graph.environments.kg.relations.paths import Candidate, KGPath

Record = dict[str, Any]


class PathRecord(TypedDict):
    topic: str
    relations: list[str]


class HopRecord(TypedDict):
    relation: str
    candidates: list[Record]  # candidate_record
    edges: list[Record]  # source, relation, target (term records), forward
    reached: int
    capped: bool
    truncated: bool


class InstanceRecord(TypedDict):
    """An `Instance` as it is kept in state (JSON): what one topic's path reached."""

    path: PathRecord
    start: Record  # name, nodes (term records), match
    hops: list[HopRecord]
    frontier: list[Record]
    failed_at: int | None
    complete: bool
    depth: int


def term_record(t: Term) -> Record:
    record: Record = {"kind": t.kind, "value": t.value}
    if t.datatype:
        record["datatype"] = t.datatype
    if t.lang:
        record["lang"] = t.lang
    return record


def term_from(r: Record) -> Term:
    return Term(r["kind"], r["value"], r.get("datatype"), r.get("lang"))


def candidate_record(c: Candidate) -> Record:
    return {"relation": c.relation, "direction": c.direction, "score": round(c.score, 6)}


def candidate_from(r: Record) -> Candidate:
    return Candidate(r["relation"], r.get("direction", "both"), float(r.get("score", 0.0)))


def path_record(p: KGPath) -> PathRecord:
    return {"topic": p.topic, "relations": list(p.relations)}


def path_from(r: PathRecord | Record) -> KGPath:
    return KGPath(r["topic"], tuple(r["relations"]))


def _edge_record(e: Edge) -> Record:
    return {
        "source": term_record(e.source),
        "relation": e.relation,
        "target": term_record(e.target),
        "forward": e.forward,
    }


def _edge_from(r: Record) -> Edge:
    return Edge(term_from(r["source"]), r["relation"], term_from(r["target"]), r["forward"])


def instance_record(i: Instance) -> InstanceRecord:
    return {
        "path": path_record(i.path),
        "start": {
            "name": i.start.name,
            "nodes": [term_record(t) for t in i.start.nodes],
            "match": i.start.match,
        },
        "hops": [
            {
                "relation": h.relation,
                "candidates": [candidate_record(c) for c in h.candidates],
                "edges": [_edge_record(e) for e in h.edges],
                "reached": h.reached,
                "capped": h.capped,
                "truncated": h.truncated,
            }
            for h in i.hops
        ],
        "frontier": [term_record(t) for t in i.frontier],
        "failed_at": i.failed_at,
        "complete": i.complete,
        "depth": i.depth,
    }


def instance_from(r: InstanceRecord | Record) -> Instance:
    start = r["start"]
    return Instance(
        path=path_from(r["path"]),
        start=Resolution(
            start["name"], tuple(term_from(t) for t in start["nodes"]), start["match"]
        ),
        hops=[
            Hop(
                h["relation"],
                tuple(candidate_from(c) for c in h["candidates"]),
                [_edge_from(e) for e in h["edges"]],
                h["reached"],
                h["capped"],
                h["truncated"],
            )
            for h in r["hops"]
        ],
        frontier=tuple(term_from(t) for t in r["frontier"]),
        failed_at=r["failed_at"],
    )


def step_record(hop: Hop) -> Record:
    """One walked step for pictures of a run: the KG relations tried, those that connected
    (`<-` = walked backwards), and how many nodes were reached."""
    return {
        "bound": [local_name(c.relation) for c in hop.candidates][:12],
        "matched": [("" if f else "<- ") + local_name(r) for r, f in hop.matched][:12],
        "reached": hop.reached,
    }
