"""Path-RAG (FiDeLiS §2.1, Alg. 1): score the next steps (relation, entity) of every beam.

    S(r, e) = S_rel(r) + S_ent(e) + α · max over (r', e') one hop after e of S_rel(r') + S_ent(e')

S_rel and S_ent are cosine similarities between the planner's concatenated keywords and the
relation / entity text (MiniLM from the `[embed]` extra). Without it, BM25 scores (relations,
normalised to [0, 1]) and word overlap (entities) stand in: lower quality, documented as such.

Where the paper embeds every node of a per-question subgraph in advance, we ask the KG for the
candidates set-at-a-time: one query for the relations around all beam ends, one for their
edges, one for labels, one for the relations one hop further, whatever the number of beams.
The look-ahead scores the relations one hop further (S_rel(r')): scoring every 2-hop entity
would need the labels of the whole 2-hop neighbourhood.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from readi_graph.core.base import Term
from readi_graph.environments.kg.explore import Explorer, Reach, RelationCount, Similarity
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph


@dataclass(frozen=True)
class Step:
    """One candidate step from a beam's end node."""

    beam: int  # index of the beam it extends
    relation: str
    forward: bool
    node: Term
    label: str  # how the node is shown (label, `<compound>`, local name)
    score: float
    name: str = ""  # how the relation is shown (`KnowledgeGraph.relation_name`)


EDGES_PER_BEAM = 20  # x top_m: edges of one beam end that are labelled and scored


@dataclass
class Candidates:
    ranked: list[list[Step]]  # per beam, best first
    capped: bool  # a beam end had more edges than were scored (a hub), or rows were cut


def plan_reads(
    counts: dict[Term, list[RelationCount]], similarity: Similarity, limit: int
) -> tuple[list[Reach], bool]:
    """Which edges to read, from the counts of each end's relations, before reading any.

    An end with at most `limit` edges has them all read (one branch per relation and
    direction for all such ends). A hub's relations are ranked by S_rel and read best first
    until `limit` edges: the part of a relation that fits is read with its own LIMIT, the rest
    never leaves the store. Returns the branches, and whether any end was cut (a hub)."""
    light: dict[tuple[str, bool], list[tuple[Term, int]]] = defaultdict(list)
    branches: list[Reach] = []
    capped = False
    for end, pairs in counts.items():
        if sum(n for _, _, n in pairs) <= limit:
            for relation, forward, n in pairs:
                light[relation, forward].append((end, n))
            continue
        capped, left = True, limit
        for relation, forward, n in sorted(
            pairs, key=lambda c: (-similarity.relation(c[0]), c[0], c[1])
        ):
            branches.append(Reach((end,), relation, forward, min(n, left)))
            left -= min(n, left)
            if not left:
                break
    for (relation, forward), ends in sorted(light.items()):
        nodes = tuple(end for end, _ in ends)
        branches.append(Reach(nodes, relation, forward, sum(n for _, n in ends)))
    return branches, capped


def candidates(
    kg: KnowledgeGraph,
    ends: list[Term],
    keywords: str,
    *,
    top_m: int,
    alpha: float,
    exclude: list[set[Term]] | None = None,
) -> Candidates:
    """The top-m scored next steps of each beam (beam i ends at `ends[i]`).

    `exclude[i]` holds the nodes beam i has visited: a step never walks back onto its path.
    """
    explorer = Explorer(kg)
    similarity = explorer.similarity(keywords)
    limit = EDGES_PER_BEAM * top_m
    reads, capped = plan_reads(explorer.relations(ends), similarity, limit)
    expansion = explorer.reach(reads)
    by_source: dict[Term, list[tuple[str, bool, Term]]] = defaultdict(list)
    for e in expansion.edges:
        by_source[e.source].append((e.relation, e.forward, e.target))
    capped |= expansion.truncated
    targets = sorted({t for out in by_source.values() for _, _, t in out})
    shown = explorer.names(targets)
    entity_score = dict(zip(targets, similarity.names([shown[t] for t in targets]), strict=True))

    immediate: list[list[Step]] = []
    for i, end in enumerate(ends):
        seen = exclude[i] if exclude else set()
        steps = [
            Step(
                i,
                r,
                f,
                t,
                shown[t],
                similarity.relation(r) + entity_score[t],
                explorer.relation_name(r),
            )
            for r, f, t in by_source.get(end, [])
            if t not in seen
        ]
        steps.sort(key=lambda s: (-s.score, s.relation, s.node))
        immediate.append(steps[: 3 * top_m])  # the look-ahead is paid for the best only

    ahead_nodes = sorted({s.node for steps in immediate for s in steps if s.node.kind != "literal"})
    ahead = explorer.relations(ahead_nodes, counted=False) if ahead_nodes and alpha else {}
    best_next = {
        node: max((similarity.relation(r) for r, _, _ in pairs), default=0.0)
        for node, pairs in ahead.items()
    }
    ranked = []
    for steps in immediate:
        scored = [
            Step(
                s.beam,
                s.relation,
                s.forward,
                s.node,
                s.label,
                round(s.score + alpha * best_next.get(s.node, 0.0), 6),
                s.name,
            )
            for s in steps
        ]
        scored.sort(key=lambda s: (-s.score, s.relation, s.node))
        ranked.append(scored[:top_m])
    return Candidates(ranked, capped)
