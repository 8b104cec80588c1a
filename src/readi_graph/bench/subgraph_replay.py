"""Replayed model paths on per-question subgraphs: `readi bench replay --subgraphs`.

The published GPT-3.5 paths for CWQ (`../shared/data/readi_cwq/`) are written by a scripted
model, without edits, as in `bench/replay.py`, but each question walks its own subgraph (RoG's
release format, matched by id, else by question text) instead of one shared fragment:
relations are indexed from that subgraph, as FiDeLiS and RoG search them. Every question of
the paths file is counted; one without a subgraph counts as an error, and what the subgraph
holds of its answer is reported beside (`answer_in_subgraph`, and the gold found among the
questions whose answer is there).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from readi_graph.bench.replay import ReplayModel, score
from readi_graph.datasets.subgraphs import SubgraphQuestion, load_subgraphs
from readi_graph.environments.kg.relations.binding import BindingOptions
from readi_graph.environments.kg.relations.schema import RelationSchema
from readi_graph.eval.metrics import normalize
from readi_graph.eval.subgraphs import PerQuestionKGs

VARIANTS = (
    ("paper", BindingOptions.paper()),
    ("readi-graph", BindingOptions()),
    ("readi-graph + local", BindingOptions(local_fallback=True)),
)


class MissingSubgraph(LookupError):
    """A question of the paths file has no record in the subgraph file."""


def _match(
    questions: Sequence[dict[str, Any]], records: Sequence[SubgraphQuestion]
) -> list[SubgraphQuestion | None]:
    by_id = {r.id: r for r in records}
    by_text = {normalize(r.question): r for r in records}
    return [
        by_id.get(str(q.get("ID") or q.get("id") or "")) or by_text.get(normalize(q["question"]))
        for q in questions
    ]


def replay_each(
    questions: Sequence[dict[str, Any]],
    subgraphs: list[SubgraphQuestion | None],
    kgs: PerQuestionKGs,
) -> tuple[list[Any], list[bool]]:
    """Each question's published paths through the graph over its own subgraph (no edits);
    the outputs (or the exception) and whether each answer was in its subgraph."""
    from readi_graph.core.context import ReadiContext
    from readi_graph.graph import build_graph

    model = ReplayModel(
        paths={q["question"]: q.get("relation_path_candidates") or {} for q in questions}
    )
    context = ReadiContext(max_edits=0)
    outputs: list[Any] = []
    inside: list[bool] = []
    for q, record in zip(questions, subgraphs, strict=True):
        try:
            if record is None:
                raise MissingSubgraph(f"no subgraph for {q.get('ID') or q['question']!r}")
            graph = build_graph(kgs.kg(record.id), model)
            topics = list(q.get("relation_path_candidates") or {})
            outputs.append(
                graph.invoke({"question": q["question"], "topic_entities": topics}, context=context)
            )
        except Exception as exc:  # counted as an error, the run goes on
            outputs.append(exc)
        facts = kgs.facts(record.id) if record is not None else None
        inside.append(bool(facts and facts.answer_in_subgraph))
    return outputs, inside


def replay_on_subgraphs(
    real_paths: str | Path,
    subgraph_path: str | Path,
    freebase: str | Path | None = None,
    *,
    split: str | None = None,
) -> dict[str, Any]:
    """The three bindings side by side, each question on its own subgraph."""
    questions = json.loads(Path(real_paths).read_text(encoding="utf-8"))
    schema = RelationSchema.from_freebase(freebase) if freebase else RelationSchema()
    subgraph_set, records = load_subgraphs(subgraph_path, split)
    results: dict[str, Any] = {}
    with subgraph_set:
        matched = _match(questions, records)
        for name, options in VARIANTS:
            kgs = PerQuestionKGs(
                subgraph_set,
                [r for r in matched if r is not None],
                schema=schema if options.twins else RelationSchema(),
                binding=options,
            )
            started = time.perf_counter()
            outputs, inside = replay_each(questions, matched, kgs)
            scored = score(questions, outputs, time.perf_counter() - started)
            results[f"subgraph index, {name} binding"] = {
                **scored,
                **_subgraph_figures(questions, outputs, inside),
            }
    return results


def _subgraph_figures(
    questions: Sequence[dict[str, Any]], outputs: Sequence[Any], inside: Sequence[bool]
) -> dict[str, Any]:
    """answer_in_subgraph over every question, and the gold found on the answerable ones."""
    subset = [i for i, ok in enumerate(inside) if ok]
    found = score([questions[i] for i in subset], [outputs[i] for i in subset], 0.0)
    return {
        "answer_in_subgraph": round(len(subset) / max(len(questions), 1), 3),
        "answerable_subset": {
            "note": "only the questions whose gold answer is in their subgraph",
            "n": len(subset),
            "gold_among_instances": found["gold_among_instances"],
        },
    }
