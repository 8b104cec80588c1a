"""A person plays the relation-pruning step: the run pauses with `interrupt()` once per depth,
showing every frontier entity with the relations around it, and resumes with the choice.

The reply is `{entity: [relation, ...]}` (or `{entity: {relation: score}}`; a plain list when
the frontier holds one entity). Relations are written as listed (`<- name` against the
direction); unknown ones are ignored, at most `width` are kept per entity, and scores not given
are equal. No model call is made for this step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.types import interrupt

from readi_graph.strategies.tog.parsing import relation_key
from readi_graph.strategies.tog.state import FrontierEntity, ListedRelation

HUMAN_PRUNE = "tog_prune"  # the payload's `kind`, for apps that handle several interrupts
SHOWN = 60  # relations shown per entity (most similar to the question first)


def ask_person(
    question: str,
    depth: int,
    width: int,
    frontier: Sequence[FrontierEntity],
    listed: Sequence[list[ListedRelation]],
) -> list[list[tuple[int, float]]]:
    """Pause for a person; their choice as (index into `listed[i]`, score) per entity."""
    reply = interrupt(
        {
            "kind": HUMAN_PRUNE,
            "depth": depth,
            "width": width,
            "question": question,
            "entities": [
                {
                    "entity": e["name"],
                    "path": e["path"],
                    "relations": [r["name"] for r in rows[:SHOWN]],
                }
                for e, rows in zip(frontier, listed, strict=True)
            ],
            "reply_format": '{"entity": ["relation", ...]} (or {"entity": {"relation": score}}); '
            "a list of relations when there is one entity",
        }
    )
    if isinstance(reply, list | tuple) and len(frontier) == 1:
        reply = {frontier[0]["name"]: reply}
    if not isinstance(reply, dict):
        return [[] for _ in frontier]
    return [
        choice(reply.get(e["name"]) or reply.get(e["path"]), rows, width)
        for e, rows in zip(frontier, listed, strict=True)
    ]


def choice(value: Any, rows: Sequence[ListedRelation], width: int) -> list[tuple[int, float]]:
    """One entity's chosen relations: names matched as the model's are, scores clamped."""
    if isinstance(value, dict):
        items = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, list | tuple):
        items = [(str(k), None) for k in value]
    elif isinstance(value, str):
        items = [(value, None)]
    else:
        return []
    keys: dict[str, int] = {}
    for k, r in enumerate(rows):
        keys.setdefault(relation_key(r["name"]), k)
    chosen: list[tuple[int, Any]] = []
    for name, score in items:
        i = keys.get(relation_key(name))
        if i is not None and all(i != j for j, _ in chosen):
            chosen.append((i, score))
    chosen = chosen[:width]
    equal = 1.0 / len(chosen) if chosen else 0.0
    out = []
    for i, score in chosen:
        try:
            value_ = equal if score is None else min(max(float(score), 0.0), 1.0)
        except (TypeError, ValueError):
            value_ = equal
        out.append((i, value_))
    return out
