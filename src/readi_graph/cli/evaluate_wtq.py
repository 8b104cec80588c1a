"""`readi eval wtq`: Readi over WikiTableQuestions, scored with the official metric."""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

from readi_graph import strategies
from readi_graph.cli.evaluate import evaluate
from readi_graph.cli.options import context_from, reply_cache
from readi_graph.eval import runner


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(func=eval_wtq)


def eval_wtq(args: argparse.Namespace) -> int:
    """Readi over WikiTableQuestions, scored with the official denotation accuracy."""
    from readi_graph.datasets.wtq import denotation_correct, load_questions
    from readi_graph.environments.table.table import Table
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
        return build_graph(table, context=context, reply_cache=cache, strategy=args.strategy)

    def score(gold: list[str], predicted: list[str]) -> dict[str, float]:
        return {"correct": float(denotation_correct(gold, predicted))}

    return evaluate(args, items, graph_for, score, f"wtq {args.split}", context=context)
