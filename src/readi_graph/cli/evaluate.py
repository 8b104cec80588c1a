"""`readi eval {metaqa,wtq,webqsp,cwq}`: one runner, one JSON line per question, resumable.

Every dataset takes the same options (`--limit --concurrency --out --resume --model
--max-edits --cache --strategy`); the last line printed is the JSON summary, or with several
strategies (`--strategy readi,fidelis`, `all`) the ledger's comparison (eval/ledger.py).
MetaQA has offline modes that need no LLM: `--planner gold` (instantiation only),
`--planner empty|corrupt` with `--editor oracle|none` (Readi's whole graph; see
offline/readi.py), and the other strategies' gold-chain oracles.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from readi_graph import datasets
from readi_graph.cli.checks import model_ready
from readi_graph.cli.errors import ANSWERED, BAD_INPUT, INTERNAL, UNAVAILABLE
from readi_graph.cli.options import add_common, chosen_strategies, context_from, reply_cache
from readi_graph.core.context import ReadiContext
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.eval import ledger, runner
from readi_graph.eval.metrics import kgqa_scores


@dataclass
class Plan:
    """How one strategy runs the questions: its graph (per question), scorer, run context,
    extra fields per results line, notes for its summary and what drives it."""

    graph_for: Callable[[runner.Item], Any]
    scorer: runner.Scorer
    label: str
    context: ReadiContext
    annotate: Callable[[runner.Item, runner.Record], None] | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    driven_by: str = ""


def compare(args: argparse.Namespace, items: list[runner.Item], plans: dict[str, Plan]) -> int:
    """The same questions through each strategy's plan: one results file and one summary line
    each (`<out>.<strategy>.jsonl` when there are several), then the ledger (eval/ledger.py)
    on stderr and in `<out>.ledger.md`, and `{"compare": ...}` as the last line. Each
    strategy starts cold: its own KG caches (`KnowledgeGraph.cold`), phrase embeddings emptied."""
    from readi_graph.environments.kg.name_triples import POOLED_VECTORS
    from readi_graph.environments.kg.relations.encoder import phrases

    rows = []
    code = ANSWERED
    for strategy, plan in plans.items():
        phrases.cache_clear()  # process-wide caches: each strategy starts cold
        POOLED_VECTORS.cache_clear()  # relation vectors of per-question subgraphs
        out = args.out
        if out and len(plans) > 1:
            out = str(Path(out).with_suffix(f".{strategy}.jsonl"))
        summary, records = _run(args, items, strategy, plan, out)
        print(json.dumps({**summary, **plan.notes}, ensure_ascii=False), flush=True)
        code = max(code, every_question_failed(records, strategy))
        if len(plans) > 1:
            rows.append(ledger.row(strategy, summary, records, plan.context, plan.driven_by))
    if rows:
        text = ledger.table(rows)
        print(text, file=sys.stderr)
        if args.out:
            Path(args.out).with_suffix(".ledger.md").write_text(text + "\n", encoding="utf-8")
        print(json.dumps(ledger.as_json(rows), ensure_ascii=False))
    return code


UNAVAILABLE_ERRORS = ("ModelNotConfigured", "ModelUnavailable", "ModelRefused",
                      "LocalModelUnavailable", "EndpointUnavailable", "QueryRejected")  # fmt: skip


def every_question_failed(records: list[runner.Record], strategy: str) -> int:
    """0 unless every question ended in an error (a run that cannot have answered anything):
    then one line with the first error, and the code of its kind (`cli/errors.py`)."""
    if not records or not all(r.get("error") for r in records):
        return ANSWERED
    first = str(records[0]["error"])
    kind = first.split(":", 1)[0] if ": " in first else ""
    name = f" ({strategy})" if strategy else ""
    print(f"readi eval{name}: every question failed; the first: {first}", file=sys.stderr)
    if not kind.isidentifier() or kind in UNAVAILABLE_ERRORS:  # no type: the KG failed
        return UNAVAILABLE
    return BAD_INPUT if kind.endswith(("InputError", "TooLong")) else INTERNAL


def _run(
    args: argparse.Namespace, items: list[runner.Item], strategy: str, plan: Plan, out: str | None
) -> tuple[runner.Record, list[runner.Record]]:
    """One strategy's run: its summary, and the results lines of the questions asked (those
    resumed from `out` included)."""
    fresh: list[runner.Record] = []

    def annotate(item: runner.Item, record: runner.Record) -> None:
        if plan.annotate is not None:
            plan.annotate(item, record)
        if strategy:  # a graph's run (gold paths without a graph have no strategy)
            record["strategy"] = strategy
            record["calls_bound"] = ledger.bound_of(strategy, record, plan.context)
        fresh.append(record)

    summary = runner.run(items, plan.graph_for, plan.scorer, context=plan.context,
                         label=plan.label, out=out, resume=args.resume,
                         concurrency=args.concurrency, asynchronous=args.asynchronous,
                         annotate=annotate)  # fmt: skip
    wanted = {item.id for item in items}
    records = runner.read_results(Path(out)) if out else fresh
    return summary, [r for r in records if r.get("id") in wanted]


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
    strategy: str = "",
) -> int:
    """Run the items once (through `strategy`'s graph, if named), print the summary as the
    last line."""
    plan = Plan(graph_for, scorer, label, context or context_from(args), annotate, notes or {})
    return compare(args, items, {strategy: plan})


def _same(graph: Any, _item: runner.Item) -> Any:
    return graph


def evaluate_kg_model(
    args: argparse.Namespace,
    kg: KnowledgeGraph | Callable[[runner.Item], KnowledgeGraph],
    items: list[runner.Item],
    label: str,
    *,
    annotate: Callable[[runner.Item, runner.Record], None] | None = None,
    notes: dict[str, Any] | None = None,
) -> int:
    """A chat model over a KG with each strategy `--strategy` names, on the same questions
    (several: results in `<out>.<strategy>.jsonl`, compared by the ledger). `kg` is one KG for
    every question, or a function that builds each question its own when the question starts
    (per-question subgraphs). `notes` are printed with each summary (e.g. where the topic
    entities came from)."""
    context, cache = context_from(args), reply_cache(args)
    model_ready(context, bool(args.model))  # nothing serves the named model: stop here
    plans = {}
    for strategy in chosen_strategies(args.strategy, "kg"):
        # each strategy on empty caches (the caller may have warmed `kg`, e.g. topic labels)
        graph_for = _graphs(cold(kg), strategy, context=context, reply_cache=cache)
        plans[strategy] = Plan(graph_for, kgqa_scores, f"{label} {strategy}", context,
                               annotate, dict(notes or {}))  # fmt: skip
    return compare(args, items, plans)


def cold(kg: Any) -> Any:
    """`kg` behind empty caches (`KnowledgeGraph.cold`); per-question KGs are built cold."""
    return kg.cold() if isinstance(kg, KnowledgeGraph) else kg


def _graphs(
    kg: KnowledgeGraph | Callable[[runner.Item], KnowledgeGraph], strategy: str, **options: Any
) -> Callable[[runner.Item], Any]:
    """The compiled graph each question runs: one for every question, or one per question
    over its own KG (compiled when the question starts, dropped when it ends)."""
    from readi_graph.graph import build_graph

    if isinstance(kg, KnowledgeGraph):
        return functools.partial(_same, build_graph(kg, strategy=strategy, **options))
    return lambda item: build_graph(kg(item), strategy=strategy, **options)


def add_parsers(parsers: Any) -> None:
    """`readi eval <dataset>` for every registered dataset (`readi_graph.datasets`)."""
    for dataset in datasets.DATASETS.values():
        parser = parsers.add_parser(dataset.name, help=dataset.help)
        add_common(parser, split=dataset.split)
        dataset.add_arguments(parser)
