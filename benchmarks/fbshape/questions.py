"""Gold paths with their answers, computed by walking the generated edges.

A path is sampled by a random walk (one relation picked uniformly among those at the node, so
rare relations show up as often as the hub's; no step straight back over the edge just taken),
and then its answers are the set walk from the topic over the path's relations, exactly what a
SPARQL property path gives on the written triples. Kept: 1 to `max_answers` answers, none a CVT,
and not booleans (Virtuoso returns them as 0/1, so they would not compare as strings).

Three kinds are asked for: plain walks from a random entity; walks through a hub (the hub is the
topic or the walk passes it; the step leaving the hub is not a hub relation, or the answer set
would be a million); walks through a CVT node (e.g. person -> marriage -> spouse).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .edges import Edges


@dataclass
class Question:
    topic: int
    steps: list[tuple[int, bool]]  # (relation index, forward)
    answers: np.ndarray
    last_kind: str
    through_hub: bool
    through_cvt: bool


class Graph:
    """Edges sorted by (subject, relation) and by (object, relation) for entity objects."""

    def __init__(self, edges: list[Edges], cvt: np.ndarray, hubs: set[int], reverse, hub_rels):
        self.rels = [e.relation for e in edges]
        self.kinds = [e.kind for e in edges]
        self.nr = nr = len(edges)
        self.cvt, self.hubs = cvt, hubs
        at = {r: i for i, r in enumerate(self.rels)}
        self.reverse = {at[a]: at[b] for a, b in reverse.items() if a in at and b in at}
        hub_idx = {at[r] for r in hub_rels} | {at[reverse[r]] for r in hub_rels if r in reverse}
        self.hub_groups = {(r, f) for r in hub_idx for f in (True, False)}
        p = np.concatenate([np.full(len(e.s), i, dtype=np.int64) for i, e in enumerate(edges)])
        s = np.concatenate([e.s for e in edges])
        o = np.concatenate([e.o for e in edges])
        fkey = s * nr + p
        order = np.argsort(fkey, kind="stable")
        self.fkey, self.fo = fkey[order], o[order]
        entity = np.array([k == "entity" for k in self.kinds])[p]
        bkey = o[entity] * nr + p[entity]
        order = np.argsort(bkey, kind="stable")
        self.bkey, self.bs = bkey[order], s[entity][order]

    def step(self, frontier: np.ndarray, rel: int, forward: bool, cap: int) -> np.ndarray | None:
        """The nodes (or literal codes) one hop away; None past `cap` edges."""
        keys, values = (self.fkey, self.fo) if forward else (self.bkey, self.bs)
        want = frontier * self.nr + rel
        lo = np.searchsorted(keys, want, "left")
        lens = np.searchsorted(keys, want, "right") - lo
        total = int(lens.sum())
        if total > cap:
            return None
        at = np.repeat(lo - np.cumsum(lens) + lens, lens) + np.arange(total)
        return np.unique(values[at])

    def groups(self, v: int, literals: bool) -> list[tuple[int, bool]]:
        """The (relation, forward) pairs at node `v`."""
        out = []
        for keys, forward in ((self.fkey, True), (self.bkey, False)):
            lo, hi = np.searchsorted(keys, [v * self.nr, (v + 1) * self.nr])
            rels = keys[lo:hi] - v * self.nr
            if len(rels):
                rels = rels[np.r_[True, rels[1:] != rels[:-1]]]
            out += [(int(r), forward) for r in rels if literals or self.kinds[r] == "entity"]
        return out

    def undo(self, rel: int, forward: bool) -> set[tuple[int, bool]]:
        """The groups that walk straight back over the step just taken."""
        back = {(rel, not forward)}
        if rel in self.reverse:
            back.add((self.reverse[rel], forward))
        return back

    def hop(self, rng, v: int, rel: int, forward: bool) -> int:
        keys, values = (self.fkey, self.fo) if forward else (self.bkey, self.bs)
        lo, hi = np.searchsorted(keys, [v * self.nr + rel, v * self.nr + rel + 1])
        return int(values[rng.integers(lo, hi)])


def _walk(g: Graph, rng, v: int, hops: int, backward: bool, first_avoid: set):
    """`hops` random steps from `v`: (steps, end node, first group taken), or None at a dead
    end. Walking backward gives the steps as read from the end node towards `v`."""
    steps: list[tuple[int, bool]] = []
    avoid, first = first_avoid, None
    for i in range(hops):
        literal_ok = not backward and i == hops - 1
        choices = [c for c in g.groups(v, literal_ok) if c not in avoid]
        if not choices:
            return None
        rel, forward = choices[rng.integers(len(choices))]
        first = first or (rel, forward)
        v = g.hop(rng, v, rel, forward)
        avoid = g.undo(rel, forward)
        steps.append((rel, not forward) if backward else (rel, forward))
    if backward:
        steps.reverse()
    return steps, v, first


def evaluate(g: Graph, topic: int, steps, max_answers: int, cap: int = 50_000):
    """The path's answers, and whether it passed a hub / a CVT; None if it is no question."""
    frontier = np.array([topic], dtype=np.int64)
    hubs = np.array(sorted(g.hubs), dtype=np.int64)
    hub, cvt = topic in g.hubs, False
    for i, (rel, forward) in enumerate(steps):
        if i:
            hub = hub or bool(np.isin(hubs, frontier).any())
            cvt = cvt or bool(g.cvt[frontier].any())
        frontier = g.step(frontier, rel, forward, cap)
        if frontier is None or not len(frontier):
            return None
    last = g.kinds[steps[-1][0]]
    if (
        last == "bool"
        or len(frontier) > max_answers
        or (last == "entity" and g.cvt[frontier].any())
    ):
        return None
    return Question(topic, list(steps), frontier, last, hub, cvt)


