"""Think-on-Graph's run settings: the shared ones, the search's own, and its call bound."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from readi_graph.core.context import RunContext, settings_of


@dataclass(frozen=True, kw_only=True)
class TogContext(RunContext):
    width: int = field(
        default=3, metadata={"description": "W: relations kept per entity, entities per depth."}
    )
    depth: int = field(default=3, metadata={"description": "D: exploration depths at most."})
    prune: Literal["llm", "bm25", "dense"] = field(
        default="llm",
        metadata={
            "description": "Who scores relations and entities: the model (one call each), or "
            "BM25 / dense similarity to the question (no call; the official code's cheap modes)."
        },
    )
    entity_pruning: Literal["scored", "random", "dense"] = field(
        default="scored",
        metadata={
            "description": "scored: entities scored like relations (ToG); random (seeded) or "
            "dense similarity to the question: no entity-scoring call (ToG-R)."
        },
    )
    max_candidates: int = field(
        default=20,
        metadata={
            "description": "Tails per (entity, relation) shown for scoring; more are ranked by "
            "similarity to the question (dense when available), ties in a seeded order."
        },
    )
    seed: int = field(default=0, metadata={"description": "Seed of tie-breaks and ToG-R."})
    pruner: Literal["model", "human"] = field(
        default="model",
        metadata={
            "description": "Who chooses the relations to explore: the model, or a person (the "
            "run pauses with interrupt(); resume with {entity: [relations]}; needs a "
            "checkpointer)."
        },
    )


def call_bound(width: int, depth: int, topics: int) -> int:
    """The most model calls one question can take: per depth one relation call per frontier
    entity (the topic entities, then at most W), one entity-scoring call per kept (entity,
    relation), one sufficiency call; and one final answer: (1+W)(T0+(D-1)W) + D + 1."""
    if depth < 1 or topics < 1:
        return 0
    return (1 + width) * (topics + (depth - 1) * width) + depth + 1


def calls_bound(context: Any, topics: int) -> int:
    """`call_bound` at the run's settings, for the strategy registry and the ledger."""
    run = settings_of(context, TogContext)
    return call_bound(run.width, run.depth, max(topics, 1))
