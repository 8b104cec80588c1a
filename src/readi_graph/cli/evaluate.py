"""`readi eval`: MetaQA with the gold planner (no LLM), WikiTableQuestions with a model."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from readi_graph.context import ReadiContext
from readi_graph.envs.kg import KGSettings, KnowledgeGraph
from readi_graph.eval import model_run


def _load_metaqa_kg(args: argparse.Namespace) -> KnowledgeGraph:
    settings = KGSettings(frontier_cap=args.frontier_cap)
    if args.endpoint:
        return KnowledgeGraph.from_endpoint(args.endpoint, settings, default_graph=args.graph)
    kb = Path(args.data) / "kb.txt"
    started = time.perf_counter()
    if args.backend == "rdflib":
        import rdflib

        from readi_graph.envs.kg_local import metaqa_ntriples

        graph = rdflib.Graph().parse(data=metaqa_ntriples(kb), format="nt")
        kg = KnowledgeGraph.from_rdflib(graph, settings, backend="rdflib")
    else:
        kg = KnowledgeGraph.from_metaqa(kb, settings)
    print(f"loaded {kb} in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return kg


def eval_metaqa(args: argparse.Namespace) -> int:
    from readi_graph.eval import gold
    from readi_graph.eval.metaqa import load_questions

    if args.model:
        return _eval_metaqa_with_model(args)
    if args.planner != "gold":
        print(f"planner {args.planner!r} is not available yet; use --planner gold", file=sys.stderr)
        return 2
    questions = itertools.islice(load_questions(args.data, args.hops, args.split), args.limit)
    kg = _load_metaqa_kg(args)
    out = _open_out(args)
    try:
        summary = gold.evaluate(
            kg, questions, label=f"metaqa {args.hops}-hop {args.split}", out=out
        )
    finally:
        if out is not None:
            out.close()
    print(json.dumps(summary))
    return 0


def _open_out(args: argparse.Namespace) -> IO[str] | None:
    return open(args.out, "w", encoding="utf-8") if args.out else None


def _run_model(
    args: argparse.Namespace,
    items: Sequence[model_run.Item],
    graph_for: Callable[[model_run.Item], Any],
    correct: Callable[[list[str], list[str]], bool],
    context: ReadiContext,
    label: str,
) -> int:
    """Run, write JSON lines to --out, print the summary as the last line."""

    out = _open_out(args)
    try:
        summary = model_run.run(items, graph_for, correct, context=context, label=label, out=out)
    finally:
        if out is not None:
            out.close()
    print(json.dumps(summary))
    return 0


def eval_wtq(args: argparse.Namespace) -> int:
    """Readi over WikiTableQuestions questions, scored with the official denotation accuracy."""
    from readi_graph.cli.ask import context_from
    from readi_graph.envs.table import Table
    from readi_graph.eval.wtq import denotation_correct, load_questions
    from readi_graph.graph import build_graph

    questions = list(itertools.islice(load_questions(args.data, args.split), args.limit))
    items = [model_run.Item(q.id, {"question": q.question}, list(q.answers)) for q in questions]
    tables = {q.id: q.table for q in questions}
    context = context_from(args)

    def graph_for(item: model_run.Item) -> object:
        return build_graph(Table.from_csv(Path(args.data) / tables[item.id]), context=context)

    return _run_model(args, items, graph_for, denotation_correct, context, f"wtq {args.split}")


def _eval_metaqa_with_model(args: argparse.Namespace) -> int:
    """Readi with a chat model over MetaQA; correct = the first answer is a gold answer."""
    from readi_graph.cli.ask import context_from
    from readi_graph.eval.metaqa import load_questions
    from readi_graph.graph import build_graph

    questions = list(itertools.islice(load_questions(args.data, args.hops, args.split), args.limit))
    items = [
        model_run.Item(q.id, {"question": q.question, "topic_entities": [q.topic]}, list(q.answers))
        for q in questions
    ]
    context = context_from(args)
    graph = build_graph(_load_metaqa_kg(args), context=context)

    def hit1(gold: list[str], predicted: list[str]) -> bool:
        return bool(predicted) and predicted[0] in gold

    label = f"metaqa {args.hops}-hop {args.split}"
    return _run_model(args, items, lambda _: graph, hit1, context, label)
