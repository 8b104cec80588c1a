"""Instantiating a reasoning path on a KG: bind, connect (hop by hop), merge.

Connecting is a breadth-first walk done a whole layer at a time: the frontier of every node
reached so far is expanded over all candidate relations of the next NL relation in one query
(the published code issues about five queries per expanded node). The layer is capped at
`frontier_cap` distinct nodes, chosen deterministically, and the cap is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from readi_graph.core.base import Term, Triple
from readi_graph.environments.kg.entities.names import Resolution
from readi_graph.environments.kg.knowledge_graph import Edge, Expansion, KnowledgeGraph
from readi_graph.environments.kg.relations.binding import bind_phrase, weighted
from readi_graph.environments.kg.relations.paths import Binding, Candidate, KGPath


def bind(
    kg: KnowledgeGraph, path: KGPath, top_k: int = 5, *, question: str | None = None
) -> list[Binding]:
    """Top-k KG relations for each NL relation of `path`, with reverse twins (binding.py)."""
    index, options = kg.relation_index, kg.binding
    index.prepare(path.relations)
    return [
        bind_phrase(
            index,
            nl,
            top_k,
            schema=kg.schema if options.twins else None,
            question=question,
            question_weight=options.question_weight,
        )
        for nl in path.relations
    ]


@dataclass
class Hop:
    """One NL relation walked: the candidates tried, and what connected."""

    relation: str
    candidates: Binding
    edges: list[Edge] = field(default_factory=list)
    reached: int = 0  # distinct next nodes before the cap
    capped: bool = False  # more than frontier_cap nodes were reached; the rest were dropped
    local: bool = False  # no bound relation connected: bound among the frontier's relations
    truncated: bool = False  # the query row limit cut the expansion short

    @property
    def connected(self) -> bool:
        return bool(self.edges)

    @property
    def matched(self) -> list[tuple[str, bool]]:
        """The (relation, forward) pairs among the candidates that actually connected."""
        return sorted({(e.relation, e.forward) for e in self.edges})


@dataclass
class Instance:
    """A path instantiated (fully or half-way) from one topic entity."""

    path: KGPath
    start: Resolution
    hops: list[Hop] = field(default_factory=list)
    frontier: tuple[Term, ...] = ()  # nodes at the end of the last connected hop
    failed_at: int | None = None  # index of the first NL relation that did not connect

    @property
    def complete(self) -> bool:
        return self.start.found and self.failed_at is None and bool(self.path.relations)

    @property
    def depth(self) -> int:
        """How many NL relations were instantiated."""
        return sum(1 for h in self.hops if h.connected)

    def chains(self, ends: set[Term] | None = None) -> list[list[Edge]]:
        """Edge layers restricted to walks that reach `ends` (default: the frontier)."""
        keep = set(self.frontier) if ends is None else set(ends)
        layers: list[list[Edge]] = []
        for hop in reversed([h for h in self.hops if h.connected]):
            layer = [e for e in hop.edges if e.target in keep]
            layers.append(layer)
            keep = {e.source for e in layer}
        return list(reversed(layers))

    def triples(self, ends: set[Term] | None = None) -> list[Triple]:
        return sorted({e.triple for layer in self.chains(ends) for e in layer}, key=Triple.sort_key)


def _without_return(expansion: Expansion, start: Resolution, kg: KnowledgeGraph) -> Expansion:
    """Drop edges that come back to the topic entity, unless `revisit_topic` (a self-loop on
    the topic is a fact, not a return)."""
    if not kg.settings.revisit_topic:
        expansion.edges = [
            e for e in expansion.edges if e.target not in start.nodes or e.source in start.nodes
        ]
    return expansion


def bind_locally(
    kg: KnowledgeGraph,
    frontier: Sequence[Term],
    phrase: str,
    k: int,
    question: str | None = None,
) -> Binding:
    """The `k` relations around `frontier` that best match `phrase` (one query): the KG
    shows which relations exist where the walk stands, so a phrase whose global top-k all
    miss here can still bind to the one that is here. Only relations the phrase reaches
    (a shared word, or dense similarity above the floor) qualify."""
    around = sorted({p for p, _ in kg.relations_around(frontier[: kg.settings.chunk_size])})
    if not around:
        return ()
    index, options = kg.relation_index, kg.binding
    scores = weighted(index, phrase, question, options.question_weight)  # 0: not reached
    depth = min(options.local_depth, len(scores))
    floor = max(float(np.partition(scores, -depth)[-depth]), 1e-12) if depth else np.inf
    ranked = [
        (p, float(scores[i]))
        for p in around
        if (i := index.position.get(p)) is not None and scores[i] >= floor
    ]
    ranked.sort(key=lambda ps: -ps[1])  # stable: equal scores stay in name order
    return tuple(Candidate(p, "both", score) for p, score in ranked[:k])


def _with_preferred(
    kg: KnowledgeGraph,
    frontier: Sequence[Term],
    candidates: Binding,
    prefer: Sequence[Term],
    expansion: Expansion,
) -> Expansion:
    """`expansion` plus the edges from `frontier` that end on a `prefer` node (one query)."""
    extra = kg.expand(
        frontier,
        [c.relation for c in candidates if c.forward],
        [c.relation for c in candidates if c.backward],
        targets=prefer,
    )
    edges = sorted(set(expansion.edges) | set(extra.edges), key=Edge.sort_key)
    return Expansion(edges, expansion.truncated or extra.truncated)


def connect(
    kg: KnowledgeGraph,
    path: KGPath,
    bindings: Sequence[Binding],
    start: Resolution | None = None,
    *,
    question: str | None = None,
    prefer: Sequence[Term] = (),
) -> Instance:
    """Walk `path` from its topic entity, one query per hop, until done or stuck.

    `prefer`: the ends other constraints of the question reached. When the last hop passes
    the frontier cap, the nodes that can still meet them (same answer) are kept first, so
    the cap does not throw away the intersection."""
    wanted = {t.answer_key() for t in prefer}
    start = start or kg.resolve(path.topic)
    instance = Instance(path, start, frontier=start.nodes)
    if not start.found:
        return instance
    cap = kg.settings.frontier_cap
    for position, (relation, candidates) in enumerate(zip(path.relations, bindings, strict=True)):
        hop = Hop(relation, tuple(candidates))
        instance.hops.append(hop)
        expansion = kg.expand(
            instance.frontier,
            [c.relation for c in candidates if c.forward],
            [c.relation for c in candidates if c.backward],
        )
        expansion = _without_return(expansion, start, kg)
        if not expansion.edges and kg.binding.local_fallback:
            local = bind_locally(kg, instance.frontier, relation, len(candidates), question)
            if local:
                relations = [c.relation for c in local]
                expansion = _without_return(
                    kg.expand(instance.frontier, relations, relations), start, kg
                )
                hop.candidates, hop.local = local, bool(expansion.edges)
        hop.truncated = expansion.truncated
        if not expansion.edges:
            instance.failed_at = position
            return instance
        last = position == len(path.relations) - 1
        if prefer and last and expansion.truncated:
            # Only the store's first rows were read: look for the preferred ends as well.
            more = _with_preferred(kg, instance.frontier, hop.candidates, prefer, expansion)
            expansion = _without_return(more, start, kg)
        reached = sorted({e.target for e in expansion.edges}, key=Term.sort_key)
        hop.reached = len(reached)
        if len(reached) > cap and wanted and last:
            reached.sort(key=lambda t: (t.answer_key() not in wanted, t.sort_key()))
        if len(reached) > cap:
            hop.capped = True
            reached = sorted(reached[:cap], key=Term.sort_key)
            kept = set(reached)
            hop.edges = [e for e in expansion.edges if e.target in kept]
        else:
            hop.edges = expansion.edges
        instance.frontier = tuple(reached)
    return instance


@dataclass
class Merged:
    """Answers of a multi-constraint question: the intersection over topic entities."""

    answers: tuple[Term, ...]
    evidence: list[Triple]
    intersected: bool  # False when the constraints share no node and the union was kept


def merge(instances: Sequence[Instance]) -> Merged:
    """Intersect the end nodes reached from each topic entity (paper §4.5).

    Only complete instances vote. When their ends do not intersect (a constraint the KG cannot
    satisfy together), the union is kept and `intersected` says so, rather than answering
    from nothing.
    """
    voters = [i for i in instances if i.complete and i.frontier]
    if not voters:
        return Merged((), [], False)
    # Ends meet by `Term.answer_key`: "1979"^^xsd:gYear from one constraint and "1979" from
    # another are the same answer.
    common = {t.answer_key() for t in voters[0].frontier}
    for instance in voters[1:]:
        common &= {t.answer_key() for t in instance.frontier}
    intersected = bool(common) or len(voters) == 1
    ends = {t for i in voters for t in i.frontier if not common or t.answer_key() in common}
    evidence = sorted({t for i in voters for t in i.triples(ends)}, key=Triple.sort_key)
    answers: dict[tuple[str, str], Term] = {}
    for term in sorted(ends, key=Term.sort_key):  # one answer term, the same one every run
        answers.setdefault(term.answer_key(), term)
    return Merged(tuple(sorted(answers.values(), key=Term.sort_key)), evidence, intersected)
