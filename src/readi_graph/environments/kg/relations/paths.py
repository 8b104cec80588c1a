"""Reasoning paths (what the LLM writes) and their bindings (what they mean in the KG).

A KG reasoning path starts at a topic entity and lists natural-language relations, e.g.
`Tom Hanks -> acted in -> directed by`. Binding turns each NL relation into a few KG relation
candidates; a candidate may carry a direction when it is known (gold paths), otherwise both
directions are tried.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Direction = Literal["forward", "backward", "both"]


@dataclass(frozen=True)
class KGPath:
    """One constraint of the question: a chain of NL relations from one topic entity."""

    topic: str
    relations: tuple[str, ...]


@dataclass(frozen=True)
class Candidate:
    """A KG relation an NL relation may mean, with the retrieval score that ranked it."""

    relation: str
    direction: Direction = "both"
    score: float = 0.0

    @property
    def forward(self) -> bool:
        return self.direction in ("forward", "both")

    @property
    def backward(self) -> bool:
        return self.direction in ("backward", "both")


Binding = tuple[Candidate, ...]
