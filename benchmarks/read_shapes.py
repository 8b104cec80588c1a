"""Reads before/after the store stopped sending each row's relation and direction (issue 24).

Before, a read (`KGReads.read`) asked for `?x ?p ?y ?dir` in every row: the relation and
direction the query itself had written, sent back thousands of times. Now the rows hold only
the nodes (`?y`, `?x` unless one node is read from) and the branch (`?b`) when there are
several. `compare` walks the same gold paths both ways on one warm server, each side a KG
client of its own, question by question with the side going first alternating.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.store import sparql
from readi_graph.environments.kg.store.edges import Edge, Expansion
from readi_graph.environments.kg.store.sparql import Branch

from _timing import percentile, spread


def query_before(branches: Sequence[Branch], limit: int) -> str:
    """`read_query` as it was: rows `?x ?p ?y ?dir`."""
    parts = []
    for b in branches:
        p = sparql.iri_ref(b.relation)
        inner = sparql.values("x", (sparql.sparql_term(n) for n in b.nodes))
        if b.targets:
            inner += " " + sparql.values("y", (sparql.sparql_term(t) for t in b.targets))
        inner += f" ?x {p} ?y ." if b.forward else f" ?y {p} ?x ."
        if b.limit is not None:
            inner = f"{{ SELECT ?x ?y WHERE {{ {inner} }} LIMIT {int(b.limit)} }}"
        parts.append(f'{inner} BIND({p} AS ?p) BIND("{"f" if b.forward else "b"}" AS ?dir)')
    return f"SELECT ?x ?p ?y ?dir WHERE {{ {sparql.union(parts)} }} LIMIT {int(limit)}"


class ReadsBefore(KnowledgeGraph):
    """A KG client whose reads ask for (and parse) the relation and direction of every row."""

    def read(self, branches: Sequence[Branch]) -> Expansion:
        limit = self.settings.row_limit
        rows = self._select(query_before(branches, limit + 1)) if branches else []
        edges = [
            Edge(r["x"], r["p"].value, r["y"], r["dir"].value == "f")
            for r in rows[:limit]
            if {"x", "p", "y", "dir"} <= r.keys()
        ]
        return Expansion(edges, len(rows) > limit)


def before(kg: KnowledgeGraph) -> KnowledgeGraph:
    """`kg`'s backend and settings behind the old reads (a client of its own: no cache shared)."""
    return ReadsBefore(kg.backend, kg.settings, relations=kg.relations(), name=kg.name,
                       scan_labels=False)  # fmt: skip


def compare(
    fresh: Callable[[str], Any],
    run: Callable[[Any, dict[str, Any]], dict[str, Any]],
    chosen: list[dict[str, Any]],
    passes: int,
) -> dict[str, list[list[dict[str, Any]]]]:
    """`passes` passes over `chosen`, each question run by both sides in turn, each pass on
    new clients (`fresh(side)`). Returns side -> passes -> runs."""
    out: dict[str, list[list[dict[str, Any]]]] = {"before": [], "after": []}
    for n in range(passes):
        clients = {side: fresh(side) for side in out}
        for side in out:
            out[side].append([])
        for i, q in enumerate(chosen):
            for side in ("before", "after") if (i + n) % 2 == 0 else ("after", "before"):
                out[side][n].append(run(clients[side], q))
    return out


def table(chosen: list[dict[str, Any]], sides: dict[str, list[list[dict[str, Any]]]]) -> list[str]:
    """p50/p95 wall and CPU per path length, before and after, and whether the answers agree."""
    lines = [
        "| paths | questions | p95 ms before | p95 ms after | CPU p95 ms before | CPU p95 ms"
        " after | p50 ms before / after | same answers |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for hops in sorted({q["hops"] for q in chosen}):
        at = [i for i, q in enumerate(chosen) if q["hops"] == hops]

        def over(side: str, key: str, q: float, at: list[int] = at) -> list[float]:
            return [percentile([p[i][key] for i in at], q) for p in sides[side]]

        same = all(
            b[i]["answers"] == a[i]["answers"]
            for b, a in zip(sides["before"], sides["after"], strict=True)
            for i in at
        )
        p50 = [statistics.median(over(s, "ms", 0.5)) for s in ("before", "after")]
        lines.append(
            f"| {hops}-hop | {len(at)} | {spread(over('before', 'ms', 0.95))} |"
            f" {spread(over('after', 'ms', 0.95))} | {spread(over('before', 'cpu_ms', 0.95))} |"
            f" {spread(over('after', 'cpu_ms', 0.95))} | {p50[0]:.1f} / {p50[1]:.1f} |"
            f" {'yes' if same else 'NO'} |"
        )
    return lines
