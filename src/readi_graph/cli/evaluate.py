"""`readi eval {metaqa,wtq,webqsp,cwq}`: one runner, one JSON line per question, resumable.

Every dataset takes the same options (`--limit --concurrency --out --resume --model
--max-edits --cache`); the last line printed is the JSON summary. MetaQA has offline modes
that need no LLM: `--planner gold` (instantiation only) and `--planner empty|corrupt` with
`--editor oracle|none` (the whole graph; see eval/offline.py).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from readi_graph import strategies
from readi_graph.binding import BINDINGS
from readi_graph.cli.ask import context_from
from readi_graph.context import ReadiContext
from readi_graph.envs.kg import KGSettings, KnowledgeGraph
from readi_graph.eval import runner
from readi_graph.eval.metrics import kgqa_scores
from readi_graph.llm_cache import ReplyCache


def add_common(p: argparse.ArgumentParser, *, split: str) -> None:
    p.add_argument("--data", required=True, help="dataset directory (official layout)")
    p.add_argument("--split", default=split)
    p.add_argument("--limit", type=int, default=None, help="first N questions only")
    p.add_argument("--concurrency", type=int, default=1, help="questions run at once")
    p.add_argument(
        "--async",
        dest="asynchronous",
        action="store_true",
        help="run the questions as tasks on one event loop (ainvoke): a question waiting for "
        "its model holds no thread",
    )
    p.add_argument("--out", help="results file: one JSON line per question")
    p.add_argument("--resume", action="store_true", help="continue --out, skipping done ids")
    p.add_argument("--model", help="chat model ('local': the bundled one)")
    p.add_argument("--max-edits", type=int, default=4)
    p.add_argument(
        "--strategy",
        choices=[*strategies.names(), "both"],
        default="readi",
        help="both: Readi, then FiDeLiS on the same questions, compared in the last line",
    )
    p.add_argument(
        "--cache",
        default=os.environ.get("READI_REPLY_CACHE") or str(_cache_home() / "replies.sqlite"),
        help="reply cache (SQLite; default $READI_REPLY_CACHE or ~/.cache/readi-graph/"
        "replies.sqlite): a rerun costs no LLM calls",
    )
    p.add_argument("--no-cache", action="store_true", help="always call the model")


def add_kg_source(p: argparse.ArgumentParser) -> None:
    p.add_argument("--endpoint", help="SPARQL endpoint holding the KG")
    p.add_argument("--graph", help="named graph holding the KG on the endpoint")
    p.add_argument("--frontier-cap", type=int, default=KGSettings.frontier_cap)
    p.add_argument(
        "--binding", choices=BINDINGS, default="default", help="binding.BindingOptions.named"
    )


def _cache_home() -> Path:
    from readi_graph.retrieval import _cache_dir

    return _cache_dir()


def reply_cache(args: argparse.Namespace) -> ReplyCache | None:
    return None if args.no_cache or not args.cache else ReplyCache(args.cache)


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
    kg: KnowledgeGraph,
    items: list[runner.Item],
    label: str,
) -> int:
    """A chat model over a KG with one strategy, or both side by side (`--strategy both`:
    results in `<out>.readi.jsonl` and `<out>.fidelis.jsonl`, a comparison as the last line)."""
    from readi_graph.graph import build_graph

    chosen = ["readi", "fidelis"] if args.strategy == "both" else [args.strategy]
    context, cache = context_from(args), reply_cache(args)
    compared: dict[str, Any] = {}
    for strategy in chosen:
        graph = build_graph(kg, context=context, reply_cache=cache, strategy=strategy)
        out = args.out
        if out and len(chosen) > 1:
            out = str(Path(out).with_suffix(f".{strategy}.jsonl"))
        summary = runner.run(items, functools.partial(_same, graph), kgqa_scores,
                             context=context, label=f"{label} {strategy}", out=out,
                             resume=args.resume, concurrency=args.concurrency,
                             asynchronous=args.asynchronous)  # fmt: skip
        print(json.dumps(summary, ensure_ascii=False), flush=True)
        compared[strategy] = {k: summary.get(k) for k in COMPARED}
    if len(chosen) > 1:
        print(json.dumps({"compare": compared}))
    return 0


# --- WikiTableQuestions ------------------------------------------------------------------------
def eval_wtq(args: argparse.Namespace) -> int:
    """Readi over WikiTableQuestions, scored with the official denotation accuracy."""
    from readi_graph.envs.table import Table
    from readi_graph.eval.wtq import denotation_correct, load_questions
    from readi_graph.graph import build_graph

    questions = list(itertools.islice(load_questions(args.data, args.split), args.limit))
    items = [
        runner.Item(q.id, {"question": q.question}, list(q.answers), {"table": q.table})
        for q in questions
    ]
    if args.strategy not in strategies.names("table"):
        able = ", ".join(strategies.names("table"))
        print(f"readi eval wtq: tables are searched with --strategy {able}", file=sys.stderr)
        return 2
    context = context_from(args)
    cache = reply_cache(args)

    def graph_for(item: runner.Item) -> object:
        table = Table.from_csv(Path(args.data) / item.meta["table"])
        return build_graph(table, context=context, reply_cache=cache)

    def score(gold: list[str], predicted: list[str]) -> dict[str, float]:
        return {"correct": float(denotation_correct(gold, predicted))}

    return evaluate(args, items, graph_for, score, f"wtq {args.split}", context=context)


def add_parsers(datasets: Any) -> None:
    """`readi eval metaqa|wtq|webqsp|cwq`."""
    from readi_graph.cli import evaluate_freebase, evaluate_metaqa

    evaluate_metaqa.add_parsers(datasets)
    wtq = datasets.add_parser("wtq", help="WikiTableQuestions with a chat model")
    add_common(wtq, split="training")
    wtq.set_defaults(func=eval_wtq)
    evaluate_freebase.add_parsers(datasets)
