"""How many entities of each type, and how many edges of each relation, for a triple budget.

Everything here is counts; nothing random but the placement of subtypes inside their family.
Counts follow the real frequencies times one `scale`, chosen (by bisection) so that the planned
number of triples reaches the requested one. Population sizes are a guess Freebase does not give:

* a type with literal properties has about as many entities as its most frequent literal
  property has values (each person has one date of birth);
* a type with none (genders, professions) is a small vocabulary: twice the square root of the
  edges that touch it;
* a CVT type has two thirds as many nodes as its biggest link has edges (the biggest link
  covers every node at least once: every marriage has a spouse, some have two), or, when
  entities own its nodes through one-way relations (`location.statistical_region.population`
  -> `measurement_unit.dated_integer`), exactly one node per owning edge: each such relation gets
  its own slice of the nodes, so no two entities share a population figure.

Hubs come on top: a hub is entity 0 of its type, and each hub relation gives it `share` x the
requested triples edges to distinct partners, which are added to the partner type's population.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .schema import Relation, Schema

CVT_FANOUT = 1.5


@dataclass(frozen=True)
class HubSpec:
    """`relation` links the hub to `share` x triples partners. `exclusive`: the relation is
    functional (gender), so every subject that is not a partner gets one other object."""

    name: str
    type: str
    relation: str
    hub_is_subject: bool
    share: float
    exclusive: bool = False


DEFAULT_HUBS = (
    HubSpec(
        "United States of America", "location.location", "location.location.contains", True, 0.05
    ),
    HubSpec(
        "United States of America", "location.location", "people.person.nationality", False, 0.06
    ),
    HubSpec("Male", "people.gender", "people.person.gender", False, 0.105, exclusive=True),
)


@dataclass
class Pool:
    type: str
    start: int
    size: int
    cvt: bool
    base: str | None = None  # family base type when this pool is a range inside it


@dataclass
class Block:
    """The edges of one relation (the master of a reverse pair): `k` ordinary edges, plus
    `hub_edges` from/to `hub` when the relation is a hub relation."""

    relation: Relation
    k: int
    cover: bool = False  # the biggest link of a CVT type: every CVT node gets one
    owned: int | None = None  # owning link: its objects are the CVT nodes from here on, once each
    hub: str | None = None
    hub_is_subject: bool = False
    hub_edges: int = 0
    exclusive: bool = False


@dataclass
class Plan:
    scale: float
    pools: dict[str, Pool]
    blocks: list[Block]
    hub_nodes: dict[str, int] = field(default_factory=dict)  # hub name -> node id
    nodes: int = 0
    triples: int = 0


def masters(schema: Schema, hubs: tuple[HubSpec, ...]) -> list[Relation]:
    """One relation per reverse pair: the one a hub names, else the one leaving a CVT, else the
    smaller id. The other is written as the mirror of the master's edges."""
    named = {h.relation for h in hubs}
    out = []
    for r in sorted(schema.relations.values(), key=lambda r: r.id):
        other = schema.relations[r.reverse] if r.reverse else None
        if other is None:
            out.append(r)
            continue
        mine = (r.id in named, r.domain in schema.cvts, other.id > r.id)
        theirs = (other.id in named, other.domain in schema.cvts, r.id > other.id)
        if mine > theirs:
            out.append(r)
    return out


def _natural_sizes(schema: Schema, rels: list[Relation], scale: float) -> dict[str, int]:
    """Population of every type the relations touch (see the module docstring)."""
    literal_max: dict[str, int] = {}
    touching: dict[str, float] = {}
    link_max: dict[str, int] = {}
    owned: dict[str, int] = {}
    for r in rels:
        k = round(scale * r.freq)
        if _owns(schema, r):
            owned[r.range] = owned.get(r.range, 0) + k
        ends = [r.domain] if r.kind != "entity" else [r.domain, r.range]
        if r.kind != "entity":
            literal_max[r.domain] = max(literal_max.get(r.domain, 0), k)
        for t in ends:
            touching[t] = touching.get(t, 0) + k * (2 if r.reverse else 1)
            link_max[t] = max(link_max.get(t, 0), k)
    sizes = {}
    for t in touching:
        if t in schema.cvts:
            n = max(owned.get(t, 0), math.ceil(link_max.get(t, 1) / CVT_FANOUT))
        elif t in literal_max:
            n = literal_max[t]
        else:
            n = math.ceil(2 * math.sqrt(touching.get(t, 1)))
        sizes[t] = max(3, n)
    return sizes


