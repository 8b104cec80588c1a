"""`readi` command line: ask a question, evaluate on a benchmark, score predictions."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from readi_graph import strategies
from readi_graph.cli import ask, bench, evaluate, kg, score
from readi_graph.cli.checks import at_least
from readi_graph.cli.errors import EPILOG, INTERRUPTED, Parser, fail


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="readi",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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
    asking.add_argument("--model", help=MODEL_HELP)
    asking.add_argument("--max-edits", type=at_least(0), default=4)
    asking.add_argument("--strategy", choices=strategies.names(), default="readi")
    asking.add_argument("--show", type=at_least(0), default=20, help="evidence items to print")
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
    tracing.add_argument("--line", type=at_least(1), help="or its line number (1-based)")
    tracing.set_defaults(func=trace_run)

    evaluating = commands.add_parser("eval", help="evaluate on a benchmark")
    evaluate.add_parsers(evaluating.add_subparsers(dest="dataset", required=True))
    bench.add_parsers(commands)
    kg.add_parsers(commands)
    _add_debug(parser, top=True)
    return parser


MODEL_HELP = (
    "chat model name, served by OPENAI_BASE_URL or OPENAI_API_KEY; 'local': the bundled model "
    "(default: READI_MODEL; with no name at all, gpt-4o-mini where OPENAI_BASE_URL or "
    "OPENAI_API_KEY is set, else the bundled model, said on stderr)"
)


def _add_debug(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """`--debug` on every command and subcommand (before or after the command's name)."""
    parser.add_argument(
        "--debug",
        action="store_true",
        default=False if top else argparse.SUPPRESS,
        help="on an error, also print the traceback (or set READI_DEBUG=1)",
    )
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                _add_debug(sub)


def trace_run(args: argparse.Namespace) -> int:
    from readi_graph.cli.checks import existing_file, writable_target
    from readi_graph.trace import load_run, write_trace

    existing_file(args.run, "readi trace")
    writable_target(args.out, "--out")
    run = load_run(args.run, id=args.id, line=args.line)
    print(write_trace(run, args.out))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code (`cli/errors.py`: 0 answered, 1 no evidence, 2 bad
    input, 3 model or endpoint unavailable, 4 internal error)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help, or a one-line argument error
        return done.code if isinstance(done.code, int) else 2
    try:
        checks = getattr(args, "checks", None)  # what a command's options must satisfy
        if checks is not None:
            checks(args)
        return int(args.func(args))
    except KeyboardInterrupt:
        print("readi: interrupted", file=sys.stderr)
        return INTERRUPTED
    except Exception as exc:
        return fail(exc, args)


if __name__ == "__main__":
    raise SystemExit(main())
