"""Embedded KG stores: pyoxigraph (default) and rdflib (kept for users and for comparison).

Both answer the same SPARQL text through `select`/`ask`, so the instantiation code cannot tell
them apart from a remote endpoint. Blank nodes are skolemized to IRIs on load: a hop-by-hop
walk must be able to name the node it reached in the next query, and SPARQL cannot name a
blank node.
"""

from __future__ import annotations

import gzip
import threading
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, cast

import pyoxigraph as ox

from readi_graph.core.base import KGFormatError, Term
from readi_graph.environments.kg.store.vocabulary import RDFS_LABEL, SKOLEM_BASE, XSD, literal_term

_FORMATS = {
    ".nt": ox.RdfFormat.N_TRIPLES,
    ".ttl": ox.RdfFormat.TURTLE,
    ".nq": ox.RdfFormat.N_QUADS,
    ".trig": ox.RdfFormat.TRIG,
    ".rdf": ox.RdfFormat.RDF_XML,
    ".owl": ox.RdfFormat.RDF_XML,
    ".jsonld": ox.RdfFormat.JSON_LD,
}


def _term(value: Any) -> Term:
    if isinstance(value, ox.NamedNode):
        return Term("iri", value.value)
    if isinstance(value, ox.Literal):
        datatype = value.datatype.value
        return literal_term(value.value, datatype, value.language)
    if isinstance(value, ox.BlankNode):
        return Term("bnode", value.value)
    raise TypeError(f"unsupported RDF term {value!r}")


class OxigraphBackend:
    """An in-memory pyoxigraph store. Thread-safe for reads (graph.batch uses threads)."""

    name = "oxigraph"

    def __init__(self, store: ox.Store) -> None:
        self.store = store

    def select(self, query: str) -> list[dict[str, Term]]:
        solutions = self.store.query(query, use_default_graph_as_union=True)
        if not isinstance(solutions, ox.QuerySolutions):
            raise TypeError("select() needs a SELECT query")
        names = [v.value for v in solutions.variables]
        rows = []
        for solution in solutions:
            row = {}
            for name in names:
                value = solution[name]
                if value is not None:
                    row[name] = _term(value)
            rows.append(row)
        return rows

    def ask(self, query: str) -> bool:
        return bool(self.store.query(query, use_default_graph_as_union=True))

    def __len__(self) -> int:
        return len(self.store)


def _skolem(node: Any) -> Any:
    return ox.NamedNode(SKOLEM_BASE + node.value) if isinstance(node, ox.BlankNode) else node


def _skolemized(quads: Iterable[ox.Quad]) -> Iterator[ox.Quad]:
    for q in quads:
        if isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode):
            yield ox.Quad(_skolem(q.subject), q.predicate, _skolem(q.object), q.graph_name)
        else:
            yield q


def load_file(path: str | Path) -> OxigraphBackend:
    """Parse an RDF file into a fresh in-memory store. The format comes from the extension."""
    path = Path(path)
    gzipped = path.suffix.lower() == ".gz"  # kb.nt.gz: as written by `readi kg freebase`
    suffix = (path.with_suffix("") if gzipped else path).suffix.lower()
    if suffix not in _FORMATS:
        raise KGFormatError(
            f"{path}: unknown RDF extension {suffix!r}; expected one of {sorted(_FORMATS)}"
            " (or one of them .gz)"
        )
    if not path.is_file():
        raise KGFormatError(f"{path}: no such file")
    store = ox.Store()
    try:
        # Parsing runs in Rust; only the (rare) blank-node quads are rebuilt in Python.
        if gzipped:
            with gzip.open(path, "rb") as stream:
                quads = ox.parse(cast(IO[bytes], stream), format=_FORMATS[suffix])
                store.bulk_extend(_skolemized(quads))
        else:
            store.bulk_extend(_skolemized(ox.parse(path=path, format=_FORMATS[suffix])))
    except (SyntaxError, OSError, EOFError) as exc:
        raise KGFormatError(f"{path}: {exc}") from exc
    return OxigraphBackend(store)


def load_ntriples(text: str) -> OxigraphBackend:
    """N-Triples text (e.g. a fragment built in memory) into a fresh in-memory store."""
    store = ox.Store()
    try:
        store.bulk_extend(_skolemized(ox.parse(text.encode(), format=ox.RdfFormat.N_TRIPLES)))
    except SyntaxError as exc:
        raise KGFormatError(f"N-Triples: {exc}") from exc
    return OxigraphBackend(store)


# --- MetaQA -------------------------------------------------------------------------------

METAQA_ENTITY = "urn:readi:metaqa:entity:"
METAQA_RELATION = "urn:readi:metaqa:relation:"
_YEAR_RELATIONS = {"release_year"}


def metaqa_iri(name: str) -> str:
    """One IRI per distinct MetaQA name (percent-encoded, so any name is a valid IRI)."""
    return METAQA_ENTITY + urllib.parse.quote(name, safe="")


