"""Binding recall: is the right KG relation among the top-k bound to a natural-language phrase?

- MetaQA: each 1-hop question template (the question with its `[entity]` removed, e.g. "what
  movies did act in") is a relation phrase; its gold relation comes from the question type.
- Freebase: each relation's human label is the query against all 20,951 relation ids, indexed
  *without* their labels (as the paper's Table 10 measures its retriever). A label shared by
  several relations counts as found when any of them is retrieved.

BM25 alone and BM25 + MiniLM (reciprocal rank fusion, when the `[embed]` extra is installed)
are measured side by side on the same queries. No reverse twins here (the index has no
schema): recall@k counts k relations, as the paper's binder would (`"twins": false`).
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from readi_graph.datasets.metaqa import TYPE_RELATIONS, gold_plan, load_questions
from readi_graph.environments.kg.relations.encoder import dense_available
from readi_graph.environments.kg.relations.retrieval import RelationIndex
from readi_graph.environments.kg.store.local import METAQA_RELATION
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS

KS = (1, 5, 10)


def metaqa_queries(data: str | Path, split: str = "dev") -> list[tuple[str, set[str]]]:
    """(template phrase, {gold relation}) for each distinct 1-hop question template."""
    found: dict[str, set[str]] = {}
    for q in load_questions(data, 1, split):
        phrase = " ".join(re.sub(r"\[[^\]]*\]", " ", q.question).split())
        found.setdefault(phrase, {c.relation for c in gold_plan(q.qtype)})
    return sorted(found.items())


def freebase_queries(data: str | Path, sample: int | None) -> tuple[list[str], list[Any]]:
    """(all relation IRIs, [(label, {relations with that label})]), every n-th label if sampled."""
    inventory = json.loads(
        (Path(data) / "fb_relations_domain_range_label.json").read_text(encoding="utf-8")
    )
    relations = [FREEBASE_NS + r for r in inventory]
    by_label: dict[str, set[str]] = defaultdict(set)
    for r, info in inventory.items():
        if info.get("label"):
            by_label[info["label"]].add(FREEBASE_NS + r)
    queries = sorted(by_label.items())
    if sample and sample < len(queries):
        queries = queries[:: len(queries) // sample][:sample]
    return relations, queries


def recall(
    index: RelationIndex, queries: Sequence[tuple[str, set[str]]], ks: Sequence[int] = KS
) -> dict[str, Any]:
    started = time.perf_counter()
    results = index.search_many([q for q, _ in queries], max(ks))
    seconds = time.perf_counter() - started
    out: dict[str, Any] = {"queries": len(queries), "twins": False}
    for k in ks:
        found = zip(results, queries, strict=True)
        hits = sum(bool({r for r, _ in top[:k]} & gold) for top, (_, gold) in found)
        out[f"recall@{k}"] = round(hits / max(len(queries), 1), 4)
    out["queries_per_second"] = round(len(queries) / max(seconds, 1e-9), 1)
    return out


def retrievers(dense: bool | None) -> list[tuple[str, bool]]:
    """("bm25", False), plus ("bm25+minilm", True) when dense retrieval is on or available."""
    use_dense = dense_available() if dense is None else dense
    return [("bm25", False), *([("bm25+minilm", True)] if use_dense else [])]


def bench_metaqa(data: str | Path, dense: bool | None = None) -> dict[str, Any]:
    queries = metaqa_queries(data)
    relations = sorted({METAQA_RELATION + r for r in TYPE_RELATIONS.values()})
    return {
        mode: recall(RelationIndex(relations, dense=use), queries)
        for mode, use in retrievers(dense)
    }


def bench_freebase(
    data: str | Path, sample: int | None = 2000, dense: bool | None = None
) -> dict[str, Any]:
    relations, queries = freebase_queries(data, sample)
    return {
        mode: recall(RelationIndex(relations, dense=use), queries)
        for mode, use in retrievers(dense)
    }
