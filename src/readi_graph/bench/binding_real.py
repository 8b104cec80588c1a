"""Binding recall on what a real model wrote: `readi bench binding --real DIR`.

Input: files in the format the Readi authors published for CWQ (their `readi_cwq` release):
a JSON list of questions, each with its gold `sparql` (Freebase `ns:` ids) and
`relation_path_candidates`, the initial paths a model wrote
(`{"Topic": ["Topic -> relation -> relation", ...]}`).

Gold relations are the `ns:` relation ids of the SPARQL (ids with two dots or more), minus type
filters and bookkeeping (`common.`, `type.`, `kg.`, `freebase.`). A gold relation is *found at
k* when it is among the top-k bindings of any relation the model wrote for that question (its
reverse twin, bound with it, counts: see `kg/relations/binding.py`); *found in either direction*
also accepts its reverse (`kg/relations/schema.py`: the one relation with the swapped domain and
range). A question is *fully bound* when each of its gold relations is found at 5 in either
direction.

A twin takes no place among the k, so readi-graph's recall@k looks at up to 2k relations; the
paper's binder has no twins. `readi-graph, no twins` (exact ids first, no twin) is the
like-for-like figure: k relations on both sides.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from readi_graph.core.text import local_name
from readi_graph.environments.kg.relations.binding import QUESTION_WEIGHT, ranked
from readi_graph.environments.kg.relations.encoder import phrases
from readi_graph.environments.kg.relations.retrieval import RelationIndex, id_key
from readi_graph.environments.kg.relations.schema import FREEBASE_NS, RelationSchema

KS = (1, 5, 10)
# Gold relations not among even the top 100 of anything the model wrote are out of reach of
# binding: the path names something else. `either@100` shows that ceiling.
CEILING = 100
NOT_GOLD = ("common.", "type.", "kg.", "freebase.")
_NS_ID = re.compile(r"\bns:([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+){2,})")


@dataclass(frozen=True)
class RealPaths:
    """One question with the paths a model wrote and the relations its gold query uses."""

    id: str
    question: str
    paths: dict[str, list[list[str]]]  # topic -> alternatives -> relations as written
    gold: tuple[str, ...]  # relation ids without namespace

    @property
    def written(self) -> list[str]:
        """Every relation the model wrote for this question, in order, once."""
        found = [r for alts in self.paths.values() for rels in alts for r in rels]
        return list(dict.fromkeys(found))


def gold_relations(sparql: str) -> tuple[str, ...]:
    found = (r for r in _NS_ID.findall(sparql) if not r.startswith(NOT_GOLD))
    return tuple(dict.fromkeys(found))


def split_path(text: str, topic: str) -> list[str]:
    """`Topic -> r1 -> r2` as written -> [r1, r2] (the topic is dropped only if it is there)."""
    parts = [p.strip() for p in text.split("->")]
    if parts and parts[0].casefold() == topic.strip().casefold():
        parts = parts[1:]
    return [p for p in parts if p]


def load_real(path: str | Path) -> list[RealPaths]:
    """One file in the `readi_cwq` format."""
    out: list[RealPaths] = []
    for item in json.loads(Path(path).read_text(encoding="utf-8")):
        candidates = item.get("relation_path_candidates") or {}
        paths = {  # a path per alternative; a lone string is one alternative
            str(topic): [
                split_path(p, str(topic))
                for p in ([alternatives] if isinstance(alternatives, str) else alternatives)
                if isinstance(p, str)
            ]
            for topic, alternatives in candidates.items()
            if isinstance(alternatives, str | list)
        }
        out.append(
            RealPaths(
                str(item.get("ID") or item.get("id") or len(out)),
                str(item.get("question", "")),
                paths,
                gold_relations(str(item.get("sparql", ""))),
            )
        )
    return out


def real_files(directory: str | Path) -> list[Path]:
    """The files of a directory that hold model paths (`*.json` with relation_path_candidates)."""
    found = []
    for file in sorted(Path(directory).glob("*.json")):
        head = file.read_text(encoding="utf-8", errors="replace")[:200_000]
        if '"relation_path_candidates"' in head:
            found.append(file)
    return found


class Binder(Protocol):
    """Binds each relation a model wrote: `prepare` once per question with all of them (the
    graph binds a whole plan at once), then a call per relation, which returns the bound
    relations best first, each with the twins it brought along (twins take no place)."""

    def prepare(self, written: Sequence[str]) -> None: ...

    def __call__(self, relation: str, question: str) -> Sequence[Sequence[str]]: ...


def recall(
    questions: Sequence[RealPaths], binder: Binder, schema: RelationSchema
) -> dict[str, Any]:
    """Recall@k (direct and either direction), fully bound questions, verbatim share, time."""
    pairs = fully = verbatim = 0
    direct = dict.fromkeys(KS, 0)
    either = dict.fromkeys((*KS, CEILING), 0)
    ms: list[float] = []
    for q in questions:
        started = time.perf_counter()
        binder.prepare(q.written)
        bound = {relation: binder(relation, q.question) for relation in q.written}
        per_relation = (time.perf_counter() - started) * 1000 / max(len(q.written), 1)
        ms += [per_relation] * len(q.written)
        written_keys = {id_key(r) for r in q.written}
        complete = True
        for gold in q.gold:
            pairs += 1
            verbatim += id_key(gold) in written_keys
            twin = schema.twin(FREEBASE_NS + gold)
            accepted = {gold} | ({local_name(twin)} if twin else set())
            for k in (*KS, CEILING):
                top = {local_name(r) for groups in bound.values() for g in groups[:k] for r in g}
                direct[k] = direct.get(k, 0) + (gold in top)
                either[k] += bool(accepted & top)
                if k == 5 and not accepted & top:
                    complete = False
        fully += complete
    n = max(pairs, 1)
    out: dict[str, Any] = {"questions": len(questions), "gold_relations": pairs}
    out.update({f"recall@{k}": round(direct[k] / n, 3) for k in KS})
    out.update({f"either@{k}": round(either[k] / n, 3) for k in (*KS, CEILING)})
    out["fully_bound"] = round(fully / max(len(questions), 1), 3)
    out["verbatim"] = round(verbatim / n, 3)
    out["ms_per_relation_median"] = round(statistics.median(ms), 3) if ms else 0.0
    return out


@dataclass(frozen=True)
class IndexBinder:
    """The library's own binding (`binding.ranked` + twins), as the benchmark calls it."""

    index: RelationIndex
    schema: RelationSchema | None
    question_weight: float = QUESTION_WEIGHT
    depth: int = CEILING

    def prepare(self, written: Sequence[str]) -> None:
        self.index.prepare(written)

    def __call__(self, relation: str, question: str) -> list[tuple[str, ...]]:
        top = ranked(self.index, relation, self.depth, question, self.question_weight)
        twins = [self.schema.twin(r) if self.schema else None for r, _ in top]
        return [(r,) if t is None else (r, t) for (r, _), t in zip(top, twins, strict=True)]