MODES = {1: {"plain": 0.7, "hub": 0.3}, 2: {"plain": 0.4, "hub": 0.25, "cvt": 0.35}}
MODES[3] = MODES[2]


def _attempt(g: Graph, rng, mode: str, hops: int, max_answers: int, cvt_nodes: np.ndarray):
    if mode == "plain":
        v, j = int(g.fkey[rng.integers(len(g.fkey))] // g.nr), 0
    elif mode == "hub":
        v, j = int(sorted(g.hubs)[rng.integers(len(g.hubs))]), int(rng.integers(0, hops))
    else:
        v, j = int(cvt_nodes[rng.integers(len(cvt_nodes))]), int(rng.integers(1, hops))
    back = _walk(g, rng, v, j, True, set()) if j else ([], v, None)
    if back is None or g.cvt[back[1]]:
        return None
    avoid = g.hub_groups if mode == "hub" else g.undo(back[2][0], not back[2][1]) if j else set()
    ahead = _walk(g, rng, v, hops - j, False, avoid)
    if ahead is None:
        return None
    return evaluate(g, back[1], back[0] + ahead[0], max_answers)


def make_questions(g: Graph, seed: int, per_hop: int, max_answers: int) -> list[Question]:
    """`per_hop` questions of 1, 2 and 3 hops, split between the modes as MODES says (fewer if
    a mode keeps failing, e.g. on a tiny graph)."""
    rng = np.random.default_rng([seed, 1])
    cvt_nodes = np.flatnonzero(g.cvt)
    out, seen = [], set()
    for hops, modes in MODES.items():
        for mode, share in modes.items():
            want, tries, got = round(per_hop * share), 0, 0
            while got < want and tries < 80 * want and (mode != "cvt" or len(cvt_nodes)):
                tries += 1
                q = _attempt(g, rng, mode, hops, max_answers, cvt_nodes)
                key = q and (q.topic, tuple(q.steps))
                if q is not None and key not in seen:
                    seen.add(key)
                    out.append(q)
                    got += 1
    return out