def _layout(schema: Schema, sizes: dict[str, int], extra: dict[str, int], hubs, seed: int):
    """Node ids: one contiguous range per base type (extra partners at its end); subtypes are
    ranges inside their base at a seeded offset (offset 0 when a hub has that subtype)."""
    pools: dict[str, Pool] = {}
    rng = np.random.default_rng([seed, 7])
    at_zero = {h.type for h in hubs} | _hub_side_types(schema, hubs)
    start = 0
    subtypes = sorted(t for t in sizes if t in schema.base_of)
    for t in sorted(t for t in sizes if t not in schema.base_of):
        biggest_sub = max((sizes[s] for s in subtypes if schema.base_of[s] == t), default=0)
        size = max(sizes[t], biggest_sub) + extra.get(t, 0)
        pools[t] = Pool(t, start, size, t in schema.cvts)
        start += size
    for s in subtypes:
        base = pools[schema.base_of[s]]
        room = base.size - extra.get(base.type, 0) - sizes[s]
        offset = 0 if s in at_zero else int(rng.integers(0, room + 1))
        pools[s] = Pool(s, base.start + offset, sizes[s], False, base.type)
    return pools, start


def _hub_side_types(schema: Schema, hubs) -> set[str]:
    out = set()
    for h in hubs:
        r = schema.relations[h.relation]
        out.add(r.domain if h.hub_is_subject else r.range)
    return out


def make_plan(schema: Schema, triples: int, scale: float, hubs=DEFAULT_HUBS, seed: int = 0) -> Plan:
    """The plan at `scale`: a relation appears when scale x its count rounds to 1 or more (the
    hub relations always do)."""
    named = {h.relation for h in hubs}
    rels = [r for r in masters(schema, hubs) if round(scale * r.freq) or r.id in named]
    hub_of = {h.relation: h for h in hubs}  # masters() keeps the relations hubs name
    sizes = _natural_sizes(schema, rels, scale)
    extra: dict[str, int] = {}
    for h in hubs:
        r = schema.relations[h.relation]
        partner = r.range if h.hub_is_subject else r.domain
        partner = schema.base_of.get(partner, partner)
        extra[partner] = max(extra.get(partner, 0), round(h.share * triples))
    pools, nodes = _layout(schema, sizes, extra, hubs, seed)
    plan = Plan(scale, pools, [], nodes=nodes)
    for h in hubs:
        plan.hub_nodes[h.name] = pools[h.type].start
    top_link, slices = _cvt_links(schema, rels, scale)
    for r in rels:
        plan.blocks.append(_block(r, scale, pools, hub_of.get(r.id), top_link, triples))
        plan.blocks[-1].owned = slices.get(r.id)
    plan.triples = count_triples(plan)
    return plan


def _owns(schema: Schema, r: Relation) -> bool:
    """An entity -> CVT relation with no reverse: the CVT node belongs to that one entity."""
    return (
        r.kind == "entity"
        and r.reverse is None
        and r.range in schema.cvts
        and r.domain not in schema.cvts
    )


def _cvt_links(schema: Schema, rels: list[Relation], scale: float):
    """The covering link of each CVT type nobody owns, and each owning link's slice start."""
    best: dict[str, tuple[int, str]] = {}
    slices: dict[str, int] = {}
    used: dict[str, int] = {}
    for r in rels:
        k = round(scale * r.freq)
        if _owns(schema, r):
            slices[r.id] = used.get(r.range, 0)
            used[r.range] = slices[r.id] + k
        for t in (r.domain, r.range):
            if t in schema.cvts and (k, r.id) > best.get(t, (-1, "")):
                best[t] = (k, r.id)
    return {rid for t, (_, rid) in best.items() if t not in used}, slices


def _block(r: Relation, scale, pools, hub: HubSpec | None, top_link, triples) -> Block:
    dom = pools[r.domain]
    k = round(scale * r.freq)
    if r.kind != "entity":
        return Block(r, min(k, dom.size))
    rng_pool = pools[r.range]
    k = min(k, dom.size * rng_pool.size // 2)
    block = Block(r, k, cover=r.id in top_link)
    if hub is not None:
        block.hub, block.hub_is_subject, block.exclusive = (
            hub.name,
            hub.hub_is_subject,
            hub.exclusive,
        )
        block.hub_edges = round(hub.share * triples)
        if hub.exclusive:  # every other subject gets exactly one (non-hub) object
            block.k = dom.size - block.hub_edges
    return block


def entity_triples(plan: Plan) -> int:
    """Names and types: one name per entity (not per CVT), one type per type a node has."""
    names = sum(p.size for p in plan.pools.values() if not p.cvt and p.base is None)
    return names + sum(p.size for p in plan.pools.values())


def count_triples(plan: Plan) -> int:
    edges = sum((b.k + b.hub_edges) * (2 if b.relation.reverse else 1) for b in plan.blocks)
    return entity_triples(plan) + edges


def plan_for(
    schema: Schema, triples: int, hubs=DEFAULT_HUBS, seed: int = 0, extra: int = 0
) -> Plan:
    """The smallest scale whose plan has at least `triples` + `extra` triples (hubs are sized
    on `triples` alone)."""

    def plan(scale: float) -> Plan:
        return make_plan(schema, triples, scale, hubs, seed)

    lo, hi = 0.0, 1.0
    while plan(hi).triples < triples + extra:
        lo, hi = hi, hi * 2
    for _ in range(40):
        mid = (lo + hi) / 2
        if plan(mid).triples >= triples + extra:
            hi = mid
        else:
            lo = mid
    return plan(hi)
