"""FiDeLiS's run settings: the shared ones, and the beam search's own."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from readi_graph.core.context import RunContext, settings_of


@dataclass(frozen=True, kw_only=True)
class FidelisContext(RunContext):
    beam_width: int = field(default=4, metadata={"description": "Paths kept per step."})
    beam_depth: int = field(default=4, metadata={"description": "Steps at most."})
    alpha: float = field(default=0.3, metadata={"description": "Look-ahead weight."})
    top_m: int = field(default=10, metadata={"description": "Candidates per path."})


def calls_bound(context: Any, topics: int) -> int:
    """The most model calls one question can make (nodes.py): the plan; per step at most one
    selection (none when the candidates fit the beam) and one verification per kept beam
    (at most N, however many topic entities started); the answer: N·D + D + 2."""
    run = settings_of(context, FidelisContext)
    return run.beam_width * run.beam_depth + run.beam_depth + 2
