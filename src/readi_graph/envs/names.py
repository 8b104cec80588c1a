"""Names in a KG: labels of nodes (batched, cached) and resolution of topic entities.

Both directions between a node and what a person calls it: the LLM sees labels, and the user
(or the LLM) names topic entities by label or IRI. An unknown name is a `Resolution` with no
nodes, which the diagnosis reports; it is never an exception.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from readi_graph.envs import sparql
from readi_graph.envs.base import Term, UnsafeQueryInput

if TYPE_CHECKING:
    from readi_graph.envs.kg import KGSettings

Select = Callable[[str], list[dict[str, Term]]]
Ask = Callable[[str], bool]

_SHORT_ID = re.compile(r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$")  # e.g. Freebase's m.0d3k14


@dataclass(frozen=True)
class Resolution:
    """What a topic entity named by the user (or the LLM) refers to in the KG."""

    name: str
    nodes: tuple[Term, ...]
    match: Literal["iri", "exact", "normalized", "none"]

    @property
    def found(self) -> bool:
        return bool(self.nodes)


def normalize_name(text: str) -> str:
    """Case-, accent- and whitespace-insensitive form of a name."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().split())


class Names:
    """Labels and entity resolution over one KG, through its (counted) query functions."""

    def __init__(
        self,
        select: Select,
        ask: Ask,
        settings: KGSettings,
        *,
        scan_labels: bool,
        cache_size: int = 200_000,
    ) -> None:
        self._select = select
        self._ask = ask
        self.settings = settings
        self.scan_labels = scan_labels
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._labels: OrderedDict[Term, str | None] = OrderedDict()
        self._normalized: dict[str, list[Term]] | None = None

    # --- labels ----------------------------------------------------------------------------
    def _best(self, candidates: list[Term]) -> str | None:
        def preference(t: Term) -> tuple[int, str]:
            if t.lang in self.settings.languages:
                return (0, t.value)
            return (1 if not t.lang else 2, t.value)

        return min(candidates, key=preference).value if candidates else None

    def labels(self, terms: Iterable[Term]) -> dict[Term, str | None]:
        """Label of each term (a literal is its own label; None = no label). Cached."""
        result: dict[Term, str | None] = {}
        missing: list[Term] = []
        with self._lock:
            for t in dict.fromkeys(terms):
                if t.kind == "literal":
                    result[t] = t.value
                elif t.kind == "bnode":
                    result[t] = None
                elif t in self._labels:
                    result[t] = self._labels[t]
                else:
                    missing.append(t)
        for chunk in sparql.chunked(missing, self.settings.label_chunk):
            found: dict[Term, list[Term]] = {}
            for row in self._select(sparql.labels_query(chunk, self.settings.label_predicates)):
                if "x" in row and "l" in row and row["l"].kind == "literal":
                    found.setdefault(row["x"], []).append(row["l"])
            with self._lock:
                for t in chunk:
                    result[t] = self._labels[t] = self._best(found.get(t, []))
                while len(self._labels) > self._cache_size:
                    self._labels.popitem(last=False)
        return result

    # --- resolution ------------------------------------------------------------------------
    def resolve(self, name: str) -> Resolution:
        """Topic entity -> nodes: IRI, then exact label, then short id, then normalized label."""
        text = name.strip()
        iri = sparql.as_iri(text)
        if iri is not None:
            node = Term.iri(iri)
            try:
                exists = self._ask(sparql.exists_query(node))
            except UnsafeQueryInput:
                exists = False
            return Resolution(name, (node,) if exists else (), "iri" if exists else "none")
        if not text:
            return Resolution(name, (), "none")
        s = self.settings
        cap = s.max_entity_matches
        rows = self._select(sparql.lookup_query([text], s.label_predicates, s.languages, cap))
        nodes = sorted({r["x"] for r in rows if "x" in r})
        if nodes:
            return Resolution(name, tuple(nodes[:cap]), "exact")
        if s.entity_namespace and _SHORT_ID.match(text):
            node = Term.iri(s.entity_namespace + text)
            if self._ask(sparql.exists_query(node)):
                return Resolution(name, (node,), "iri")
        if self.scan_labels:
            matches = self._normalized_index().get(normalize_name(text), [])
            if matches:
                return Resolution(name, tuple(sorted(matches)[:cap]), "normalized")
        return Resolution(name, (), "none")

    def _normalized_index(self) -> dict[str, list[Term]]:
        """normalized label -> nodes, from one scan of all labels (embedded stores only)."""
        with self._lock:
            index = self._normalized
        if index is None:
            index = {}
            for row in self._select(sparql.all_labels_query(self.settings.label_predicates)):
                if "x" in row and "l" in row:
                    index.setdefault(normalize_name(row["l"].value), []).append(row["x"])
            with self._lock:
                self._normalized = index
        return index
