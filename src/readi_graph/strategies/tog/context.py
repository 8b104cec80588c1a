"""Think-on-Graph's run settings: the shared ones, the search's own, and its call bound.

Where the defaults depart from the official code they say so; `TogContext.paper()` gives the
published behaviour (scores adding to 1, no relations shown per candidate, the cut at W, every
call made, the model's own knowledge when the graph gives nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from readi_graph.core.context import RunContext, require_at_least, settings_of


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
            "BM25 / dense similarity to the question (no call; the official code's cheap modes). "
            "dense needs the [embed] extra: refused without it."
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
    entity_scores: Literal["each", "share"] = field(
        default="each",
        metadata={
            "description": "each (default): every candidate scored on its own from 0 to 1, "
            "equal candidates equally, 'all' and 'none' allowed; share: the official scores "
            "adding up to 1 over the candidates."
        },
    )
    candidate_relations: int = field(
        default=6,
        metadata={
            "description": "Relations shown leaving each candidate to score (most similar to "
            "the question first, with their edge counts; one query per depth), so the model "
            "sees which candidates can go on; 0: not shown (the official prompt)."
        },
    )
    keep_ties: bool = field(
        default=True,
        metadata={
            "description": "Candidates scored like the W-th kept one are kept too, as evidence "
            "(only W are explored further); False: the official cut at W."
        },
    )
    skip_needless_calls: bool = field(
        default=True,
        metadata={
            "description": "No call whose reply cannot change the search: no entity scoring "
            "when at most W candidates are reached where they are the answers' candidates (the "
            "last depth, or no hops left), no sufficiency call when every relation choice of "
            "the depth said more hops are needed (the relation prompt asks for `Hops left: "
            "N`); False: every call the official code makes."
        },
    )
    no_evidence: Literal["say_so", "model_knowledge"] = field(
        default="say_so",
        metadata={
            "description": "With no triples (no topic entity found, nothing kept): say so, no "
            "call (default); or model_knowledge: one call answers from the model's own "
            "knowledge, as the official code does."
        },
    )

    # The published ToG's behaviour where the defaults depart from it (`paper()`).
    PAPER: ClassVar[Mapping[str, Any]] = MappingProxyType(
        {
            **RunContext.PAPER,
            "entity_scores": "share",
            "candidate_relations": 0,
            "keep_ties": False,
            "skip_needless_calls": False,
            "no_evidence": "model_knowledge",
        }
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        require_at_least(self, width=1, depth=1, max_candidates=1, candidate_relations=0)


def call_bound(width: int, depth: int, topics: int) -> int:
    """The most model calls one question can take: per depth one relation call per frontier
    entity (the topic entities, then at most W), one entity-scoring call per kept (entity,
    relation), one sufficiency call; and one final answer: (1+W)(T0+(D-1)W) + D + 1. With no
    topic entity the search makes none: 1 at most (the `no_evidence` answer)."""
    if depth < 1:
        return 0
    if topics < 1:
        return 1
    return (1 + width) * (topics + (depth - 1) * width) + depth + 1


def calls_bound(context: Any, topics: int) -> int:
    """`call_bound` at the run's settings, for the strategy registry and the ledger."""
    run = settings_of(context, TogContext)
    return call_bound(run.width, run.depth, max(topics, 1))
