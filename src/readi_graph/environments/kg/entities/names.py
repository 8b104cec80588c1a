"""Names in a KG: labels of nodes (batched, cached) and resolution of topic entities.

Both directions between a node and what a person calls it: the LLM sees labels, and the user
(or the LLM) names topic entities by label or IRI. An unknown name is a `Resolution` with no
nodes, which the diagnosis reports; it is never an exception.
"""

from __future__ import annotations

import re
import string
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from readi_graph.core.base import Term, UnsafeQueryInput
from readi_graph.core.text import normalize_name
from readi_graph.environments.kg.entities.spans import unspaced
from readi_graph.environments.kg.store import sparql
from readi_graph.environments.kg.store.settings import KGSettings

Select = Callable[[str], list[dict[str, Term]]]
Ask = Callable[[str], bool]

_PREFIXED = re.compile(r"^([A-Za-z][\w-]*):([^\s:/<>#]+)$")  # wd:Q42, ns:m.0d3k14
_NAMED_ID = re.compile(r"^(.*\S)\s*\[([^\[\]\s]+)\]$")  # Barack Obama [m.02mjmr]
LOOKUP_CAP = 200  # nodes read per name lookup, in IRI order, before ranking by degree
NAMES_CHUNK = 250  # spellings looked up per query when finding names in a question
NAMES_LIMIT = 2_000  # spellings looked up per question on an endpoint (8 queries at most)
RESOLVED_CACHE = 4_096  # names whose resolution is kept
Match = Literal["iri", "exact", "alias", "normalized", "none"]


