"""The set-at-a-time reads a walk makes: edges over relations, and the relations around nodes.

Every read is bounded inside the query, not after the rows arrive: a hop reads at most
`rows_per_relation` rows per relation and direction (a sub-select with its own LIMIT), and the
relations around a node come from `SELECT DISTINCT` (or counts) with a limit. A hub with a
million edges therefore costs what a node with a few thousand does. Every query goes through
`_select`/`_ask`, which count them per question.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from readi_graph.core.base import Term
from readi_graph.core.run.counting import count_query
from readi_graph.environments.kg.store import sparql
from readi_graph.environments.kg.store.edges import Backend, Edge, Expansion
from readi_graph.environments.kg.store.settings import KGSettings
from readi_graph.environments.kg.store.sparql import Branch

RelationCount = tuple[str, bool, int]  # (relation, forward, number of edges)


class KGReads:
    """Counted, bounded queries over a backend (the base of `KnowledgeGraph`)."""

    backend: Backend
    settings: KGSettings
    _lock: threading.Lock
    queries_total: int

    def _count(self) -> None:
        count_query()
        with self._lock:
            self.queries_total += 1

    def _select(self, query: str) -> list[dict[str, Term]]:
        self._count()
        return self.backend.select(query)

    def _ask(self, query: str) -> bool:
        self._count()
        return self.backend.ask(query)

    def is_hidden(self, relation: str) -> bool:
        s = self.settings
        return relation in s.name_predicates or relation.startswith(s.hidden_relations)

    def _walkable(self, relations: Iterable[str]) -> list[str]:
        """Relations that may be sent: hidden or unsafe ones are dropped here, never sent."""
        return [
            p for p in dict.fromkeys(relations) if sparql.is_safe_iri(p) and not self.is_hidden(p)
        ]

    @staticmethod
    def _queryable(nodes: Iterable[Term]) -> list[Term]:
        return [n for n in dict.fromkeys(nodes) if n.kind != "bnode"]

    def read(self, branches: Sequence[Branch]) -> Expansion:
        """The edges of `branches`, in the order the store returns them, in one query (more
        only past `row_limit`, which is then reported as truncated)."""
        limit = self.settings.row_limit
        rows = self._select(sparql.read_query(branches, limit + 1)) if branches else []
        truncated = len(rows) > limit
        shared = sparql.shared_node(branches) if branches else None
        edges = []
        for r in rows[:limit]:
            branch = _branch(branches, r)
            source = shared or r.get("x")
            if branch is not None and source is not None and "y" in r:
                edges.append(Edge(source, branch.relation, r["y"], branch.forward))
        return Expansion(edges, truncated)

    def expand(
        self,
        nodes: Sequence[Term],
        forward: Sequence[str],
        backward: Sequence[str],
        *,
        targets: Sequence[Term] = (),
    ) -> Expansion:
        """All edges from `nodes` over `forward` relations and, reversed, `backward` ones, at
        most `rows_per_relation` per relation and direction (more is reported as truncated).

        One query per `chunk_size` nodes (one per hop up to the frontier cap), never one per
        node. `targets`: only edges ending on those nodes (the cap's second look)."""
        fwd, bwd = self._walkable(forward), self._walkable(backward)
        queryable = self._queryable(nodes)
        ends = tuple(self._queryable(targets))
        if not queryable or not (fwd or bwd) or (targets and not ends):
            return Expansion([])
        per = self.settings.rows_per_relation
        edges: set[Edge] = set()
        truncated = False
        for chunk in sparql.chunked(queryable, self.settings.chunk_size):
            pairs = [(p, True) for p in fwd] + [(p, False) for p in bwd]
            found = self.read([Branch(tuple(chunk), p, f, per + 1, ends) for p, f in pairs])
            truncated |= found.truncated
            seen: dict[tuple[str, bool], int] = {}
            for e in found.edges:
                n = seen[e.relation, e.forward] = seen.get((e.relation, e.forward), 0) + 1
                if n > per:  # the branch's extra row only says that more exist
                    truncated = True
                else:
                    edges.add(e)
        return Expansion(sorted(edges, key=Edge.sort_key), truncated)

    def relations_around(self, nodes: Sequence[Term], limit: int = 2000) -> list[tuple[str, bool]]:
        """(relation, forward) pairs touching any of `nodes`: what the LLM could walk instead."""
        found: set[tuple[str, bool]] = set()
        for chunk in sparql.chunked(self._queryable(nodes), self.settings.chunk_size):
            for r in self._select(sparql.around_query(chunk, limit)):
                if "p" in r and "dir" in r and not self.is_hidden(r["p"].value):
                    found.add((r["p"].value, r["dir"].value == "f"))
        return sorted(found)

    def relations_by_node(
        self, nodes: Sequence[Term], limit: int = 20_000
    ) -> dict[Term, list[tuple[str, bool]]]:
        """(relation, forward) pairs touching each node: one query per chunk, not per node."""
        return {
            n: [(p, f) for p, f, _ in counts]
            for n, counts in self.relation_counts(nodes, limit, counted=False).items()
        }

    def relation_counts(
        self, nodes: Sequence[Term], limit: int = 20_000, *, counted: bool = True
    ) -> dict[Term, list[RelationCount]]:
        """(relation, forward, edges) touching each node, one query per chunk: ranking a hub's
        relations costs one pass over its edges, never reading them out."""
        queryable = self._queryable(nodes)
        found: dict[Term, dict[tuple[str, bool], int]] = {n: {} for n in queryable}
        for chunk in sparql.chunked(queryable, self.settings.chunk_size):
            query = sparql.around_query(chunk, limit, per_node=True, counts=counted)
            for r in self._select(query):
                if {"x", "p", "dir"} <= r.keys() and not self.is_hidden(r["p"].value):
                    n = int(float(r["n"].value)) if "n" in r else 0
                    found.setdefault(r["x"], {})[r["p"].value, r["dir"].value == "f"] = n
        return {n: sorted((p, f, c) for (p, f), c in pairs.items()) for n, pairs in found.items()}


def _branch(branches: Sequence[Branch], row: dict[str, Term]) -> Branch | None:
    """The branch a row of `read_query` came from (None: not one the query wrote)."""
    if len(branches) == 1:
        return branches[0]
    try:
        position = int(row["b"].value)
    except (KeyError, ValueError):
        return None
    return branches[position] if 0 <= position < len(branches) else None
