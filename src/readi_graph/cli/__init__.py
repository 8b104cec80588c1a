"""`readi` command line: ask a question, evaluate on a benchmark, score predictions."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from readi_graph import strategies
from readi_graph.cli import ask, bench, evaluate, kg, score
from readi_graph.core.base import ReadiError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="readi", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    asking = commands.add_parser("ask", help="answer a question over a KG or a table with Readi")
    asking.add_argument("question")
    source = asking.add_mutually_exclusive_group()
    source.add_argument("--kg", help="RDF file, MetaQA kb.txt or SPARQL endpoint (default: demo)")
    source.add_argument("--table", help="CSV or Parquet file")
    asking.add_argument(
        "--entity",
        action="append",
        help="topic entity of a KG question (repeatable; default: found in the question)",
    )
    asking.add_argument(
        "--model",
        help="chat model name; 'local': the bundled one (default: with OPENAI_API_KEY or "
        "OPENAI_BASE_URL set, READI_MODEL, else gpt-4o-mini; without, the bundled local model)",
    )
    asking.add_argument("--max-edits", type=int, default=4)
    asking.add_argument("--strategy", choices=strategies.names(), default="readi")
    asking.add_argument("--show", type=int, default=20, help="evidence items to print")
    asking.add_argument(
        "--trace", metavar="FILE.html", help="also draw the run (readi trace's picture) there"
    )
    asking.add_argument(
        "--editor",
        choices=("model", "human"),
        default="model",
        help="who edits a stuck path; human: you, from the terminal (empty line: stop editing)",
    )
    asking.set_defaults(func=ask.run)

    scoring = commands.add_parser("score", help="score predictions with a benchmark's metric")
    score_sets = scoring.add_subparsers(dest="dataset", required=True)
    wtq = score_sets.add_parser("wtq", help="official WikiTableQuestions denotation accuracy")
    wtq.add_argument("--data", required=True, help="dataset directory (data/<split>.tsv)")
    wtq.add_argument("--split", default="training")
    wtq.add_argument("--predictions", required=True, help="JSON lines or the official TSV")
    wtq.set_defaults(func=score.score_wtq)

    tracing = commands.add_parser("trace", help="draw one run as an HTML page (SVG)")
    tracing.add_argument("run", help="an invoke output saved as JSON, or a results file")
    tracing.add_argument("--out", required=True, help="the HTML file to write")
    tracing.add_argument("--id", help="which result of a results file (default: the first)")
    tracing.add_argument("--line", type=int, help="or its line number (1-based)")
    tracing.set_defaults(func=trace_run)

    evaluating = commands.add_parser("eval", help="evaluate on a benchmark")
    evaluate.add_parsers(evaluating.add_subparsers(dest="dataset", required=True))
    bench.add_parsers(commands)
    kg.add_parsers(commands)
    return parser


def trace_run(args: argparse.Namespace) -> int:
    from readi_graph.trace import load_run, write_trace

    try:
        run = load_run(args.run, id=args.id, line=args.line)
    except (OSError, ValueError, KeyError, IndexError) as exc:
        print(f"readi: cannot read a run from {args.run}: {exc}", file=sys.stderr)
        return 2
    print(write_trace(run, args.out))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ReadiError as exc:
        print(f"readi: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
