"""Diagnosis: why an instantiation got stuck, and what the editor needs to fix it.

The paper's reasons (§4.4) — irrelevant NL relation, empty path, path ending in compound
nodes — plus two the published code handles silently: an unknown topic entity and an
unparseable path. Each diagnosis carries the half-way instances and the relations around the
stuck nodes, ranked by similarity to the question and the failed relation. Everything is
ordered deterministically (no sampling), so a run can be reproduced and cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from readi_graph.core.base import Term
from readi_graph.core.diagnosis import CandidateRelation, Diagnosis, Reason
from readi_graph.environments.kg.instantiation import Instance
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph


def _render_chain(
    kg: KnowledgeGraph,
    chain: Sequence[Term],
    relations: Sequence[str],
    labels: dict[Term, str | None],
) -> str:
    parts = [kg.display(chain[0], labels.get(chain[0]))]
    for relation, node in zip(relations, chain[1:], strict=True):
        parts += [kg.relation_name(relation), kg.display(node, labels.get(node))]
    return " -> ".join(parts)


def halfway_instances(kg: KnowledgeGraph, instance: Instance, cap: int) -> list[str]:
    """Up to `cap` walks from the topic entity to the deepest layer reached, one per end node.

    Each layer has its own back pointers: on real KGs a node is often reached at two
    different steps (cycles, hubs), and one map over all layers would walk back past the
    topic entity."""
    layers = instance.chains()
    if not layers:
        return []
    back: list[dict[Term, tuple[Term, str]]] = []
    for layer in layers:
        pointers: dict[Term, tuple[Term, str]] = {}
        for edge in sorted(layer):
            pointers.setdefault(edge.target, (edge.source, edge.relation))
        back.append(pointers)
    ends = sorted(back[-1])
    labels = kg.labels({t for p in back for t in p} | {s for p in back for s, _ in p.values()})
    rendered: list[str] = []
    for end in ends:
        nodes, relations = [end], []
        for pointers in reversed(back):
            source, relation = pointers[nodes[-1]]
            nodes.append(source)
            relations.append(relation)
        line = _render_chain(kg, nodes[::-1], relations[::-1], labels)
        if line not in rendered:
            rendered.append(line)
    return sorted(rendered)[:cap]


def _ranked(kg: KnowledgeGraph, nodes: Sequence[Term], query: str, cap: int) -> list[Any]:
    """Relations around `nodes`, most similar to `query` first, forward before backward."""
    around = kg.relations_around(nodes)
    ranked = kg.relation_index.rank(query, [p for p, _ in around])[:cap]
    order = {p: i for i, p in enumerate(ranked)}
    kept = sorted(
        ((p, forward) for p, forward in around if p in order),
        key=lambda pf: (order[pf[0]], not pf[1]),
    )
    return [CandidateRelation(p, forward, kg.relation_name(p)) for p, forward in kept][:cap]


def _earlier(
    kg: KnowledgeGraph, instance: Instance, query: str, cap: int, sample: int
) -> list[tuple[int, str, list[CandidateRelation]]]:
    """For each step before the failed one: where it started, and the relations there."""
    if not instance.failed_at:
        return []
    layers = instance.chains()
    starts = [
        sorted(instance.start.nodes),
        *(sorted({e.target for e in layer}) for layer in layers),
    ]
    out = []
    for step, nodes in enumerate(starts[: instance.failed_at], 1):  # a step reached >= 1 node
        first = nodes[0]
        shown = kg.display(first, kg.labels([first]).get(first))
        where = shown if len(nodes) == 1 else f"{shown} and {len(nodes) - 1} more"
        out.append((step, where, _ranked(kg, nodes[:sample], query, cap)))
    return out


def diagnose(
    kg: KnowledgeGraph,
    question: str,
    instances: Sequence[Instance],
    *,
    halfway_cap: int = 15,
    candidate_cap: int = 35,
    stuck_sample: int = 200,
    earlier_cap: int = 8,
) -> Diagnosis:
    """What went wrong with each path, or an empty diagnosis when all instantiated."""
    diagnosis = Diagnosis()
    stuck: list[Term] = []
    failed_relations: list[str] = []
    for instance in instances:
        path = instance.path
        if not instance.start.found:
            diagnosis.reasons.append(
                Reason(
                    "unknown_entity",
                    f'topic entity "{path.topic}" is not in the knowledge graph',
                    topic=path.topic,
                )
            )
            continue
        if not path.relations:
            diagnosis.reasons.append(
                Reason(
                    "empty_path", f'the path from "{path.topic}" has no relation', topic=path.topic
                )
            )
            stuck.extend(instance.frontier)
            continue
        if instance.failed_at is not None:
            relation = path.relations[instance.failed_at]
            diagnosis.reasons.append(
                Reason(
                    "irrelevant_relation",
                    f'relation "{relation}" (step {instance.failed_at + 1} from "{path.topic}") '
                    "is not instantiated: none of its candidate KG relations connects",
                    topic=path.topic,
                    position=instance.failed_at,
                    relation=relation,
                )
            )
            stuck.extend(instance.frontier)
            failed_relations.append(relation)
            query = f"{relation} {question}"
            diagnosis.earlier += _earlier(kg, instance, query, earlier_cap, stuck_sample)
        else:
            labels = kg.labels(instance.frontier)
            if all(kg.is_compound(t, labels.get(t)) for t in instance.frontier):
                diagnosis.reasons.append(
                    Reason(
                        "compound_end",
                        f'the path from "{path.topic}" ends in compound nodes (<compound>), '
                        "which are not answers: add the relation that leads on to a named entity",
                        topic=path.topic,
                        position=len(path.relations) - 1,
                    )
                )
                stuck.extend(instance.frontier)
        if diagnosis.reasons and diagnosis.reasons[-1].topic == path.topic:
            diagnosis.halfway += halfway_instances(kg, instance, halfway_cap)
    diagnosis.halfway = diagnosis.halfway[:halfway_cap]
    if stuck:
        query = " ".join([*failed_relations, question])
        nodes = sorted(set(stuck))[:stuck_sample]
        diagnosis.candidates = _ranked(kg, nodes, query, candidate_cap)
    return diagnosis
