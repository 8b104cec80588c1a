"""Readi's answer material over a KG: the final plan's instances, shown as chains.

The evidence comes only from the paths of the final plan (a topic entity whose path an edit
dropped contributes nothing), and the prompt says which path reached what: only the paths
that reached their end offer answers (their merged ends, paper §4.5); a path that stopped is
named with where it stopped. `evidence_layout="flat"` keeps the paper's form instead: the
merged instances as one set of triples (cut, over the cap, by whole connected groups, the
ones sharing most words with the question first).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from readi_graph.core.base import Term, Triple
from readi_graph.core.state import ReadiState
from readi_graph.environments.kg.answer_evidence.chains import Link, Step, Walk
from readi_graph.environments.kg.answer_evidence.show import LAYOUT, Shown, show
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.editing import dropped_topics
from readi_graph.environments.kg.reasoning.instantiation import Instance, merge
from readi_graph.environments.kg.reasoning.records import instance_from
from readi_graph.environments.kg.reasoning.render import (
    by_relevance,
    compound_facts,
    labelled_triples,
    triples_text,
)

FEW = 3  # a stopped hop's starting nodes are named up to this many

READI_LAYOUT = LAYOUT + (
    " Only a path that reached its end offers answers; a hop may also have walked relations "
    "that merely resemble its words: use the chains whose relations fit the question."
)


def final_instances(state: ReadiState) -> tuple[list[Instance], list[str]]:
    """The instances of the final plan's paths, and notes on the paths it dropped (a topic
    entity mapped to an empty list)."""
    chosen = state.get("best_instances") or state.get("instances") or []
    # an unreadable reply keeps the drops of the plan before it (`unreadable_plan`)
    dropped = dropped_topics(state.get("plan"))
    instances, notes = [], []
    for record in chosen:
        topic = record["path"]["topic"]
        if topic in dropped:
            notes.append(f'The path from "{topic}" was dropped from the plan; it is not shown.')
            continue
        instances.append(instance_from(record))
    return instances, notes


def _step(kg: KnowledgeGraph, instance: Instance, hop: int) -> Step:
    """The hop's words and the relations it walked, in the order binding ranked them."""
    h = instance.hops[hop] if hop < len(instance.hops) else None
    words = instance.path.relations[hop]
    if h is None:
        return Step(words, ())
    place = {c.relation: i for i, c in reversed(list(enumerate(h.candidates)))}
    walked = sorted(h.matched, key=lambda rf: (place.get(rf[0], len(place)), not rf[1]))
    return Step(words, tuple(_named(kg, r, f) for r, f in walked))


def _named(kg: KnowledgeGraph, relation: str, forward: bool) -> str:
    name = kg.relation_name(relation)
    return name if forward else f"<- {name}"


def _walk(
    kg: KnowledgeGraph, instance: Instance, status: str, ends: set[Term] | None, answers: bool
) -> Walk:
    layers = instance.chains(ends) if instance.depth else []
    links = [
        [Link(e.source, e.target, (e.triple,), _named(kg, e.relation, e.forward)) for e in layer]
        for layer in layers
    ]
    return Walk(
        topic=instance.path.topic,
        starts=frozenset(instance.start.nodes),
        steps=[_step(kg, instance, h) for h in range(len(instance.path.relations))],
        links=links,
        status=status,
        answers=answers,
        ends=None if ends is None else frozenset(ends),
    )


def _status(kg: KnowledgeGraph, instance: Instance, ends: int) -> str:
    """What the path reached, in words that say what happened (the entity missing, or which
    hop found no relation from where)."""
    n = len(instance.path.relations)
    if not instance.start.found:
        return "not walked: the topic entity is not in the knowledge graph; it offers no answers"
    if not n:
        return "no relations; it offers no answers"
    if instance.complete:
        labels = kg.labels(instance.frontier)
        if all(kg.is_compound(t, labels.get(t)) for t in instance.frontier):
            return f"reached its end, but only at compound nodes ({ends})"
        return f"reached its end ({ends} end node{'s' if ends != 1 else ''})"
    at = instance.failed_at or 0
    words = instance.path.relations[at]
    return (
        f'stopped at hop {at + 1} of {n}: no relation walked for "{words}" from '
        f"{_where(kg, instance, at)}; it offers no answers"
    )


def _where(kg: KnowledgeGraph, instance: Instance, hop: int) -> str:
    """Where a hop started: the topic entity, or the nodes the hop before reached (named
    when there are few)."""
    if not hop:
        return f'"{instance.path.topic}"'
    nodes = instance.frontier
    labels = kg.labels(nodes[:FEW])
    named = [
        kg.display(t, labels.get(t)) for t in nodes[:FEW] if not kg.is_compound(t, labels.get(t))
    ]
    reached = f"the {len(nodes)} node{'s' if len(nodes) != 1 else ''} hop {hop} reached"
    if len(nodes) <= FEW and len(named) == len(nodes):
        return f"{reached} ({', '.join(named)})"
    return reached


