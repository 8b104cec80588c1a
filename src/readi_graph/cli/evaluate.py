"""`readi eval {metaqa,wtq,webqsp,cwq}`: one runner, one JSON line per question, resumable.

Every dataset takes the same options (`--limit --concurrency --out --resume --model
--max-edits --cache`); the last line printed is the JSON summary. MetaQA has offline modes
that need no LLM: `--planner gold` (instantiation only) and `--planner empty|corrupt` with
`--editor oracle|none` (the whole graph; see eval/offline.py).
"""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from readi_graph import datasets
from readi_graph.cli.options import add_common, context_from, reply_cache
from readi_graph.core.context import ReadiContext
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.eval import runner
from readi_graph.eval.metrics import kgqa_scores


def evaluate(
    args: argparse.Namespace,
    items: list[runner.Item],
    graph_for: Callable[[runner.Item], Any],
    scorer: runner.Scorer,
    label: str,
    *,
    context: ReadiContext | None = None,
    annotate: Callable[[runner.Item, runner.Record], None] | None = None,
    notes: dict[str, Any] | None = None,
) -> int:
    """Run the items, print the summary as the last line."""
    summary = runner.run(
        items,
        graph_for,
        scorer,
        context=context or context_from(args),
        label=label,
        out=args.out,
        resume=args.resume,
        concurrency=args.concurrency,
        asynchronous=args.asynchronous,
        annotate=annotate,
    )
    print(json.dumps({**summary, **(notes or {})}, ensure_ascii=False))
    return 0


def _same(graph: Any, _item: runner.Item) -> Any:
    return graph


COMPARED = ("accuracy", "hit1", "f1", "llm_calls_per_question", "prompt_tokens_per_question",
            "queries_per_question", "seconds_per_question")  # fmt: skip


def evaluate_kg_model(
    args: argparse.Namespace,
    kg: KnowledgeGraph | Callable[[runner.Item], KnowledgeGraph],
    items: list[runner.Item],
    label: str,
    *,
    annotate: Callable[[runner.Item, runner.Record], None] | None = None,
    notes: dict[str, Any] | None = None,
) -> int:
    """A chat model over a KG with one strategy, or both side by side (`--strategy both`:
    results in `<out>.readi.jsonl` and `<out>.fidelis.jsonl`, a comparison as the last line).
    `kg` is one KG for every question, or a function that builds each question its own when
    the question starts (per-question subgraphs). `notes` are printed with each summary (e.g.
    where the topic entities came from)."""
    chosen = ["readi", "fidelis"] if args.strategy == "both" else [args.strategy]
    context, cache = context_from(args), reply_cache(args)
    compared: dict[str, Any] = {}
    for strategy in chosen:
        graph_for = _graphs(kg, strategy, context=context, reply_cache=cache)
        out = args.out
        if out and len(chosen) > 1:
            out = str(Path(out).with_suffix(f".{strategy}.jsonl"))
        summary = runner.run(items, graph_for, kgqa_scores, context=context,
                             label=f"{label} {strategy}", out=out, resume=args.resume,
                             concurrency=args.concurrency, asynchronous=args.asynchronous,
                             annotate=annotate)  # fmt: skip
        print(json.dumps({**summary, **(notes or {})}, ensure_ascii=False), flush=True)
        compared[strategy] = {k: summary.get(k) for k in COMPARED}
    if len(chosen) > 1:
        print(json.dumps({"compare": compared}))
    return 0


def _graphs(
    kg: KnowledgeGraph | Callable[[runner.Item], KnowledgeGraph], strategy: str, **options: Any
) -> Callable[[runner.Item], Any]:
    """The compiled graph each question runs: one for every question, or one per question
    over its own KG (compiled when the question starts, dropped when it ends)."""
    from readi_graph.graph import build_graph

    if isinstance(kg, KnowledgeGraph):
        return functools.partial(_same, build_graph(kg, strategy=strategy, **options))
    return lambda item: build_graph(kg(item), strategy=strategy, **options)


def add_parsers(parsers: Any) -> None:
    """`readi eval <dataset>` for every registered dataset (`readi_graph.datasets`)."""
    for dataset in datasets.DATASETS.values():
        parser = parsers.add_parser(dataset.name, help=dataset.help)
        add_common(parser, split=dataset.split)
        dataset.add_arguments(parser)
