"""Options and loaders the commands share: one neutral home, imported by every command and
importing none of them (so the CLI modules form no cycle)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from readi_graph import strategies
from readi_graph.cli.checks import at_least, eval_arguments, existing_file
from readi_graph.core.context import ReadiContext
from readi_graph.core.models.reply_cache import ReplyCache
from readi_graph.environments.kg.knowledge_graph import KGSettings, KnowledgeGraph
from readi_graph.environments.kg.relations.binding import BINDINGS
from readi_graph.environments.table.table import Table


def load_kg(source: str | None) -> KnowledgeGraph:
    """A KG from a URL (SPARQL endpoint), a MetaQA kb.txt, an RDF file, or the demo KG."""
    if not source:
        from readi_graph.demo import demo_kg

        return demo_kg()
    if source.startswith(("http://", "https://")):
        return KnowledgeGraph.from_endpoint(source)
    existing_file(source, "--kg")
    if source.endswith(".txt"):
        return KnowledgeGraph.from_metaqa(source)
    return KnowledgeGraph.from_file(source)


def context_from(args: argparse.Namespace) -> ReadiContext:
    """Run settings from the command line (`--model`, `--max-edits`, `--edit-feedback`,
    `--keep-editing`)."""
    return ReadiContext(
        max_edits=args.max_edits,
        edit_feedback=getattr(args, "edit_feedback", "steerable"),
        stop_hopeless=not getattr(args, "keep_editing", False),
        **({"model": args.model} if args.model else {}),
    )


def load_table(source: str) -> Table:
    """A table from a CSV or Parquet file."""
    existing_file(source, "--table")
    if source.lower().endswith(".parquet"):
        return Table.from_parquet(source)
    return Table.from_csv(source)


def add_common(p: argparse.ArgumentParser, *, split: str) -> None:
    p.add_argument("--data", required=True, help="dataset directory (official layout)")
    p.add_argument("--split", default=split)
    p.add_argument("--limit", type=at_least(1), default=None, help="first N questions only")
    p.add_argument("--concurrency", type=at_least(1), default=1, help="questions run at once")
    p.add_argument(
        "--async",
        dest="asynchronous",
        action="store_true",
        help="run the questions as tasks on one event loop (ainvoke): a question waiting for "
        "its model holds no thread",
    )
    p.add_argument("--out", help="results file: one JSON line per question")
    p.add_argument("--resume", action="store_true", help="continue --out, skipping done ids")
    p.add_argument(
        "--model",
        help="chat model name, served by OPENAI_BASE_URL or OPENAI_API_KEY; 'local': the "
        "bundled model (default: READI_MODEL; with no name at all, gpt-4o-mini where "
        "OPENAI_BASE_URL or OPENAI_API_KEY is set, else the bundled model, said on stderr; "
        "MetaQA without --model runs its offline drivers)",
    )
    p.add_argument("--max-edits", type=at_least(0), default=4)
    p.add_argument(
        "--edit-feedback",
        choices=("steerable", "paper"),
        default="steerable",
        help="what the edit prompt tells the editor (ReadiContext.edit_feedback): steerable "
        "(what to do, candidates that lead on, earlier steps, every alternative) or the "
        "paper's feedback",
    )
    p.add_argument(
        "--keep-editing",
        action="store_true",
        help="edit until the budget is spent even when no edit can change anything (the "
        "published loop; ReadiContext.stop_hopeless=False)",
    )
    p.add_argument(
        "--strategy",
        type=strategy_list,
        default="readi",
        help=f"one of {', '.join(strategies.names())}, several comma-separated, 'all' or "
        "'both' (readi,fidelis): the same questions through each, one results file per "
        "strategy (<out>.<strategy>.jsonl) and one table (eval/ledger.py)",
    )
    p.add_argument(
        "--cache",
        default=os.environ.get("READI_REPLY_CACHE") or str(_cache_home() / "replies.sqlite"),
        help="reply cache (SQLite; default $READI_REPLY_CACHE or ~/.cache/readi-graph/"
        "replies.sqlite): a rerun costs no LLM calls",
    )
    p.add_argument("--no-cache", action="store_true", help="always call the model")
    p.set_defaults(checks=eval_arguments)


def strategy_list(text: str) -> str:
    """`--strategy`: a registered name, `a,b,...`, `all` or `both`, checked against the
    registry when the command line is read (see `chosen_strategies`)."""
    if text in ("all", "both"):
        return text
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in strategies.STRATEGIES]
    if not names or unknown:
        known = ", ".join(strategies.names())
        raise argparse.ArgumentTypeError(f"unknown strategy {text!r}: one of {known}, all, both")
    return ",".join(dict.fromkeys(names))


def chosen_strategies(text: str, environment: str = "kg") -> list[str]:
    """The strategies `--strategy` names, in order; `all`: every registered strategy that
    searches `environment`; `both`: readi and fidelis."""
    if text == "all":
        return strategies.names(environment)
    if text == "both":
        return ["readi", "fidelis"]
    return text.split(",")


def add_kg_source(p: argparse.ArgumentParser) -> None:
    p.add_argument("--endpoint", help="SPARQL endpoint holding the KG")
    p.add_argument("--graph", help="named graph holding the KG on the endpoint")
    p.add_argument("--frontier-cap", type=at_least(1), default=KGSettings.frontier_cap)
    p.add_argument(
        "--binding", choices=BINDINGS, default="default", help="binding.BindingOptions.named"
    )


def make_optional(parser: argparse.ArgumentParser, dest: str) -> None:
    """An option `add_common` requires, made optional for a command that can do without it
    (`readi eval cwq --subgraphs FILE` needs no --data)."""
    for action in parser._actions:
        if action.dest == dest:
            action.required = False


def _cache_home() -> Path:
    from readi_graph.core.cachedir import cache_dir

    return cache_dir()


def reply_cache(args: argparse.Namespace) -> ReplyCache | None:
    return None if args.no_cache or not args.cache else ReplyCache(args.cache)
