"""The small types of a KG walk: the backend a KG reads through, an edge, an expansion."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from readi_graph.core.base import Term, Triple


class Backend(Protocol):
    name: str

    def select(self, query: str) -> list[dict[str, Term]]: ...

    def ask(self, query: str) -> bool: ...


@dataclass(frozen=True, order=True)
class Edge:
    """One step of a walk: from `source` over `relation` to `target`.

    `forward` tells whether the stored triple is `source relation target` (True) or
    `target relation source` (False, the relation walked backwards).
    """

    source: Term
    relation: str
    target: Term
    forward: bool

    def sort_key(self) -> tuple[tuple[str, str, str, str], str, tuple[str, str, str, str], bool]:
        """The dataclass order as a plain tuple (see `Term.sort_key`)."""
        return (self.source.sort_key(), self.relation, self.target.sort_key(), self.forward)

    @property
    def triple(self) -> Triple:
        if self.forward:
            return Triple(self.source, self.relation, self.target)
        return Triple(self.target, self.relation, self.source)


@dataclass
class Expansion:
    edges: list[Edge]
    truncated: bool = False  # the row limit was reached: some edges are missing
