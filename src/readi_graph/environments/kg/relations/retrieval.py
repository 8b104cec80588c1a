"""Relation binding: which KG relations does a natural-language relation mean?

Each KG relation becomes a small document: the words of its local name (split on `.`, `_`,
`/`, `-` and camelCase) plus its label when the KG has one. A phrase such as "directed by" is
matched by BM25 (bm25s) and, when the `[embed]` extra is installed, by all-MiniLM-L6-v2 cosine
similarity; the two rankings are fused by reciprocal rank (RRF), as the paper fuses BM25 with
Contriever. Indexing is lazy and happens once per KG.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import snowballstemmer

from readi_graph.core.cachedir import cache_dir
from readi_graph.core.text import local_name
from readi_graph.environments.kg.relations.encoder import (
    DenseEncoder,
    dense_available,
    phrase_vector,
    phrases,
)

log = logging.getLogger(__name__)

RRF_K = 60  # the constant of Cormack et al. (2009); rank 1 scores 1/61
# all-MiniLM-L6-v2 cosine below which a relation is not a candidate on meaning alone. On the
# MetaQA relations, unrelated phrases ("nationality", "award", "country") peak at 0.38 and
# paraphrases ("acted in", "cast", "screenwriter") reach 0.44-0.74.
DENSE_FLOOR = 0.4
RECENT_SCORES = 64  # score vectors kept per index (84 KB each on Freebase's 21k relations)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOPWORDS = frozenset(
    """a an the of in on at to for by from with and or is are was were be been its it this that
    which who whom what""".split()
)
_stemmer = snowballstemmer.stemmer("english")


def id_key(text: str) -> str:
    """A relation id as a model may write it, reduced to its letters and digits:
    `ns:Sports.Sports_Team.Team_Mascot`, `sports sports team team mascot` and
    `sports.sports_team.team_mascot` meet (case and separators do not matter)."""
    return re.sub(r"[\W_]+", "", local_name(text.strip()).casefold())


def words(text: str) -> list[str]:
    """Lower-cased words of `text`, with camelCase and separators split."""
    return [w.lower() for w in _WORD.findall(_CAMEL.sub(" ", text))]


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_stemmer.stemWord(word))


def tokens(text: str) -> list[str]:
    """BM25 tokens: words minus stopwords, Snowball-stemmed ("directed" and "direct" meet)."""
    return [_stem(w) for w in words(text) if w not in _STOPWORDS] or [_stem(w) for w in words(text)]


def relation_text(relation: str, label: str | None = None) -> str:
    """The document a relation is indexed under."""
    text = " ".join(words(local_name(relation)))
    return f"{text} {label}" if label else text


class RelationIndex:
    """Top-k KG relations for a natural-language relation phrase (BM25, + dense when available)."""

    def __init__(
        self,
        relations: Sequence[str],
        labels: Mapping[str, str] | None = None,
        *,
        dense: bool | None = None,
        dense_floor: float = DENSE_FLOOR,
        exact_first: bool = True,
        vectors: Callable[[Sequence[str]], np.ndarray] | None = None,
    ) -> None:
        self.relations: list[str] = list(dict.fromkeys(relations))
        self.position = {r: i for i, r in enumerate(self.relations)}
        self._name_rank = np.empty(len(self.relations), dtype=np.int64)
        self._name_rank[np.argsort(np.array(self.relations, dtype=object))] = np.arange(
            len(self.relations)
        )
        labels = labels or {}
        self.documents = [relation_text(r, labels.get(r)) for r in self.relations]
        self.dense = dense_available() if dense is None else dense
        self.dense_floor = dense_floor
        self.exact_first = exact_first  # off only to measure what it brings
        # Where the documents' vectors come from (default: encoded, cached on disk per index).
        self._vector_source = vectors
        import bm25s  # scipy-backed: imported on first index, not with the package

        self._bm25 = bm25s.BM25()
        corpus = [tokens(doc) or ["_"] for doc in self.documents]
        if corpus:
            self._bm25.index(corpus, show_progress=False)
        self._vocab: Mapping[str, int] = getattr(self._bm25, "vocab_dict", {}) or {}
        self._exact: dict[str, list[int]] = {}
        for i, relation in enumerate(self.relations):
            self._exact.setdefault(relation, []).append(i)
            self._exact.setdefault(id_key(relation), []).append(i)
        self._vectors: np.ndarray | None = None
        self._tensor: Any = None  # torch view of _vectors, made on first dense search
        self._vectors_lock = threading.Lock()
        # The question is scored once per phrase it reorders, and phrases recur across a
        # path's alternatives: the last few score vectors are kept.
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()

    def __len__(self) -> int:
        return len(self.relations)

    # --- the two scorers -----------------------------------------------------------------
    def bm25_scores(self, query: str) -> np.ndarray:
        query_tokens = [t for t in tokens(query) if t in self._vocab]
        if not query_tokens or not self.relations:
            return np.zeros(len(self.relations), dtype=np.float32)
        return np.asarray(self._bm25.get_scores(query_tokens), dtype=np.float32)

    def _relation_vectors(self) -> np.ndarray:
        with self._vectors_lock:
            return self._relation_vectors_unlocked()

    def _relation_vectors_unlocked(self) -> np.ndarray:
        if self._vectors is None and self._vector_source is not None:
            self._vectors = self._vector_source(self.documents)
        if self._vectors is None:
            digest = hashlib.sha256("\n".join(self.documents).encode()).hexdigest()[:24]
            path = cache_dir() / "embeddings" / f"minilm-{digest}.npy"
            if path.is_file():
                self._vectors = np.load(path)
            else:
                log.warning("embedding %d relations once (cached in %s)", len(self.documents), path)
                self._vectors = DenseEncoder.encode(self.documents)
                try:  # written aside, then renamed: another process never reads half a file
                    path.parent.mkdir(parents=True, exist_ok=True)
                    partial = path.with_name(f"{path.stem}.{os.getpid()}.{threading.get_ident()}")
                    with open(partial, "wb") as out:
                        np.save(out, self._vectors)
                    os.replace(partial, path)
                except OSError:  # a read-only home is not an error
                    pass
        return self._vectors

    def warm(self) -> None:
        """Load (or compute, once per inventory) the relation embeddings now, not in the
        first question's binding."""
        if self.dense and self.relations:
            self._relation_vectors()

    def prepare(self, queries: Sequence[str]) -> None:
        """Encode the phrases about to be searched in one batch (a path's relations)."""
        if self.dense and self.relations:
            phrases.many([" ".join(words(q)) for q in queries])

    def dense_scores(self, query: str) -> np.ndarray:
        if not self.relations:
            return np.zeros(0, dtype=np.float32)
        return self.similarities(phrase_vector(" ".join(words(query))))

    def similarities(self, vector: np.ndarray) -> np.ndarray:
        """Cosine of every relation to `vector`, computed by torch (loaded for the encoder
        anyway): numpy's OpenBLAS threads spin after each product and starved the encoder's
        threads on 2 cores (16 ms per phrase; 3 ms this way, benchmarks/README.md)."""
        import torch

        with self._vectors_lock:
            if self._tensor is None:
                self._tensor = torch.from_numpy(self._relation_vectors_unlocked())
            tensor = self._tensor
        product = tensor @ torch.from_numpy(np.ascontiguousarray(vector, dtype=np.float32))
        return np.asarray(product.numpy(), dtype=np.float32)

    # --- fused ranking -------------------------------------------------------------------
    def scores(self, query: str) -> np.ndarray:
        """One fused score per relation: RRF over BM25 and dense, or BM25 alone.

        A relation scores 0 (is no candidate) when no query word reaches it and its cosine
        similarity is below `dense_floor`: on a KG with few relations, top-k by rank alone
        would bind any phrase ("nationality") to half the inventory.
        """
        with self._vectors_lock:
            cached = self._recent.get(query)
        if cached is not None:
            return cached
        bm25 = self.bm25_scores(query)
        scores = self._exact_first(
            query, self._fuse(bm25, self.dense_scores(query)) if self.dense else bm25
        )
        scores = np.array(scores, dtype=np.float32)  # our own copy, shared read-only
        scores.setflags(write=False)
        with self._vectors_lock:
            self._recent[query] = scores
            while len(self._recent) > RECENT_SCORES:
                self._recent.popitem(last=False)
        return scores

    def exact(self, query: str) -> list[int]:
        """Positions of the relations `query` names verbatim (the IRI, or its id up to case
        and separators): a model that writes an existing id means that relation."""
        key = id_key(query)
        return self._exact.get(query.strip()) or (self._exact.get(key) if key else None) or []

    def _exact_first(self, query: str, scores: np.ndarray) -> np.ndarray:
        found = self.exact(query) if self.exact_first else []
        if found:
            scores = scores.copy()
            scores[found] = float(scores.max()) + 1.0
        return scores

    def _fuse(self, bm25: np.ndarray, dense: np.ndarray) -> np.ndarray:
        fused = np.zeros(len(self.relations), dtype=np.float64)
        for scores, floor in ((bm25, 0.0), (dense, self.dense_floor)):
            order = np.argsort(-scores, kind="stable")
            ranks = np.empty_like(order)
            ranks[order] = np.arange(1, len(order) + 1)
            contribution = 1.0 / (RRF_K + ranks)
            contribution[scores <= floor] = 0.0
            fused += contribution
        return fused.astype(np.float32)

    def top(self, scores: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Positive scores only, best first, ties by relation name."""
        found = np.flatnonzero(scores > 0)
        order = found[np.lexsort((self._name_rank[found], -scores[found]))][:k]
        return [(self.relations[i], float(scores[i])) for i in order]

    def search(self, query: str, k: int = 5) -> list[tuple[str, float]]:
        """The top-k relations for `query`, best first; ties broken by relation name."""
        return self.top(self.scores(query), k)

    def search_many(self, queries: Sequence[str], k: int = 5) -> list[list[tuple[str, float]]]:
        """`search` for many queries, embedding them in one batch (benchmarks, evaluation)."""
        if not self.dense or not self.relations:
            return [self.search(q, k) for q in queries]
        encoded = DenseEncoder.encode([" ".join(words(q)) for q in queries])
        return [
            self.top(self._exact_first(q, self._fuse(self.bm25_scores(q), self.similarities(v))), k)
            for q, v in zip(queries, encoded, strict=True)
        ]

    def rank(self, query: str, candidates: Sequence[str]) -> list[str]:
        """`candidates` ordered by similarity to `query` (unknown relations last, by name)."""
        scores = self.scores(query) if self.relations else np.zeros(0)

        def key(relation: str) -> tuple[float, str]:
            i = self.position.get(relation)
            return (-float(scores[i]) if i is not None else 1.0, relation)

        return sorted(dict.fromkeys(candidates), key=key)
