"""A KG from `[head, relation, tail]` triples written with names: RoG's per-question
subgraphs (`rmanluo/RoG-webqsp`, `RoG-cwq`) and the Readi authors' Freebase fragment.

Those releases replaced Freebase ids by names wherever Freebase has one, and kept the ids of
the nodes it has none for (CVTs: `m.0abc12`). Here a name becomes a node of its own
(`urn:readi:entity:<name>`, with the name as its `type.object.name` label, so homonyms share a
node as they share a name), an `m.`/`g.` id stays the Freebase node it is (no label: a
compound node under the Freebase preset), and a relation id is its Freebase IRI. The store is
an embedded pyoxigraph one, built in a few milliseconds for a few thousand triples.

Relation vectors: every KG embeds its relations once for binding. Per-question KGs each hold a
few hundred relations that recur across questions, so they share one in-memory pool
(`POOLED_VECTORS`, at most `POOL_SIZE` relations, 1.5 KB each) instead of embedding and
caching a file per question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from urllib.parse import quote

import numpy as np
import pyoxigraph as ox

from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph, Settings
from readi_graph.environments.kg.relations.binding import BindingOptions
from readi_graph.environments.kg.relations.encoder import PhraseCache
from readi_graph.environments.kg.relations.schema import RelationSchema
from readi_graph.environments.kg.store.local import OxigraphBackend
from readi_graph.environments.kg.store.sparql import literal
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS

ENTITY = "urn:readi:entity:"  # a node named by its name
RELATION = "urn:readi:relation:"  # a relation that is not a Freebase-style id
NAME = FREEBASE_NS + "type.object.name"
MID = re.compile(r"^[mg]\.[0-9a-z_]+$")
RELATION_ID = re.compile(r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$")
POOL_SIZE = 50_000

Triple = tuple[str, str, str]


def node_iri(name: str) -> str:
    """A Freebase id keeps its IRI (unnamed: compound); a name gets a node of its own."""
    return FREEBASE_NS + name if MID.match(name) else ENTITY + quote(name, safe="")


def relation_iri(relation: str) -> str:
    return FREEBASE_NS + relation if RELATION_ID.match(relation) else RELATION + quote(relation)


def name_ntriples(triples: Iterable[Triple]) -> bytes:
    """The triples as N-Triples, each name once as the label of its node (parsed by the store
    in Rust: 2.5x faster than building the quads in Python)."""
    nodes: dict[str, str] = {}
    relations: dict[str, str] = {}
    lines: list[str] = []

    def node(text: str) -> str:
        term = nodes.get(text)
        if term is None:
            term = nodes[text] = f"<{node_iri(text)}>"
            if not MID.match(text):
                lines.append(f"{term} <{NAME}> {literal(text, lang='en')} .\n")
        return term

    for head, relation, tail in triples:
        predicate = relations.get(relation)
        if predicate is None:
            predicate = relations[relation] = f"<{relation_iri(relation)}>"
        lines.append(f"{node(head)} {predicate} {node(tail)} .\n")
    return "".join(lines).encode()


def walkable(kg: KnowledgeGraph, triples: Iterable[Triple]) -> list[Triple]:
    """The triples whose relation the KG walks (bookkeeping relations are hidden)."""
    return [t for t in triples if not kg.is_hidden(relation_iri(t[1]))]


POOLED_VECTORS = PhraseCache(size=POOL_SIZE)


def pooled_vectors(documents: Sequence[str]) -> np.ndarray:
    """Relation vectors from the shared pool (encoded once per distinct relation text)."""
    if not documents:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack(POOLED_VECTORS.many(list(documents))).astype(np.float32, copy=False)


def name_triples_kg(
    triples: Iterable[Triple],
    settings: Settings = "freebase",
    *,
    schema: RelationSchema | None = None,
    binding: BindingOptions | None = None,
    name: str = "subgraph",
) -> KnowledgeGraph:
    """The triples in a fresh embedded store, relations indexed with pooled vectors."""
    store = ox.Store()
    store.bulk_load(name_ntriples(triples), ox.RdfFormat.N_TRIPLES)
    kg = KnowledgeGraph(OxigraphBackend(store), settings, name=name, schema=schema, binding=binding)
    kg.relation_vectors = pooled_vectors
    return kg
