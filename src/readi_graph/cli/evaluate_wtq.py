"""`readi eval wtq`: Readi over WikiTableQuestions, scored with the official metric."""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

from readi_graph import strategies
from readi_graph.cli.checks import model_ready
from readi_graph.cli.evaluate import Plan, compare
from readi_graph.cli.options import chosen_strategies, context_from, reply_cache
from readi_graph.core.base import InputError
from readi_graph.eval import runner


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(func=eval_wtq)


def eval_wtq(args: argparse.Namespace) -> int:
    """The table strategies over WikiTableQuestions, scored with the official denotation
    accuracy."""
    from readi_graph.datasets.wtq import denotation_correct, load_questions
    from readi_graph.environments.table.table import Table
    from readi_graph.graph import build_graph

    questions = list(itertools.islice(load_questions(args.data, args.split), args.limit))
    items = [
        runner.Item(q.id, {"question": q.question}, list(q.answers), {"table": q.table})
        for q in questions
    ]
    names = chosen_strategies(args.strategy, "table")
    unable = [n for n in names if n not in strategies.names("table")]
    if unable:
        able = ", ".join(strategies.names("table"))
        raise InputError(f"--strategy {','.join(unable)}: tables are searched with {able}")
    context = context_from(args)
    model_ready(context, bool(args.model))  # nothing serves the named model: stop here
    cache = reply_cache(args)

    def score(gold: list[str], predicted: list[str]) -> dict[str, float]:
        return {"correct": float(denotation_correct(gold, predicted))}

    def plan(strategy: str) -> Plan:
        def graph_for(item: runner.Item) -> object:
            table = Table.from_csv(Path(args.data) / item.meta["table"])
            return build_graph(table, context=context, reply_cache=cache, strategy=strategy)

        return Plan(graph_for, score, f"wtq {args.split}", context)

    return compare(args, items, {name: plan(name) for name in names})
