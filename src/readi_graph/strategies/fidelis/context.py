"""FiDeLiS's run settings: the shared ones, the beam search's own, and the two presets.

The defaults depart from the paper in four places, each found when a capable model ran the
search (issue 31); `FidelisContext.paper()` sets all four back:

- `verify_from="plan"`: no "is this path enough?" call for a path shorter than the plan
  (the paper verifies every path at every step: "first_step");
- `selection="chains"`: paths that follow the same relations from the same node are one
  candidate, kept whole by one pick (the paper: one pick keeps one path: "paths");
- `copies="last"`: a step whose node only copies the name of a sibling reached by another
  relation (MetaQA's tag "samuel fuller" beside the director Samuel Fuller) ranks after the
  real ones ("keep": Path-RAG's score alone);
- `revisit="end"`: a step may end on a node the path passed (the writer who also directed),
  never walking on from it ("never": the rule this implementation had; the paper's code
  checks nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from readi_graph.core.context import RunContext, require_at_least, settings_of


@dataclass(frozen=True, kw_only=True)
class FidelisContext(RunContext):
    beam_width: int = field(
        default=4, metadata={"description": "Candidates kept per step (paths, or chains)."}
    )
    beam_depth: int = field(default=4, metadata={"description": "Steps at most."})
    alpha: float = field(default=0.3, metadata={"description": "Look-ahead weight."})
    top_m: int = field(
        default=10,
        metadata={"description": "Steps scored per path end (chains: relations per end)."},
    )
    verify_from: Literal["plan", "first_step"] = field(
        default="plan",
        metadata={
            "description": "plan: verify a path once it has as many steps as the plan (or at "
            "the last step); first_step: every path at every step (the paper)."
        },
    )
    selection: Literal["chains", "paths"] = field(
        default="chains",
        metadata={
            "description": "chains: paths by the same relations from the same node are one "
            "candidate (one path per end, chain_cap at most), kept whole by one pick; "
            "paths: one pick keeps one path (the paper)."
        },
    )
    chain_cap: int = field(
        default=40, metadata={"description": "Paths one chain keeps, best first (chains)."}
    )
    copies: Literal["last", "keep"] = field(
        default="last",
        metadata={
            "description": "last: a step to a node that only copies a sibling's name (a tag "
            "equal to an actor's name) ranks after the real ones; keep: Path-RAG's score alone."
        },
    )
    revisit: Literal["end", "never"] = field(
        default="end",
        metadata={
            "description": "end: a step may end on a node its path passed (not back on the "
            "topic entity, not back along the edge it came by; a self-loop of the topic may) "
            "and is not walked on; never: no step onto a visited node."
        },
    )

    # The search as published (`paper()`): every path verified, one path per pick,
    # Path-RAG's ranking as is (and this implementation's former no-revisit rule), the kept
    # paths shown one per line.
    PAPER: ClassVar[Mapping[str, Any]] = MappingProxyType(
        {
            **RunContext.PAPER,
            "verify_from": "first_step",
            "selection": "paths",
            "copies": "keep",
            "revisit": "never",
        }
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        require_at_least(self, beam_width=1, beam_depth=1, top_m=1, chain_cap=1, alpha=0.0)


def calls_bound(context: Any, topics: int) -> int:
    """The most model calls one question can make (nodes.py): the plan; per step at most one
    selection (none when the candidates fit the beam) and one verification per kept candidate
    (a path, or a chain of paths: at most N, however many topic entities started); the
    answer: N·D + D + 2."""
    run = settings_of(context, FidelisContext)
    return run.beam_width * run.beam_depth + run.beam_depth + 2
