"""`readi eval`: MetaQA with the gold planner (no LLM), WikiTableQuestions with a model."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

from readi_graph.envs.kg import KGSettings, KnowledgeGraph


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

    if args.planner != "gold":
        print(f"planner {args.planner!r} is not available yet; use --planner gold", file=sys.stderr)
        return 2
    questions = itertools.islice(load_questions(args.data, args.hops, args.split), args.limit)
    kg = _load_metaqa_kg(args)
    out = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115
    try:
        summary = gold.evaluate(
            kg, questions, label=f"metaqa {args.hops}-hop {args.split}", out=out
        )
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
    context = context_from(args)
    out = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115
    correct = calls = 0
    try:
        for n, q in enumerate(questions, 1):
            table = Table.from_csv(Path(args.data) / q.table)
            result = build_graph(table, context=context).invoke(
                {"question": q.question}, context=context
            )
            right = denotation_correct(q.answers, result.get("answers") or [])
            correct += right
            calls += result["usage"]["llm_calls"]
            if out is not None:
                record = {
                    "id": q.id,
                    "prediction": result.get("answers"),
                    "gold": list(q.answers),
                    "correct": right,
                    "edits": result.get("edits"),
                    "usage": result["usage"],
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                out.flush()
            print(
                f"[wtq {args.split}] {n}/{len(questions)} accuracy={correct / n:.3f} "
                f"calls/q={calls / n:.2f}",
                file=sys.stderr,
                flush=True,
            )
    finally:
        if out is not None:
            out.close()
    n = max(len(questions), 1)
    print(
        json.dumps(
            {
                "n": len(questions),
                "accuracy": round(correct / n, 5),
                "llm_calls_per_question": round(calls / n, 3),
            }
        )
    )
    return 0