@dataclass(frozen=True)
class Resolution:
    """What a topic entity named by the user (or the LLM) refers to in the KG."""

    name: str
    nodes: tuple[Term, ...]  # most connected first; at most `max_entity_matches`
    match: Match
    matched: int = 0  # nodes the name matched before the cap (0: as many as `nodes`)

    @property
    def found(self) -> bool:
        return bool(self.nodes)


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
        # a strategy resolves its topic entities before its first model call (an unknown one
        # spends none) and again when it walks: the second time costs no query
        self._resolved: OrderedDict[str, Resolution] = OrderedDict()

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

    def texts(self, terms: Iterable[Term], predicates: tuple[str, ...]) -> dict[Term, str]:
        """One text per term over `predicates` (descriptions, say), preferred language first."""
        nodes = [t for t in dict.fromkeys(terms) if t.kind == "iri"]
        found: dict[Term, list[Term]] = {}
        for chunk in sparql.chunked(nodes, self.settings.label_chunk) if predicates else ():
            for row in self._select(sparql.labels_query(chunk, predicates)):
                if "x" in row and "l" in row and row["l"].kind == "literal":
                    found.setdefault(row["x"], []).append(row["l"])
        return {t: text for t, texts in found.items() if (text := self._best(texts))}

    def relation_labels(self, relations: Sequence[str]) -> dict[str, str]:
        """The label of each relation that has one: its own, else that of the node it is
        named after (`relation_entities`: Wikidata's `wdt:P57` by `wd:P57`), with a suffix."""
        own = self.labels(Term.iri(r) for r in relations)
        named = {r: label for r in relations if (label := own.get(Term.iri(r)))}
        via: dict[str, tuple[Term, str]] = {}
        for r in relations:
            if r in named:
                continue
            for prefix, node_prefix, suffix in self.settings.relation_entities:
                if r.startswith(prefix) and "/" not in r[len(prefix) :]:
                    via[r] = (Term.iri(node_prefix + r[len(prefix) :]), suffix)
                    break
        found = self.labels(t for t, _ in via.values()) if via else {}
        for r, (node, suffix) in via.items():
            if label := found.get(node):
                named[r] = label + suffix
        return named

    # --- resolution ------------------------------------------------------------------------
    def resolve(self, name: str) -> Resolution:
        """Topic entity -> nodes. An IRI, prefixed name (`wd:Q42`) or short id (`m.0d3k14`,
        `Q42`) names exactly one node, alone or after a name (`Douglas Adams [Q42]`); a name
        matches labels, then aliases, then labels and aliases up to case and accents.
        Homonyms are ranked by degree, then IRI. The last `RESOLVED_CACHE` answers are kept."""
        with self._lock:
            if name in self._resolved:
                return self._resolved[name]
        resolution = self._resolve(name)
        with self._lock:
            self._resolved[name] = resolution
            while len(self._resolved) > RESOLVED_CACHE:
                self._resolved.popitem(last=False)
        return resolution

    def _resolve(self, name: str) -> Resolution:
        text = name.strip()
        if not text:
            return Resolution(name, (), "none")
        iri = sparql.as_iri(text)
        if iri is not None:
            return self._by_iri(name, iri) or Resolution(name, (), "none")
        named = _NAMED_ID.match(text)
        if named:  # "Barack Obama [m.02mjmr]": the name for the model, the id for the walk
            given = named.group(2)
            id_iri = sparql.as_iri(f"<{given}>") if "://" in given else self._id_iri(given)
            if id_iri is not None and (found := self._by_iri(name, id_iri)):
                return found
            text = named.group(1)
        id_iri = self._id_iri(text)
        if id_iri is not None and (found := self._by_iri(name, id_iri)):
            return found
        s = self.settings
        tiers: tuple[tuple[Match, tuple[str, ...]], ...] = (
            ("exact", s.label_predicates),
            ("alias", s.alias_predicates),
        )
        for match, predicates in tiers:
            if predicates:
                rows = self._select(
                    sparql.lookup_query([text], predicates, s.languages, LOOKUP_CAP)
                )
                nodes = {r["x"] for r in rows if "x" in r}
                if nodes:
                    return self._ranked(name, nodes, match)
        key = normalize_name(text)
        if self.scan_labels:
            nodes = set(self._normalized_index().get(key, ()))
        else:  # an endpoint: no scan of all labels, but the usual spellings of the name
            predicates = s.label_predicates + s.alias_predicates
            query = sparql.lookup_query(_variants(text), predicates, s.languages, LOOKUP_CAP)
            rows = self._select(query)
            nodes = {r["x"] for r in rows if "x" in r and normalize_name(r["l"].value) == key}
        if nodes:
            return self._ranked(name, nodes, "normalized")
        return Resolution(name, (), "none")

    # --- names in running text (entity linking, see linking.py) ------------------------------
    def named(self, phrases: Sequence[str]) -> set[str]:
        """The normalized forms (`normalize_name`) of those `phrases` that are a label or alias
        of some node up to case and accents: from the scan on an embedded store; on an
        endpoint by looking up the usual spellings of the phrases, in the order given, at most
        `NAMES_LIMIT` of them, `NAMES_CHUNK` to a query (an endpoint cannot be scanned)."""
        keys = {normalize_name(p) for p in phrases}
        if self.scan_labels:
            index = self._normalized_index()
            return {k for k in keys if k in index}
        s = self.settings
        spellings = list(dict.fromkeys(v for p in phrases for v in _variants(p)))[:NAMES_LIMIT]
        found: set[str] = set()
        for chunk in sparql.chunked(spellings, NAMES_CHUNK):
            query = sparql.names_query(chunk, s.label_predicates + s.alias_predicates, s.languages)
            found.update(normalize_name(r["l"].value) for r in self._select(query) if "l" in r)
        return found & keys

    def spellings(self, name: str) -> set[str]:
        """The labels and aliases equal to `name` up to case and accents (at most
        `LOOKUP_CAP` nodes read): a name the question wrote in lower case may also be a
        differently cased node ("robert zemeckis", a tag, and "Robert Zemeckis", a person)."""
        key = normalize_name(name)
        if self.scan_labels:
            nodes = self._normalized_index().get(key, [])[:LOOKUP_CAP]
            found = self.labels(nodes).values()  # (an alias match shows its node's label)
            return {label for label in found if label and normalize_name(label) == key}
        s = self.settings
        predicates = s.label_predicates + s.alias_predicates
        query = sparql.lookup_query(_variants(name), predicates, s.languages, LOOKUP_CAP)
        rows = self._select(query)
        return {r["l"].value for r in rows if "l" in r and normalize_name(r["l"].value) == key}

    def _by_iri(self, name: str, iri: str) -> Resolution | None:
        node = Term.iri(iri)
        try:
            exists = self._ask(sparql.exists_query(node))
        except UnsafeQueryInput:
            exists = False
        return Resolution(name, (node,), "iri") if exists else None

    def _id_iri(self, text: str) -> str | None:
        """The IRI a prefixed name or short id stands for under these settings, if any."""
        s = self.settings
        prefixed = _PREFIXED.match(text)
        if prefixed and (namespace := dict(s.prefixes).get(prefixed.group(1))):
            return namespace + prefixed.group(2)
        if s.entity_namespace and s.short_id and re.match(s.short_id, text):
            return s.entity_namespace + text
        return None

    def _ranked(self, name: str, nodes: set[Term], match: Match) -> Resolution:
        """Homonyms by degree (most connected first), then IRI: the same on every store."""
        ordered = sorted(nodes)
        if len(ordered) > 1:
            degree = {
                r["x"]: int(r["n"].value)
                for r in self._select(sparql.degree_query(ordered))
                if "x" in r and "n" in r
            }
            ordered.sort(key=lambda t: (-degree.get(t, 0), t))
        cap = self.settings.max_entity_matches
        return Resolution(name, tuple(ordered[:cap]), match, matched=len(ordered))

    def _normalized_index(self) -> dict[str, list[Term]]:
        """normalized label or alias -> nodes, from one scan (embedded stores only)."""
        with self._lock:
            index = self._normalized
        if index is None:
            index = {}
            predicates = self.settings.label_predicates + self.settings.alias_predicates
            for row in self._select(sparql.all_labels_query(predicates)):
                if "x" in row and "l" in row:
                    index.setdefault(normalize_name(row["l"].value), []).append(row["x"])
            with self._lock:
                self._normalized = index
        return index


def _variants(text: str) -> list[str]:
    """Spellings of a name an endpoint can look up exactly: as written, lower, upper, title
    and first-capital case, each with and without accents. A script written without spaces
    has no case, and its marks are letters (Japanese dakuten, Thai vowels): as written."""
    if unspaced(text):
        return [text]
    forms = [text, text.lower(), text.upper(), string.capwords(text), text[:1].upper() + text[1:]]
    stripped = [
        "".join(c for c in unicodedata.normalize("NFKD", f) if not unicodedata.combining(c))
        for f in forms
    ]
    return list(dict.fromkeys(forms + stripped))
