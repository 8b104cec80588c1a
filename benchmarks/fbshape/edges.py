"""The random edges of each planned relation, as integer arrays (no strings yet).

Subjects and objects are node ids; a literal relation's objects are codes that `render` turns
into dates, numbers or text. Entities are picked Zipf-like by their index in their type (index 0
is the most popular, so degrees follow a power law and the same entities are popular across
relations, as in Freebase); CVT nodes are picked uniformly; a literal relation gives each of
its subjects one value. Each relation's edges are distinct and have no self-loops, so what is
written is exactly what a store holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from .plan import Block, Plan, Pool

ZIPF_EXPONENT = 1.1
FIRST_DAY = 657072  # date(1800, 1, 1).toordinal(); dates run to the end of 2020
DAYS = 80722


@dataclass
class Edges:
    """One relation's edges; `kind` is "entity" or a literal kind."""

    relation: str
    kind: str
    s: np.ndarray
    o: np.ndarray


@cache
def _zipf_cdf(n: int) -> np.ndarray:
    return np.cumsum(np.arange(1, n + 1, dtype=np.float64) ** -ZIPF_EXPONENT)


def zipf(rng: np.random.Generator, pool: Pool, m: int, skip_first: bool = False) -> np.ndarray:
    """`m` node ids of `pool`, index i drawn with weight (i+1)^-a (index 0 left out if asked)."""
    skip = int(skip_first)
    cdf = _zipf_cdf(pool.size - skip)
    ranks = np.searchsorted(cdf, rng.random(m) * cdf[-1], side="right")
    return pool.start + skip + np.minimum(ranks, pool.size - skip - 1)


def literal_codes(rng: np.random.Generator, kind: str, m: int) -> np.ndarray:
    if kind == "date":
        return rng.integers(0, DAYS, m)
    if kind == "float":
        return rng.integers(0, 10_000, m) * 4 + rng.integers(1, 4, m)  # see render.literal
    if kind == "int":
        return (10 ** rng.uniform(0, 7, m)).astype(np.int64)
    if kind == "bool":
        return rng.integers(0, 2, m)
    return rng.integers(0, 2**31, m)  # text, string, key


def distinct_pairs(draw, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Up to `k` distinct (s, o) pairs, s != o, in the order `draw(m, first)` produced them;
    draws again for what duplicates took away."""
    s = o = np.empty(0, dtype=np.int64)
    for attempt in range(8):
        need = k - len(s)
        ds, do = draw(k if attempt == 0 else int(need * 1.3) + 16, attempt == 0)
        s, o = np.concatenate([s, ds]), np.concatenate([o, do])
        _, first = np.unique(s * 2**32 + o, return_index=True)
        first.sort()
        first = first[s[first] != o[first]]
        s, o = s[first], o[first]
        if len(s) >= k:
            break
    return s[:k], o[:k]


def _side(rng, pool: Pool, m: int, cover: bool, skip_first: bool) -> np.ndarray:
    if not pool.cvt:
        return zipf(rng, pool, m, skip_first)
    if cover:  # every CVT node once, then uniform
        head = rng.permutation(pool.size)[:m]
        tail = rng.integers(0, pool.size, m - len(head))
        return pool.start + np.concatenate([head, tail])
    return pool.start + rng.integers(0, pool.size, m)


def _hub_partners(rng, plan: Plan, block: Block) -> np.ndarray:
    """`hub_edges` distinct partners from the partner type's whole family, hub left out."""
    r = block.relation
    side = r.range if block.hub_is_subject else r.domain
    pool = plan.pools[side]
    pool = plan.pools[pool.base] if pool.base else pool
    hub = plan.hub_nodes[block.hub]
    if pool.start <= hub < pool.start + pool.size:
        picks = rng.choice(pool.size - 1, block.hub_edges, replace=False)
        return pool.start + picks + (picks >= hub - pool.start)
    return pool.start + rng.choice(pool.size, block.hub_edges, replace=False)


def block_edges(rng: np.random.Generator, plan: Plan, block: Block) -> Edges:
    r = block.relation
    dom = plan.pools[r.domain]
    if r.kind != "entity":
        s = dom.start + rng.choice(dom.size, block.k, replace=False)
        return Edges(r.id, r.kind, s, literal_codes(rng, r.kind, block.k))
    rng_pool = plan.pools[r.range]
    parts = []
    if block.hub:
        hub = np.int64(plan.hub_nodes[block.hub])
        partners = _hub_partners(rng, plan, block)
        fixed = np.full(len(partners), hub)
        parts.append((fixed, partners) if block.hub_is_subject else (partners, fixed))
    if block.owned is not None:  # each object a CVT node of the relation's own slice, once
        o = rng_pool.start + block.owned + rng.permutation(block.k)
        parts.append((zipf(rng, dom, block.k), o))
    elif block.exclusive:  # the subjects that are not partners each get one non-hub object
        taken = np.zeros(dom.size, dtype=bool)
        taken[parts[0][0] - dom.start] = True
        rest = dom.start + np.flatnonzero(~taken)
        parts.append((rest, zipf(rng, rng_pool, len(rest), skip_first=True)))
    else:
        skip_s = bool(block.hub) and block.hub_is_subject
        skip_o = bool(block.hub) and not block.hub_is_subject

        def draw(m: int, first: bool) -> tuple[np.ndarray, np.ndarray]:
            cover = block.cover and first
            s = _side(rng, dom, m, cover, skip_s)
            return s, _side(rng, rng_pool, m, cover, skip_o)

        parts.append(distinct_pairs(draw, block.k))
    s = np.concatenate([p[0] for p in parts]).astype(np.int64)
    o = np.concatenate([p[1] for p in parts]).astype(np.int64)
    return Edges(r.id, "entity", s, o)


def all_edges(plan: Plan, seed: int) -> list[Edges]:
    """Every relation's edges, masters then their mirrors, in relation id order."""
    rng = np.random.default_rng(seed)
    out = []
    for block in plan.blocks:
        e = block_edges(rng, plan, block)
        out.append(e)
        if block.relation.reverse:
            out.append(Edges(block.relation.reverse, "entity", e.o, e.s))
    return sorted(out, key=lambda e: e.relation)
