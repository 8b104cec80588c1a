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

import numpy as np

from readi_graph.core.base import Term
from readi_graph.core.text import local_name
from readi_graph.environments.kg.encoder import phrase_vector, phrases
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reads import RelationCount
from readi_graph.environments.kg.retrieval import relation_text, words
from readi_graph.environments.kg.sparql import Branch, is_safe_iri


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


class Similarity:
    """S_rel and S_ent against one keyword string."""

    def __init__(self, kg: KnowledgeGraph, keywords: str) -> None:
        self.kg = kg
        self.index = kg.relation_index
        self.dense = self.index.dense
        self.keywords = keywords
        if self.dense:
            self._query = phrase_vector(" ".join(words(keywords)) or keywords)
            self._relations = self.index.similarities(self._query)
        else:
            bm25 = self.index.bm25_scores(keywords)
            top = float(bm25.max()) if bm25.size else 0.0
            self._relations = bm25 / top if top > 0 else bm25
        self._words = set(words(keywords))

    def relation(self, relation: str) -> float:
        i = self.index.position.get(relation)
        if i is not None:
            return float(self._relations[i])
        if self.dense:  # a relation missing from the inventory (e.g. listed lazily)
            return float(phrase_vector(relation_text(relation)) @ self._query)
        return self._overlap(local_name(relation))

    def entities(self, labels: list[str]) -> list[float]:
        named = [(i, t) for i, t in enumerate(labels) if t and t != "<compound>"]
        scores = [0.0] * len(labels)
        if not named:
            return scores
        if self.dense:  # labels recur across steps and questions: cached like phrases
            vectors = np.stack(phrases.many([t for _, t in named]))
            for (i, _), v in zip(named, vectors @ self._query, strict=True):
                scores[i] = float(v)
        else:
            for i, text in named:
                scores[i] = self._overlap(text)
        return scores

    def _overlap(self, text: str) -> float:
        found = set(words(text))
        return len(found & self._words) / len(found) if found else 0.0


EDGES_PER_BEAM = 20  # x top_m: edges of one beam end that are labelled and scored


@dataclass
class Candidates:
    ranked: list[list[Step]]  # per beam, best first
    capped: bool  # a beam end had more edges than were scored (a hub), or rows were cut


def plan_reads(
    counts: dict[Term, list[RelationCount]], similarity: Similarity, limit: int
) -> tuple[list[Branch], bool]:
    """Which edges to read, from the counts of each end's relations, before reading any.

    An end with at most `limit` edges has them all read (one branch per relation and
    direction for all such ends). A hub's relations are ranked by S_rel and read best first
    until `limit` edges: the part of a relation that fits is read with its own LIMIT, the rest
    never leaves the store. Returns the branches, and whether any end was cut (a hub)."""
    light: dict[tuple[str, bool], list[tuple[Term, int]]] = defaultdict(list)
    branches: list[Branch] = []
    capped = False
    for end, found in counts.items():
        pairs = [c for c in found if is_safe_iri(c[0])]  # the KG's own, but still checked
        if sum(n for _, _, n in pairs) <= limit:
            for relation, forward, n in pairs:
                light[relation, forward].append((end, n))
            continue
        capped, left = True, limit
        for relation, forward, n in sorted(
            pairs, key=lambda c: (-similarity.relation(c[0]), c[0], c[1])
        ):
            branches.append(Branch((end,), relation, forward, min(n, left)))
            left -= min(n, left)
            if not left:
                break
    for (relation, forward), ends in sorted(light.items()):
        nodes = tuple(end for end, _ in ends)
        branches.append(Branch(nodes, relation, forward, sum(n for _, n in ends)))
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
    similarity = Similarity(kg, keywords)
    limit = EDGES_PER_BEAM * top_m
    reads, capped = plan_reads(kg.relation_counts(ends), similarity, limit)
    expansion = kg.read(reads)
    by_source: dict[Term, list[tuple[str, bool, Term]]] = defaultdict(list)
    for e in expansion.edges:
        by_source[e.source].append((e.relation, e.forward, e.target))
    capped |= expansion.truncated
    targets = sorted({t for out in by_source.values() for _, _, t in out})
    labels = kg.labels(targets)
    shown = {t: kg.display(t, labels.get(t)) for t in targets}
    entity_score = dict(zip(targets, similarity.entities([shown[t] for t in targets]), strict=True))

    immediate: list[list[Step]] = []
    for i, end in enumerate(ends):
        seen = exclude[i] if exclude else set()
        steps = [
            Step(
                i, r, f, t, shown[t], similarity.relation(r) + entity_score[t], kg.relation_name(r)
            )
            for r, f, t in by_source.get(end, [])
            if t not in seen
        ]
        steps.sort(key=lambda s: (-s.score, s.relation, s.node))
        immediate.append(steps[: 3 * top_m])  # the look-ahead is paid for the best only

    ahead_nodes = sorted({s.node for steps in immediate for s in steps if s.node.kind != "literal"})
    ahead = kg.relations_by_node(ahead_nodes) if ahead_nodes and alpha else {}
    best_next = {
        node: max((similarity.relation(r) for r, _ in pairs), default=0.0)
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
