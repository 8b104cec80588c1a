"""Diagnosis: why an instantiation got stuck, and what the editor needs to fix it.

The paper's reasons (§4.4) — irrelevant NL relation, empty path, path ending in compound
nodes — plus two the published code handles silently: an unknown topic entity and an
unparseable path. Each diagnosis carries the half-way instances and the relations around the
stuck nodes, ranked by similarity to the question and the failed relation. Everything is
ordered deterministically (no sampling), so a run can be reproduced and cached.

Two kinds of feedback (`ReadiContext.edit_feedback`): `paper`, what the published method
shows; `steerable` (the default), which also says what to do (add a relation, back up),
offers only relations that lead on from the stuck nodes (either direction), the relations at
each earlier step (compound ends included), what a relation the editor wrote was read as,
and whether anything at all is left to offer (`Diagnosis.hopeless`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from readi_graph.core.base import Term
from readi_graph.core.diagnosis import Diagnosis, Reason
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.candidates import (
    Pair,
    around,
    earlier_steps,
    last_named_step,
    other_ways,
    ranked,
)
from readi_graph.environments.kg.reasoning.feedback import (
    compound_message,
    empty_message,
    failed_message,
    read_as_notes,
)
from readi_graph.environments.kg.reasoning.instantiation import Instance

Feedback = Literal["steerable", "paper"]
EDITABLE = frozenset({"empty_path", "irrelevant_relation", "compound_end"})
NOTHING_LEFT = (
    "no relation leads on from where the paths stopped, no earlier step offers another "
    "relation, and no step reached a named entity to end at: no edit can reach further"
)


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


def _stuck_kind(kg: KnowledgeGraph, instance: Instance) -> str | None:
    """Which of the paper's reasons applies to a found topic's instance (None: it worked)."""
    if not instance.path.relations:
        return "empty_path"
    if instance.failed_at is not None:
        return "irrelevant_relation"
    labels = kg.labels(instance.frontier)
    if all(kg.is_compound(t, labels.get(t)) for t in instance.frontier):
        return "compound_end"
    return None


def _paper_reason(kind: str, instance: Instance) -> Reason:
    path = instance.path
    if kind == "empty_path":
        return Reason(
            "empty_path", f'the path from "{path.topic}" has no relation', topic=path.topic
        )
    if kind == "irrelevant_relation":
        position = instance.failed_at or 0
        relation = path.relations[position]
        return Reason(
            "irrelevant_relation",
            f'relation "{relation}" (step {position + 1} from "{path.topic}") '
            "is not instantiated: none of its candidate KG relations connects",
            topic=path.topic,
            position=position,
            relation=relation,
        )
    return Reason(
        "compound_end",
        f'the path from "{path.topic}" ends in compound nodes (<compound>), '
        "which are not answers: add the relation that leads on to a named entity",
        topic=path.topic,
        position=len(path.relations) - 1,
    )


def _steps_before(kind: str, instance: Instance) -> int:
    """How many steps an editor may back up over: those before the failed one, or every step
    of a path that ends in compound nodes (its last relation may be the wrong one)."""
    if kind == "irrelevant_relation":
        return instance.failed_at or 0
    return len(instance.path.relations) if kind == "compound_end" else 0


def _steerable_reason(kind: str, instance: Instance, message: str) -> Reason:
    paper = _paper_reason(kind, instance)
    return Reason(paper.kind, message, paper.topic, paper.position, paper.relation)


def diagnose(
    kg: KnowledgeGraph,
    question: str,
    instances: Sequence[Instance],
    *,
    feedback: Feedback = "steerable",
    offer: bool = True,
    halfway_cap: int = 15,
    candidate_cap: int = 35,
    stuck_sample: int = 200,
    earlier_cap: int = 8,
) -> Diagnosis:
    """What went wrong with each path, or an empty diagnosis when all instantiated.

    `offer=False` (no edit will read it: the budget is spent) gives the reasons alone, in
    the paper's words, without the queries that find candidates."""
    diagnosis = Diagnosis()
    steerable = feedback == "steerable" and offer
    stuck: list[Term] = []
    failed: list[str] = []
    offered: set[Pair] = set()
    ways_back = ends = False  # another relation at an earlier step; a named node to end at
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
        kind = _stuck_kind(kg, instance)
        if kind is None:
            continue
        if kind == "irrelevant_relation":
            failed.append(path.relations[instance.failed_at or 0])
        if not offer:
            diagnosis.reasons.append(_paper_reason(kind, instance))
            continue
        query = " ".join([*failed[-1:], question]) if kind == "irrelevant_relation" else question
        if steerable:
            pairs, leads, dead_end = around(kg, instance, query, candidate_cap, stuck_sample)
            offered |= {pair for pair in pairs if leads[pair]}
            end = last_named_step(kg, instance, kind == "compound_end")
            ends |= end > 0
            if kind == "irrelevant_relation":
                message = failed_message(kg, instance, leads, dead_end, end)
            elif kind == "compound_end":
                message = compound_message(instance, dead_end, end)
            else:
                message = empty_message(path.topic)
            diagnosis.reasons.append(_steerable_reason(kind, instance, message))
            diagnosis.notes += read_as_notes(kg, instance)
            steps = earlier_steps(
                kg, instance, _steps_before(kind, instance), query, earlier_cap, stuck_sample
            )
            diagnosis.earlier += steps
            ways_back |= other_ways(instance, steps)
        else:
            diagnosis.reasons.append(_paper_reason(kind, instance))
            stuck.extend(instance.frontier)
        diagnosis.halfway += halfway_instances(kg, instance, halfway_cap)
    diagnosis.halfway = diagnosis.halfway[:halfway_cap]
    query = " ".join([*failed, question])
    if stuck:
        nodes = sorted(set(stuck))[:stuck_sample]
        diagnosis.candidates = ranked(kg, kg.relations_around(nodes), query, candidate_cap)
    elif offered:
        diagnosis.candidates = ranked(kg, sorted(offered), query, candidate_cap)
    kinds = {r.kind for r in diagnosis.reasons}
    if steerable and kinds & EDITABLE and not (diagnosis.candidates or ways_back or ends):
        diagnosis.hopeless = NOTHING_LEFT
    return diagnosis
