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

Two rankings are ours (`FidelisContext`): a step whose node only copies the name of a sibling
reached by another relation ranks after the real steps (`copies`), and per end either the
top-m steps are kept (the paper) or every step of the top-m relations, `cap` per relation
(`selection="chains"`: one pick then keeps every path of a relation chain). A step may end on
a node its path passed (`Walked`), never back along the edge it came by nor back to the topic.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from typing import Literal

from readi_graph.core.base import Term
from readi_graph.core.text import normalize_name
from readi_graph.environments.kg.explore import (
    COMPOUND,
    Explorer,
    Reach,
    RelationCount,
    Similarity,
)
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
    copy: bool = False  # the node only copies the name of a sibling reached otherwise
    revisit: bool = False  # the node is on the path already: the path ends there


@dataclass(frozen=True)
class Walked:
    """What a path has walked, for the steps it may take next: none back to its start (the
    topic entity) nor back along the edge it came by (`back`: previous node, relation); onto
    another node it passed, or along a self-loop of the start, only with `revisit` (and then
    it ends there: the film "9/11" tagged 9/11)."""

    visited: frozenset[Term]
    start: Term
    back: tuple[Term, str] | None = None

    def onto(self, relation: str, node: Term, revisit: bool) -> Literal["new", "end", "barred"]:
        if node not in self.visited:
            return "new"
        returns = node == self.start and self.back is not None  # left the topic, came back
        if not revisit or returns or self.back == (node, relation):
            return "barred"
        return "end"


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
    walked: list[Walked] | None = None,
    revisit: bool = False,
    copies_last: bool = False,
    per_relation: int | None = None,
) -> Candidates:
    """The scored next steps of each beam (beam i ends at `ends[i]`, has walked `walked[i]`),
    best first: its top-m steps, or with `per_relation` every step (that many at most) of its
    top-m relations."""
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
        steps = []
        for r, f, t in by_source.get(end, []):
            onto = walked[i].onto(r, t, revisit) if walked else "new"
            if onto != "barred":
                score = similarity.relation(r) + entity_score[t]
                name = explorer.relation_name(r)
                steps.append(Step(i, r, f, t, shown[t], score, name, revisit=onto == "end"))
        steps = sorted(mark_copies(steps) if copies_last else steps, key=_rank)
        immediate.append(steps if per_relation else steps[: 3 * top_m])

    # the look-ahead is paid for the best 3·top_m steps of each end only
    best = {s.node for steps in immediate for s in steps[: 3 * top_m]}
    ahead_nodes = sorted(n for n in best if n.kind != "literal")
    ahead = explorer.relations(ahead_nodes, counted=False) if ahead_nodes and alpha else {}
    best_next = {
        node: max((similarity.relation(r) for r, _, _ in pairs), default=0.0)
        for node, pairs in ahead.items()
    }
    ranked = []
    for steps in immediate:
        scored = [
            replace(s, score=round(s.score + alpha * best_next.get(s.node, 0.0), 6)) for s in steps
        ]
        scored.sort(key=_rank)
        kept = by_relation(scored, top_m, per_relation) if per_relation else scored[:top_m]
        if per_relation:  # a relation with more steps than the cap was cut
            relations = {(s.relation, s.forward) for s in kept}
            capped |= len(kept) < sum((s.relation, s.forward) in relations for s in scored)
        ranked.append(kept)
    return Candidates(ranked, capped)


def _rank(s: Step) -> tuple[bool, float, str, Term]:
    return (s.copy, -s.score, s.relation, s.node)


def by_relation(steps: list[Step], top_m: int, cap: int) -> list[Step]:
    """Every step (`cap` each at most, best first) of the top-m relations (and directions),
    relations ranked by their best step."""
    kept = list(dict.fromkeys((s.relation, s.forward) for s in steps))[:top_m]
    taken: Counter[tuple[str, bool]] = Counter()
    out = []
    for s in steps:
        key = (s.relation, s.forward)
        if key in kept and taken[key] < cap:
            taken[key] += 1
            out.append(s)
    return out


def mark_copies(steps: list[Step]) -> list[Step]:
    """Flag the steps whose node only copies a sibling's name: another relation (or
    direction) from the same end reaches another node of the same name that is stronger, an
    entity where the copy is a literal, or a name with capitals where the copy is all lower
    case (MetaQA's tag "samuel fuller" beside the director Samuel Fuller)."""
    named: dict[str, list[Step]] = defaultdict(list)
    for s in steps:
        if s.label and s.label != COMPOUND:
            named[normalize_name(s.label)].append(s)

    def strength(s: Step) -> tuple[bool, bool]:
        return (not s.node.is_literal, s.label != s.label.lower())

    out = []
    for s in steps:
        siblings = named.get(normalize_name(s.label), []) if s.label != COMPOUND else []
        copy = any(
            (t.relation, t.forward) != (s.relation, s.forward)
            and t.node != s.node
            and strength(t) > strength(s)
            for t in siblings
        )
        out.append(replace(s, copy=True) if copy else s)
    return out
