"""Where a stuck path can go: the relations around the nodes it stopped at, ranked by the
question; which of them lead on and which only back the way the path came; and the relations
at each earlier step, to back up to.

On a per-question subgraph (RoG's, or what one run retrieved) a compound node is often held
by the one edge that reached it: every relation around it points back. Offering those as
"the relation that leads on" sent an editor round in circles, so the steerable feedback reads
the edges of each relation once (one bounded query) and keeps only those that reach a node
the path did not just come from.
"""

from __future__ import annotations

from collections.abc import Sequence

from readi_graph.core.base import Term
from readi_graph.core.diagnosis import CandidateRelation
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.instantiation import Instance
from readi_graph.environments.kg.store import sparql

Pair = tuple[str, bool]  # (relation, forward)
Step = tuple[int, str, list[CandidateRelation]]  # (step from 1, where it started, relations)

# Relations around a stuck node checked edge by edge; a node with more has too many for all of
# them to lead back, and only the ranked candidates are checked.
MAX_CHECKED = 80


def ranked(
    kg: KnowledgeGraph, pairs: Sequence[Pair], query: str, cap: int
) -> list[CandidateRelation]:
    """`pairs`, most similar to `query` first, forward before backward, at most `cap`."""
    ranked = kg.relation_index.rank(query, [p for p, _ in pairs])[:cap]
    order = {p: i for i, p in enumerate(ranked)}
    kept = sorted(
        ((p, forward) for p, forward in set(pairs) if p in order),
        key=lambda pf: (order[pf[0]], not pf[1]),
    )
    return [CandidateRelation(p, forward, kg.relation_name(p)) for p, forward in kept][:cap]


def back_nodes(kg: KnowledgeGraph, instance: Instance) -> set[Term]:
    """The nodes a step from the stuck nodes would only go back to: those the last step came
    from, and the topic entity (the walk never returns to it unless `revisit_topic`)."""
    layers = instance.chains()
    back = {e.source for e in layers[-1]} if layers else set()
    if back and not kg.settings.revisit_topic:
        back |= set(instance.start.nodes)
    return back


def leading(
    kg: KnowledgeGraph, instance: Instance, pairs: Sequence[Pair], sample: int
) -> dict[Pair, bool]:
    """For each pair around the instance's stuck nodes: does it lead on (True), or only back
    the way the path came (False)? One query, each relation's rows capped: a relation with more
    rows than read, or none read, counts as leading on (nothing is claimed that was not seen)."""
    back = back_nodes(kg, instance)
    safe = [(p, f) for p, f in pairs if sparql.is_safe_iri(p)]
    if not back or not safe:
        return dict.fromkeys(pairs, True)
    stuck = tuple(instance.frontier[: min(sample, kg.settings.chunk_size)])
    walked = sum(len(layer) for layer in instance.chains()[-1:])
    limit = min(kg.settings.rows_per_relation, walked + len(stuck)) + 1
    found = kg.read([sparql.Branch(stuck, p, f, limit) for p, f in safe])
    targets: dict[Pair, list[Term]] = {}
    for edge in found.edges:
        targets.setdefault((edge.relation, edge.forward), []).append(edge.target)
    out = dict.fromkeys(pairs, True)
    for pair in safe:
        seen = targets.get(pair, [])
        whole = bool(seen) and len(seen) < limit and not found.truncated
        out[pair] = not whole or any(t not in back for t in seen)
    return out


def around(
    kg: KnowledgeGraph, instance: Instance, query: str, cap: int, sample: int
) -> tuple[list[Pair], dict[Pair, bool], bool]:
    """(the pairs around the stuck nodes, whether each leads on, whether none does). Past
    `MAX_CHECKED` pairs only the `cap` best ranked are checked, and no dead end is claimed."""
    pairs = kg.relations_around(instance.frontier[:sample])
    if len(pairs) <= MAX_CHECKED:
        leads = leading(kg, instance, pairs, sample)
        return pairs, leads, not any(leads.values())
    best = [(c.relation, c.forward) for c in ranked(kg, pairs, query, cap)]
    return pairs, {**dict.fromkeys(pairs, True), **leading(kg, instance, best, sample)}, False


def earlier_steps(
    kg: KnowledgeGraph, instance: Instance, upto: int, query: str, cap: int, sample: int
) -> list[Step]:
    """For each of the first `upto` steps: where it started, and the relations there."""
    layers = instance.chains()
    starts = [
        sorted(instance.start.nodes),
        *(sorted({e.target for e in layer}) for layer in layers),
    ]
    out = []
    for step, nodes in enumerate(starts[:upto], 1):  # a step reached >= 1 node
        first = nodes[0]
        shown = kg.display(first, kg.labels([first]).get(first))
        where = shown if len(nodes) == 1 else f"{shown} and {len(nodes) - 1} more"
        out.append((step, where, ranked(kg, kg.relations_around(nodes[:sample]), query, cap)))
    return out


def last_named_step(kg: KnowledgeGraph, instance: Instance, compound_end: bool) -> int:
    """The last step after which the walk reached a named node (0: none): the path could end
    there (the compound nodes a path ended in do not count)."""
    layers = instance.chains()
    for step in range(len(layers) - compound_end, 0, -1):
        reached = sorted({e.target for e in layers[step - 1]}, key=Term.sort_key)
        labels = kg.labels(reached)
        if any(not kg.is_compound(t, labels.get(t)) for t in reached):
            return step
    return 0


def other_ways(instance: Instance, steps: Sequence[Step]) -> bool:
    """Does some earlier step offer a relation other than the one the path walked there?"""
    for step, _, found in steps:
        walked = {r for r, _ in instance.hops[step - 1].matched}
        if any(c.relation not in walked for c in found):
            return True
    return False
