"""`readi` command line: evaluation and benchmarks (question answering arrives with the graph)."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from readi_graph.envs.base import ReadiError
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


def _eval_metaqa(args: argparse.Namespace) -> int:
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="readi", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    evaluate = commands.add_parser("eval", help="evaluate on a benchmark")
    datasets = evaluate.add_subparsers(dest="dataset", required=True)
    metaqa = datasets.add_parser("metaqa", help="MetaQA (official layout: kb.txt, N-hop/...)")
    metaqa.add_argument("--data", required=True, help="MetaQA directory")
    metaqa.add_argument("--hops", type=int, choices=(1, 2, 3), required=True)
    metaqa.add_argument("--split", default="dev", choices=("dev", "test", "train"))
    metaqa.add_argument("--planner", default="gold", help="where paths come from (gold)")
    metaqa.add_argument("--limit", type=int, default=None, help="first N questions only")
    metaqa.add_argument("--out", help="write one JSON line per question here")
    metaqa.add_argument("--backend", choices=("oxigraph", "rdflib"), default="oxigraph")
    metaqa.add_argument("--endpoint", help="use this SPARQL endpoint instead of an embedded store")
    metaqa.add_argument("--graph", help="named graph holding the KB on the endpoint")
    metaqa.add_argument("--frontier-cap", type=int, default=KGSettings.frontier_cap)
    metaqa.set_defaults(func=_eval_metaqa)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ReadiError as exc:
        print(f"readi: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