def metaqa_quads(kb_txt: str | Path) -> Iterator[ox.Quad]:
    """MetaQA's `subject|relation|object` lines as RDF.

    Every distinct name becomes one IRI with an `rdfs:label` holding the original name; the
    objects of `release_year` become `xsd:gYear` literals so a path may end in a value.
    """
    label = ox.NamedNode(RDFS_LABEL)
    gyear = ox.NamedNode(XSD + "gYear")
    graph = ox.DefaultGraph()
    seen: set[str] = set()

    def node(name: str, out: list[ox.Quad]) -> ox.NamedNode:
        iri = ox.NamedNode(metaqa_iri(name))
        if name not in seen:
            seen.add(name)
            out.append(ox.Quad(iri, label, ox.Literal(name), graph))
        return iri

    path = Path(kb_txt)
    if not path.is_file():
        raise KGFormatError(f"{path}: no such file")
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            parts = line.split("|")
            if len(parts) != 3 or not all(p.strip() for p in parts):
                raise KGFormatError(
                    f"{path}:{number}: expected 'subject|relation|object', got {line[:120]!r}"
                )
            subject, relation, obj = parts
            pending: list[ox.Quad] = []
            s = node(subject, pending)
            p = ox.NamedNode(METAQA_RELATION + urllib.parse.quote(relation, safe=""))
            if relation in _YEAR_RELATIONS and obj.isdigit():
                o: ox.NamedNode | ox.Literal = ox.Literal(obj, datatype=gyear)
            else:
                o = node(obj, pending)
            yield from pending
            yield ox.Quad(s, p, o, graph)


def metaqa_ntriples(kb_txt: str | Path) -> bytes:
    """The MetaQA KB as N-Triples, e.g. to bulk-load into Virtuoso or rdflib."""
    data = ox.serialize((q.triple for q in metaqa_quads(kb_txt)), format=ox.RdfFormat.N_TRIPLES)
    assert data is not None  # serialize() returns bytes when no output file is given
    return data


def load_metaqa(kb_txt: str | Path) -> OxigraphBackend:
    store = ox.Store()
    store.bulk_extend(metaqa_quads(kb_txt))
    return OxigraphBackend(store)


# --- rdflib ---------------------------------------------------------------------------------


class RdflibBackend:
    """Queries a live `rdflib.Graph`. rdflib's SPARQL parser is not thread-safe, hence the lock.

    Slow next to pyoxigraph (parsing dominates each query); `KnowledgeGraph.from_rdflib` copies
    into pyoxigraph by default and uses this only when asked to stay live.
    """

    name = "rdflib"

    def __init__(self, graph: Any) -> None:
        from rdflib import BNode

        if any(isinstance(t, BNode) for triple in graph for t in (triple[0], triple[2])):
            graph = graph.skolemize()
        self.graph = graph
        self._lock = threading.Lock()

    @staticmethod
    def _term(value: Any) -> Term:
        from rdflib import BNode, URIRef
        from rdflib import Literal as RLiteral

        if isinstance(value, URIRef):
            return Term("iri", str(value))
        if isinstance(value, RLiteral):
            datatype = str(value.datatype) if value.datatype else None
            return literal_term(str(value), datatype, value.language)
        if isinstance(value, BNode):
            return Term("bnode", str(value))
        raise TypeError(f"unsupported RDF term {value!r}")

    def select(self, query: str) -> list[dict[str, Term]]:
        with self._lock:
            result = self.graph.query(query)
            names = [str(v) for v in result.vars or []]
            return [
                {n: self._term(row[i]) for i, n in enumerate(names) if row[i] is not None}
                for row in result
            ]

    def ask(self, query: str) -> bool:
        with self._lock:
            return bool(self.graph.query(query).askAnswer)

    def __len__(self) -> int:
        return len(self.graph)


def rdflib_to_oxigraph(graph: Any) -> OxigraphBackend:
    """Copy an rdflib graph into pyoxigraph (via N-Triples, which both sides speak exactly)."""
    data = graph.serialize(format="nt", encoding="utf-8")
    store = ox.Store()
    store.bulk_extend(_skolemized(ox.parse(data, format=ox.RdfFormat.N_TRIPLES)))
    return OxigraphBackend(store)


class LazyBackend:
    """A backend loaded on its first query, so building a graph (e.g. for Studio) is instant."""

    name = "lazy"

    def __init__(self, load: Callable[[], OxigraphBackend | RdflibBackend]) -> None:
        self._load = load
        self._backend: OxigraphBackend | RdflibBackend | None = None
        self._lock = threading.Lock()

    def _get(self) -> OxigraphBackend | RdflibBackend:
        with self._lock:
            if self._backend is None:
                self._backend = self._load()
            return self._backend

    def select(self, query: str) -> list[dict[str, Term]]:
        return self._get().select(query)

    def ask(self, query: str) -> bool:
        return self._get().ask(query)