def bench_real(
    real: str | Path,
    freebase: str | Path,
    *,
    dense: bool | None = None,
    question_weight: float | None = None,
) -> dict[str, Any]:
    """Each model-path file of `real` against all Freebase relations: the paper's binding
    (phrase only, top-k) beside this library's (exact ids first, reverse twins) and this
    library's without twins (like for like: k relations each), per retriever."""
    from readi_graph.bench.binding_recall import retrievers

    weight = QUESTION_WEIGHT if question_weight is None else question_weight
    schema = RelationSchema.from_freebase(freebase)
    relations = sorted(schema.info)
    files = real_files(real)
    if not files:
        raise FileNotFoundError(
            f"no model-path files (*.json with relation_path_candidates) in {real}"
        )
    results: dict[str, Any] = {}
    for mode, use_dense in retrievers(dense):
        plain = RelationIndex(relations, dense=use_dense, exact_first=False)
        index = RelationIndex(relations, dense=use_dense)
        binders: dict[str, Binder] = {
            "paper": IndexBinder(plain, None, question_weight=0.0),
            "readi-graph": IndexBinder(index, schema, question_weight=weight),
            "readi-graph, no twins": IndexBinder(index, None, question_weight=weight),
        }
        for file in files:
            questions = load_real(file)
            for name, binder in binders.items():
                phrases.cache_clear()  # each binder pays for encoding its phrases
                results.setdefault(file.stem, {})[f"{mode} {name}"] = recall(
                    questions, binder, schema
                )
    return results
