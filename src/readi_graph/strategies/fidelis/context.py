"""FiDeLiS's run settings: the shared ones, and the beam search's own."""

from __future__ import annotations

from dataclasses import dataclass, field

from readi_graph.core.context import RunContext


@dataclass(frozen=True, kw_only=True)
class FidelisContext(RunContext):
    beam_width: int = field(default=4, metadata={"description": "Paths kept per step."})
    beam_depth: int = field(default=4, metadata={"description": "Steps at most."})
    alpha: float = field(default=0.3, metadata={"description": "Look-ahead weight."})
    top_m: int = field(default=10, metadata={"description": "Candidates per path."})
