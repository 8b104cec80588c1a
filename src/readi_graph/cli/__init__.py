"""`readi` command line: ask a question, evaluate on a benchmark, score predictions."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from readi_graph.cli import ask, evaluate, score
from readi_graph.envs.base import ReadiError
from readi_graph.envs.kg import KGSettings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="readi", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    asking = commands.add_parser("ask", help="answer a question over a KG or a table with Readi")
    asking.add_argument("question")
    source = asking.add_mutually_exclusive_group()
    source.add_argument("--kg", help="RDF file, MetaQA kb.txt or SPARQL endpoint (default: demo)")
    source.add_argument("--table", help="CSV or Parquet file")
    asking.add_argument(
        "--entity", action="append", help="topic entity of a KG question (repeatable)"
    )
    asking.add_argument("--model", help="model name (default: READI_MODEL or gpt-4o-mini)")
    asking.add_argument("--max-edits", type=int, default=4)
    asking.add_argument("--show", type=int, default=20, help="evidence items to print")
    asking.set_defaults(func=ask.run)

    scoring = commands.add_parser("score", help="score predictions with a benchmark's metric")
    score_sets = scoring.add_subparsers(dest="dataset", required=True)
    wtq = score_sets.add_parser("wtq", help="official WikiTableQuestions denotation accuracy")
    wtq.add_argument("--data", required=True, help="dataset directory (data/<split>.tsv)")
    wtq.add_argument("--split", default="training")
    wtq.add_argument("--predictions", required=True, help="JSON lines or the official TSV")
    wtq.set_defaults(func=score.score_wtq)

    evaluating = commands.add_parser("eval", help="evaluate on a benchmark")
    datasets = evaluating.add_subparsers(dest="dataset", required=True)
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
    metaqa.add_argument("--model", help="answer with this chat model ('local': bundled)")
    metaqa.add_argument("--max-edits", type=int, default=4)
    metaqa.set_defaults(func=evaluate.eval_metaqa)

    wtq_eval = datasets.add_parser("wtq", help="WikiTableQuestions with a chat model")
    wtq_eval.add_argument("--data", required=True, help="dataset directory (data/, csv/)")
    wtq_eval.add_argument("--split", default="training")
    wtq_eval.add_argument("--limit", type=int, default=None, help="first N questions only")
    wtq_eval.add_argument("--out", help="write one JSON line per question here")
    wtq_eval.add_argument("--model", help="model name (default: READI_MODEL or gpt-4o-mini)")
    wtq_eval.add_argument("--max-edits", type=int, default=4)
    wtq_eval.set_defaults(func=evaluate.eval_wtq)
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
