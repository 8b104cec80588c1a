"""`KnowledgeGraph`: the one object the Readi nodes use to talk to a KG.

It owns a backend (embedded pyoxigraph, live rdflib, or a remote SPARQL endpoint) and offers
the few set-at-a-time operations instantiation needs: resolve a topic entity, expand a whole
frontier over a set of relations in one query, fetch labels in one query, list the relations
around stuck nodes. The bounded reads themselves live in `store/reads.py` (`KGReads`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from readi_graph.core.base import Term
from readi_graph.core.run import bridge
from readi_graph.core.run.counting import QueryCount, count_queries
from readi_graph.core.text import local_name
from readi_graph.environments.kg.entities.linking import Linking, link
from readi_graph.environments.kg.entities.names import Names, Resolution
from readi_graph.environments.kg.relations.binding import BindingOptions
from readi_graph.environments.kg.relations.retrieval import RelationIndex
from readi_graph.environments.kg.relations.schema import RelationSchema
from readi_graph.environments.kg.store import sparql
from readi_graph.environments.kg.store.edges import Backend, Edge, Expansion
from readi_graph.environments.kg.store.local import (
    RdflibBackend,
    load_file,
    load_metaqa,
    rdflib_to_oxigraph,
)
from readi_graph.environments.kg.store.reads import KGReads
from readi_graph.environments.kg.store.settings import KGSettings, as_settings
from readi_graph.environments.kg.store.vocabulary import (
    FOAF_NAME,
    FREEBASE_NS,
    OWL_SAME_AS,
    SCHEMA_NAME,
    SKOLEM_BASE,
    SKOS_PREF_LABEL,
)

Settings = KGSettings | str | None  # an object, a preset name ("wikidata"), or the default


__all__ = [
    "FOAF_NAME",
    "FREEBASE_NS",
    "OWL_SAME_AS",
    "SCHEMA_NAME",
    "SKOS_PREF_LABEL",
    "Backend",
    "Edge",
    "Expansion",
    "KGSettings",
    "KnowledgeGraph",
    "QueryCount",
    "count_queries",
]


class KnowledgeGraph(KGReads):
    """A knowledge graph Readi can instantiate reasoning paths on."""

    def __init__(
        self,
        backend: Backend,
        settings: Settings = None,
        *,
        relations: Sequence[str] | None = None,
        name: str = "kg",
        scan_labels: bool = True,
        schema: RelationSchema | None = None,
        binding: BindingOptions | None = None,
    ) -> None:
        self.backend = backend
        self.settings = as_settings(settings)
        # Relation labels, domains and ranges, and reverse twins (binding uses them).
        self.schema = schema or RelationSchema()
        self.binding = binding or BindingOptions()
        self.name = name
        self._relations = tuple(relations) if relations is not None else None
        self._given_relations = self._relations
        self._lock = threading.Lock()
        self.names = Names(self._select, self._ask, self.settings, scan_labels=scan_labels)
        self._index: RelationIndex | None = None
        self._listing: bridge.Once[tuple[str, ...]] = bridge.Once()
        self._indexing: bridge.Once[RelationIndex] = bridge.Once()
        self._has_labels: bool | None = None
        self.queries_total = 0
        # Where relation vectors come from (None: encoded once, cached on disk per inventory).
        self.relation_vectors: Callable[[Sequence[str]], Any] | None = None

    def cold(self) -> KnowledgeGraph:
        """The same store and settings behind empty caches (labels, relation listing and
        index, query count): each strategy a comparison runs starts as cold as the first did
        (`readi eval --strategy a,b`, which also empties the process-wide phrase embeddings,
        `encoder.phrases`, before each strategy)."""
        twin = KnowledgeGraph(
            self.backend,
            self.settings,
            relations=self._given_relations,
            name=self.name,
            scan_labels=self.names.scan_labels,
            schema=self.schema,
            binding=self.binding,
        )
        twin.relation_vectors = self.relation_vectors
        return twin

    # --- constructors ----------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | Path, settings: Settings = None) -> KnowledgeGraph:
        """N-Triples / Turtle / N-Quads / TriG / RDF-XML / JSON-LD into an embedded store."""
        return cls(load_file(path), settings, name=Path(path).name)

    @classmethod
    def from_metaqa(cls, kb_txt: str | Path, settings: Settings = "metaqa") -> KnowledgeGraph:
        """MetaQA's `kb.txt` (`subject|relation|object` lines) as RDF in an embedded store."""
        return cls(load_metaqa(kb_txt), settings, name="metaqa")

    @classmethod
    def from_rdflib(
        cls,
        graph: Any,
        settings: Settings = None,
        *,
        backend: Literal["oxigraph", "rdflib"] = "oxigraph",
    ) -> KnowledgeGraph:
        """An `rdflib.Graph`: copied into pyoxigraph (fast, default) or queried live."""
        store: Backend = (
            rdflib_to_oxigraph(graph) if backend == "oxigraph" else RdflibBackend(graph)
        )
        return cls(store, settings, name="rdflib")

    @classmethod
    def from_endpoint(
        cls,
        url: str,
        settings: Settings = None,
        *,
        relations: Sequence[str] | None = None,
        schema: RelationSchema | None = None,
        default_graph: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        **client: Any,
    ) -> KnowledgeGraph:
        """Any SPARQL 1.1 endpoint. Pass `relations` to skip listing them on a huge KG.

        Case-insensitive entity lookup needs a scan of all labels, which is not done remotely:
        names must match a label exactly (or be given as IRIs).
        """
        from readi_graph.environments.kg.store.endpoint import EndpointBackend

        # Virtuoso silently stops at ResultSetMaxRows (10,000 by default): stay under it so a
        # cut-off expansion is seen and reported as truncated.
        settings = as_settings(settings, row_limit=9_999)
        backend = EndpointBackend(
            url, timeout=timeout, max_retries=max_retries, default_graph=default_graph, **client
        )
        return cls(
            backend, settings, relations=relations, name=url, scan_labels=False, schema=schema
        )

    # --- relations -------------------------------------------------------------------------
    def relations(self) -> tuple[str, ...]:
        """Every walkable relation of the KG (listed once, then cached)."""
        if self._relations is None:
            self._relations = self._listing.get(self._list_relations)
        return self._relations

    def _list_relations(self) -> tuple[str, ...]:
        rows = self._select("SELECT DISTINCT ?p WHERE { ?s ?p ?o }")
        found = sorted({r["p"].value for r in rows if "p" in r})
        return tuple(p for p in found if not self.is_hidden(p))

    @property
    def relation_index(self) -> RelationIndex:
        """BM25 (+ dense) index over the relations, built once, on first use (questions
        arriving meanwhile wait for that build instead of starting their own)."""
        if self._index is None:
            self._index = self._indexing.get(self._make_index)
        return self._index

    def _make_index(self) -> RelationIndex:
        relations = self.relations()
        # Schema labels are not indexed: on Freebase they lowered recall (benchmarks/).
        labels = self.names.relation_labels(relations)
        # Seconds of CPU on a large KG: off the event loop when bridged (core/run/bridge.py).
        return bridge.offload(self._build_index, relations, labels)

    def _build_index(self, relations: Sequence[str], labels: dict[str, str]) -> RelationIndex:
        index = RelationIndex(
            relations, labels, exact_first=self.binding.exact_first, vectors=self.relation_vectors
        )
        index.warm()
        return index

    @property
    def native_async(self) -> bool:
        """Whether the backend awaits its queries inside `bridge.run` (a remote endpoint);
        the graph's async path then runs the KG steps on the event loop, not in threads."""
        return bool(getattr(self.backend, "native_async", False))

    async def aclose(self) -> None:
        """Close the backend's async connections of the running event loop, if it has any
        (an endpoint; call it before the loop ends, e.g. at the end of `asyncio.run`)."""
        close = getattr(self.backend, "aclose", None)
        if close is not None:
            await close()

    # --- names ---------------------------------------------------------------------------
    def labels(self, terms: Iterable[Term]) -> dict[Term, str | None]:
        """Label of each term (a literal is its own label; None = no label). Batched, cached."""
        return self.names.labels(terms)

    def relation_name(self, relation: str) -> str:
        """How a relation is shown to the LLM: its label (Wikidata's `P57` is "director"),
        else its IRI's local name. Labels are cached, so calling it per triple is cheap."""
        return self.names.relation_labels([relation]).get(relation) or local_name(relation)

    @property
    def has_labels(self) -> bool:
        """Whether any node has a label (asked once): in a KG of bare IRIs an unlabelled
        node is an ordinary entity, not a compound one."""
        if self._has_labels is None:
            self._has_labels = self._ask(sparql.any_label_query(self.settings.label_predicates))
        return self._has_labels

    def is_compound(self, term: Term, label: str | None) -> bool:
        """Nodes that only join other nodes together: blank nodes, the settings'
        `compound_prefixes` (Wikidata statements), and unlabelled nodes of a labelled KG
        when `compound="unlabelled"` (Freebase CVTs)."""
        if term.kind == "literal":
            return False
        if term.kind == "bnode" or term.value.startswith((SKOLEM_BASE, "nodeID://")):
            return True
        s = self.settings
        if s.compound_prefixes and term.value.startswith(s.compound_prefixes):
            return True
        return s.compound == "unlabelled" and not label and self.has_labels

    def display(self, term: Term, label: str | None) -> str:
        """How a node is shown to the LLM: its label, `<compound>`, or its IRI's local name."""
        if label:
            return label
        if self.is_compound(term, label):
            return "<compound>"
        return local_name(term.value)

    def resolve(self, name: str) -> Resolution:
        """Topic entity (name or IRI) -> nodes: IRI, exact label, then normalized label.

        An unknown entity is a `Resolution` with no nodes, not an exception: the diagnosis
        reports it to the LLM.
        """
        return self.names.resolve(name)

    def link_topic_entities(self, question: str) -> Linking:
        """The topic entities named in `question`, for a caller who gave none: the longest
        spans that are labels (or aliases) of nodes, up to case and accents, and ids written
        as `Name [id]`; bounded look-ups on an endpoint. `Linking.entities` resolve with
        `resolve`; `Linking.notes` say what was found, what was ambiguous, or that nothing
        was (see `environments/kg/entities/linking.py`). Every KG strategy calls it when
        `topic_entities` is empty (`linking.topic_entities_for`)."""
        return link(self, question)