def walks(kg: KnowledgeGraph, instances: Sequence[Instance]) -> tuple[list[Walk], list[str]]:
    """One walk per path and the notes on how the paths combine (paper §4.5)."""
    merged = merge(instances)
    if merged.answers:
        keys = {t.answer_key() for t in merged.answers}
        voters = [i for i in instances if i.complete and i.frontier]
        out = []
        for i in instances:
            if i in voters:
                ends = {t for t in i.frontier if t.answer_key() in keys}
                out.append(_walk(kg, i, _status(kg, i, len(i.frontier)), ends, True))
            else:
                out.append(_walk(kg, i, _status(kg, i, 0), set(), False))
        notes = []
        if len(voters) > 1 and merged.intersected:
            notes.append(
                f"The chains shown end at the {len(merged.answers)} end nodes that every path "
                "that reached its end reached (their intersection)."
            )
        elif len(voters) > 1:
            topics = " and ".join(f'"{i.path.topic}"' for i in voters)
            notes.append(
                f"The paths from {topics} reached their end but share no answer: the ends of "
                "each satisfy only that path's constraint; none satisfies them all."
            )
        return out, notes
    deepest = max((i.depth for i in instances), default=0)
    out = [
        _walk(kg, i, _status(kg, i, 0), None if i.depth == deepest and deepest else set(), False)
        for i in instances
    ]
    notes = []
    if deepest:
        notes.append(
            f"No path reached its end; the chains shown are the deepest partial walk "
            f"({deepest} hop{'s' if deepest > 1 else ''}): they end where it stopped, not at "
            "answers."
        )
    return out, notes


def fallback(instances: Sequence[Instance]) -> tuple[Term, ...]:
    """The nodes to report when the model's answer cannot be read: the merged answers, else
    the ends of the deepest partial walks."""
    merged = merge(instances)
    if merged.answers:
        return merged.answers
    deepest = max((i.depth for i in instances), default=0)
    partial = [i for i in instances if i.depth == deepest and deepest > 0]
    return tuple(sorted({t for i in partial for t in i.frontier}, key=Term.sort_key))


def chains_evidence(
    kg: KnowledgeGraph, instances: Sequence[Instance], question: str, cap: int
) -> tuple[Shown, list[str]]:
    found, notes = walks(kg, instances)
    return show(kg, found, cap, question), notes


def flat_evidence(
    kg: KnowledgeGraph, instances: Sequence[Instance], question: str, topics: list[str], cap: int
) -> tuple[Shown, list[str]]:
    """The paper's form: the merged instances' triples as one sorted set (see the module)."""
    triples, notes = _flat_triples(instances)
    triples = triples + compound_facts(kg, triples)
    evidence = labelled_triples(kg, triples)
    rows: list[Any] = list(evidence)
    if len(rows) > cap:  # cut whole connected groups, the most relevant kept
        rows = by_relevance(question, evidence, cap, topics)
    if len(evidence) > len(rows):
        notes.append(
            f"{len(evidence) - len(rows)} of {len(evidence)} triples are not shown (whole "
            "connected groups were cut, those sharing the fewest words with the question first)."
        )
    names = list(dict.fromkeys(x for s, _, o in rows for x in (s, o)))
    shown = Shown(triples_text(rows, len(rows)), evidence, names)
    return shown, notes


def _flat_triples(instances: Sequence[Instance]) -> tuple[list[Triple], list[str]]:
    """The merge of complete instances, else the deepest prefixes, with notes saying which."""
    merged = merge(instances)
    if merged.answers:
        voters = [i for i in instances if i.complete and i.frontier]
        notes = []
        if not merged.intersected:
            topics = ", ".join(f'"{i.path.topic}"' for i in voters)
            notes.append(
                f"The constraints from {topics} share no answer; the answers of each are "
                "shown together (their union), not their intersection."
            )
        if len(voters) < len(instances):
            left = ", ".join(f'"{i.path.topic}"' for i in instances if i not in voters)
            notes.append(f"The path from {left} was not instantiated; it constrains nothing.")
        return merged.evidence, notes
    deepest = max((i.depth for i in instances), default=0)
    partial = [i for i in instances if i.depth == deepest and deepest > 0]
    notes = []
    if partial:
        steps = f"{deepest} step{'s' if deepest > 1 else ''}"
        notes.append(
            f"No path was instantiated to its end; the triples are the deepest partial walk "
            f"({steps})."
        )
    return sorted({t for i in partial for t in i.triples()}, key=Triple.sort_key), notes
