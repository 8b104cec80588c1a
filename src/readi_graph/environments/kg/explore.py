"""Exploration: what a search strategy asks of a KG, in one public place.

FiDeLiS's Path-RAG, Think-on-Graph and Readi's diagnosis ask a KG the same few questions:
which relations leave these nodes (and how many edges each has, both directions), which nodes
a relation reaches from them (bounded inside the query, truncation reported), how similar a
relation or a name is to a text (dense MiniLM with the `[embed]` extra, BM25 / word overlap
without it), how nodes are shown, and what a compound node says. `Explorer` answers them;
strategies use it and never the KG's query text, IRI checks or relation index
(`tests/test_layout.py` holds the rule).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from readi_graph.core.base import Term, Triple
from readi_graph.core.text import local_name
from readi_graph.environments.kg.entities.names import Resolution
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.relations.encoder import phrase_vector, phrases
from readi_graph.environments.kg.relations.retrieval import relation_text, words
from readi_graph.environments.kg.store.edges import Expansion
from readi_graph.environments.kg.store.reads import RelationCount
from readi_graph.environments.kg.store.sparql import Branch, is_safe_iri

__all__ = ["COMPOUND", "Explorer", "Reach", "RelationCount", "Similarity"]

COMPOUND = "<compound>"  # how `KnowledgeGraph.display` shows a node that only joins others


@dataclass(frozen=True)
class Reach:
    """The edges of one relation in one direction from some nodes, at most `limit` of them
    (None: all). `forward`: the stored triples are `node relation other`."""

    nodes: tuple[Term, ...]
    relation: str
    forward: bool
    limit: int | None = None


class Similarity:
    """How close relations and names are to one text: MiniLM cosine when the `[embed]` extra
    is installed (and `dense` is not False), else BM25 over the relation index normalised to
    [0, 1] for relations and word overlap for names (lower quality, said where it is used)."""

    def __init__(self, kg: KnowledgeGraph, text: str, *, dense: bool | None = None) -> None:
        self.kg = kg
        self.index = kg.relation_index
        self.dense = self.index.dense if dense is None else dense and self.index.dense
        self.text = text
        if self.dense:
            self._query = phrase_vector(" ".join(words(text)) or text)
            self._relations = self.index.similarities(self._query)
        else:
            bm25 = self.index.bm25_scores(text)
            top = float(bm25.max()) if bm25.size else 0.0
            self._relations = bm25 / top if top > 0 else bm25
        self._words = set(words(text))

    def relation(self, relation: str) -> float:
        i = self.index.position.get(relation)
        if i is not None:
            return float(self._relations[i])
        if self.dense:  # a relation missing from the inventory (e.g. listed lazily)
            return float(phrase_vector(relation_text(relation)) @ self._query)
        return self.overlap(local_name(relation))

    def names(self, labels: Sequence[str]) -> list[float]:
        """One score per shown name; a compound node or an empty name scores 0."""
        named = [(i, t) for i, t in enumerate(labels) if t and t != COMPOUND]
        scores = [0.0] * len(labels)
        if not named:
            return scores
        if self.dense:  # names recur across steps and questions: cached like phrases
            vectors = np.stack(phrases.many([t for _, t in named]))
            for (i, _), v in zip(named, vectors @ self._query, strict=True):
                scores[i] = float(v)
        else:
            for i, text in named:
                scores[i] = self.overlap(text)
        return scores

    def overlap(self, text: str) -> float:
        """The share of `text`'s words that are words of the text compared against."""
        found = set(words(text))
        return len(found & self._words) / len(found) if found else 0.0


class Explorer:
    """The exploration questions a strategy asks of `kg`: every read is one bounded, counted
    query (`environments/kg/store/reads.py`), whatever the number of nodes."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.kg = kg

    def relations(
        self, nodes: Sequence[Term], *, limit: int = 20_000, counted: bool = True
    ) -> dict[Term, list[RelationCount]]:
        """(relation, forward, edges) leaving each node, both directions, hidden relations
        (labels, bookkeeping: the KG's settings) and unqueryable IRIs left out. One pass over
        the nodes' edges per chunk of nodes, never reading the edges out; `counted=False`
        skips the counts (0), which is cheaper on a hub."""
        found = self.kg.relation_counts(nodes, limit, counted=counted)
        return {n: [c for c in pairs if is_safe_iri(c[0])] for n, pairs in found.items()}

    def reach(self, requests: Sequence[Reach]) -> Expansion:
        """The edges of all `requests` in one query, each capped inside the query by its own
        limit; past the KG's `row_limit` the expansion says it was truncated. A hidden or
        unqueryable relation, or a blank node, is never sent."""
        branches = []
        for r in requests:
            nodes = tuple(n for n in r.nodes if n.kind != "bnode")
            if nodes and is_safe_iri(r.relation) and not self.kg.is_hidden(r.relation):
                branches.append(Branch(nodes, r.relation, r.forward, r.limit))
        return self.kg.read(branches)

    def names(self, nodes: Iterable[Term]) -> dict[Term, str]:
        """How each node is shown: its label, `<compound>` (`COMPOUND`), or its IRI's local
        name (one query for the labels, cached)."""
        wanted = list(dict.fromkeys(nodes))
        labels = self.kg.labels(wanted)
        return {n: self.kg.display(n, labels.get(n)) for n in wanted}

    def relation_name(self, relation: str) -> str:
        return self.kg.relation_name(relation)

    def resolve(self, name: str) -> Resolution:
        """The nodes a topic entity names, most connected first (`KnowledgeGraph.resolve`)."""
        return self.kg.resolve(name)

    def similarity(self, text: str, *, dense: bool | None = None) -> Similarity:
        return Similarity(self.kg, text, dense=dense)

    @property
    def dense(self) -> bool:
        """Whether dense similarity is available (the `[embed]` extra; else BM25/overlap)."""
        return bool(self.kg.relation_index.dense)

    def compound_facts(
        self, nodes: Sequence[Term], per_node: int = 6, *, exclude: Iterable[Triple] = ()
    ) -> list[Triple]:
        """What compound nodes say: their edges to literals or named nodes (a marriage's
        spouse and dates, a statement's value and qualifiers), at most `per_node` each in a
        fixed order, `exclude`d triples left out. Three queries (relations, edges, labels),
        whatever the number of nodes; nodes that are not compound are ignored."""
        labels = self.kg.labels(nodes)
        compounds = [
            n
            for n in dict.fromkeys(nodes)
            if n.kind != "literal" and self.kg.is_compound(n, labels.get(n))
        ]
        if not compounds:
            return []
        around = self.kg.relations_by_node(compounds)
        forward = sorted({r for pairs in around.values() for r, f in pairs if f})
        backward = sorted({r for pairs in around.values() for r, f in pairs if not f})
        shown = set(exclude)
        edges = [e for e in self.kg.expand(compounds, forward, backward).edges
                 if e.triple not in shown]  # fmt: skip
        named = self.kg.labels({e.target for e in edges})
        facts: list[Triple] = []
        for node in compounds:
            own = [
                e.triple
                for e in edges
                if e.source == node and (e.target.kind == "literal" or named.get(e.target))
            ]
            facts += sorted(set(own), key=Triple.sort_key)[:per_node]
        return facts
