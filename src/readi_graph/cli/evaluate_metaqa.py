"""`readi eval metaqa`: gold paths (the environment alone), offline planners with an oracle
editor and the scripted answer (the paper's Table 3 and, with `--budgets`, Table 9), or a
model. Offline runs are scored on the answer step's answers and on the instance ends
(eval/instance_ends.py)."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from readi_graph import strategies
from readi_graph.cli.checks import at_least, existing_file, kg_answers, listed, non_negative
from readi_graph.cli.evaluate import Plan, cold, compare, evaluate_kg_model
from readi_graph.cli.options import add_kg_source, chosen_strategies, context_from, reply_cache
from readi_graph.core.base import InputError
from readi_graph.environments.kg.knowledge_graph import KGSettings, KnowledgeGraph
from readi_graph.environments.kg.relations.binding import BindingOptions
from readi_graph.eval import runner
from readi_graph.eval.instance_ends import ends_as_answers, ends_scores
from readi_graph.eval.metrics import kgqa_scores

answer_among = ends_as_answers  # the name the benchmarks import


def add_arguments(metaqa: argparse.ArgumentParser) -> None:
    add_kg_source(metaqa)
    metaqa.add_argument("--hops", type=int, choices=(1, 2, 3), required=True)
    metaqa.add_argument(
        "--planner",
        choices=("gold", "empty", "corrupt", "model"),
        default=None,
        help="Readi's first path from the gold data (gold: instantiation only; empty/corrupt: "
        "the paper's Table 3 settings) or --model (default: model if --model, else gold; "
        "corrupt when strategies are compared). Other strategies without --model are driven "
        "by their gold-chain oracles (offline/oracles.py)",
    )
    metaqa.add_argument(
        "--editor",
        choices=("oracle", "oracle-all-ids", "none"),
        help="offline editor: oracle (writes a KG id only where a prompt showed it, else a "
        "paraphrase: the paper's setting), oracle-all-ids (before issue 24: the whole gold path "
        "in ids once the missing piece is offered), none (repeats the path)",
    )
    metaqa.add_argument(
        "--budgets",
        type=listed(at_least(0)),
        help="edit budgets to sweep, e.g. 0,1,2,4,8 (offline planners; Table 9)",
    )
    metaqa.add_argument(
        "--latency",
        type=non_negative,
        default=0.0,
        help="seconds each offline model reply waits (an API stand-in, to measure throughput)",
    )
    metaqa.add_argument("--backend", choices=("oxigraph", "rdflib"), default="oxigraph")
    metaqa.add_argument(
        "--tog-oracle",
        choices=("gold", "width"),
        default="gold",
        help="what ToG's gold-chain oracle keeps per entity: the gold relation alone (gold: the "
        "fewest calls ToG can make) or with the W-1 other relations listed first (width: as a "
        "model keeping W does, so its calls compare with published ones)",
    )
    metaqa.set_defaults(func=_metaqa_entry)


def load_metaqa_kg(args: argparse.Namespace) -> KnowledgeGraph:
    settings = KGSettings(frontier_cap=args.frontier_cap)
    if args.endpoint:
        remote = KnowledgeGraph.from_endpoint(args.endpoint, settings, default_graph=args.graph)
        remote.binding = BindingOptions.named(args.binding)
        kg_answers(remote)  # an endpoint that cannot be reached fails here
        return remote
    kb = existing_file(Path(args.data) / "kb.txt", "--data")
    started = time.perf_counter()
    if args.backend == "rdflib":
        import rdflib

        from readi_graph.environments.kg.store.local import metaqa_ntriples

        graph = rdflib.Graph().parse(data=metaqa_ntriples(kb), format="nt")
        kg = KnowledgeGraph.from_rdflib(graph, settings, backend="rdflib")
    else:
        kg = KnowledgeGraph.from_metaqa(kb, settings)
    kg.binding = BindingOptions.named(args.binding)
    print(f"loaded {kb} in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return kg


def eval_metaqa(args: argparse.Namespace) -> int:
    from readi_graph.datasets.metaqa import load_questions

    questions = list(itertools.islice(load_questions(args.data, args.hops, args.split), args.limit))
    label = f"metaqa {args.hops}-hop {args.split}"
    if args.planner == "gold":
        return _metaqa_gold(args, questions, label)
    items = [
        runner.Item(
            q.id,
            {"question": q.question, "topic_entities": [q.topic]},
            list(q.answers),
            {"hops": q.hops, "qtype": q.qtype},
        )
        for q in questions
    ]
    kg = load_metaqa_kg(args)
    if args.planner == "model":
        return evaluate_kg_model(args, kg, items, label)
    plans = {}  # each strategy on empty caches: queries and seconds compare alike
    for name in chosen_strategies(args.strategy):
        own = cold(kg)
        plans[name] = (_readi_offline(args, own, questions, label) if name == "readi"
                       else _oracle_plan(args, own, questions, label, name))  # fmt: skip
    if args.budgets:
        return _sweep(args, items, plans["readi"])
    return compare(args, items, plans)


def _readi_offline(args: argparse.Namespace, kg: KnowledgeGraph, questions: list[Any],
                   label: str) -> Plan:  # fmt: skip
    """Readi driven by the offline planner and editor (and `--model` as their delegate)."""
    from readi_graph.eval.instance_ends import WithEnds
    from readi_graph.graph import build_graph
    from readi_graph.offline.readi import OfflineModel
    from readi_graph.strategies.readi.adapters import adapter_for

    delegate = None
    if args.model:  # a real model edits and answers, from the offline first path
        from readi_graph.core.models.llm import ModelRef

        delegate = ModelRef(None, context_from(args)).get()
    editor = args.editor or "none"
    offline = OfflineModel.over(questions, planner=args.planner, editor=editor, delegate=delegate)
    model: Any = offline
    if args.latency:
        from readi_graph.eval.latency import Delayed

        model = Delayed(inner=offline, seconds=args.latency)
    compiled = build_graph(kg, model, reply_cache=reply_cache(args) if delegate else None)
    graph = WithEnds(compiled, adapter_for(kg))

    def annotate(item: runner.Item, record: runner.Record) -> None:
        question = item.input["question"]
        samples, excluded = offline.outcomes(question)
        record["feedback"] = samples
        if excluded:
            record["feedback_excluded"] = excluded
        record.update(ends_scores(item.gold, graph.take(question)))

    rule = "hit1" if delegate else "hit1 of the scripted answer (offline/scripted_answer.py)"
    name = f"{label} planner={args.planner} editor={'model' if delegate else editor}"
    return Plan(
        lambda _: graph,
        kgqa_scores,
        name,
        # the graph holds the offline model (and --model only as its delegate): runs name none
        replace(context_from(args), model=None),
        annotate,
        notes={"accuracy_is": rule},
        driven_by=f"the offline planner ({args.planner}) and editor ({editor})",
    )


def _oracle_plan(args: argparse.Namespace, kg: KnowledgeGraph, questions: list[Any],
                 label: str, strategy: str) -> Plan:  # fmt: skip
    """Another strategy driven by its gold-chain oracle (offline/oracles.py)."""
    from readi_graph.graph import build_graph
    from readi_graph.offline.oracles import ORACLES, oracle

    keep = getattr(args, "tog_oracle", "gold") if strategy == "tog" else None
    options = {"keep": keep} if keep else {}
    graph = build_graph(kg, oracle(strategy, questions, **options), strategy=strategy)
    keeps = {"gold": ", the gold relation alone", "width": ", W relations"}.get(keep or "", "")
    return Plan(
        lambda _: graph,
        kgqa_scores,
        f"{label} strategy={strategy} driver=oracle" + (" keep=width" if keep == "width" else ""),
        replace(context_from(args), model=None),
        notes={"accuracy_is": "hit1 of the oracle's answers, read from what it was shown"},
        driven_by=f"its gold-chain oracle ({ORACLES[strategy].split(':')[0]}{keeps})",
    )


def _sweep(args: argparse.Namespace, items: list[Any], plan: Plan) -> int:
    """The paper's Table 9: the same questions at each edit budget, one summary per budget."""
    from readi_graph.bench.analyses import budget_sweep, sweep_out

    def run(budget: int) -> dict[str, Any]:
        summary = runner.run(
            items,
            plan.graph_for,
            plan.scorer,
            context=replace(context_from(args), model=None, max_edits=budget),
            label=f"{plan.label} max_edits={budget}",
            out=sweep_out(args.out, budget),
            concurrency=args.concurrency,
            asynchronous=args.asynchronous,
            annotate=plan.annotate,
        )
        print(json.dumps(summary), flush=True)
        return summary

    print(json.dumps({"budget_sweep": budget_sweep(run, args.budgets)}))
    return 0


def _metaqa_gold(args: argparse.Namespace, questions: list[Any], label: str) -> int:
    """The environment alone: instantiate gold paths (no graph, no LLM)."""
    from readi_graph.offline import gold

    kg = load_metaqa_kg(args)
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(open(args.out, "w", encoding="utf-8")) if args.out else None
        summary = gold.evaluate(kg, questions, label=label, out=out)
    print(json.dumps(summary))
    return 0


def _metaqa_entry(args: argparse.Namespace) -> int:
    names = chosen_strategies(args.strategy)
    compared = names != ["readi"]
    if args.planner is None:  # gold paths run no graph: a comparison starts Readi from corrupt
        args.planner = "model" if args.model else "corrupt" if compared else "gold"
        if args.planner == "corrupt" and args.editor is None:
            args.editor = "oracle"
    problem = _problem(args, names)
    if problem:
        raise InputError(problem)
    return eval_metaqa(args)


def _problem(args: argparse.Namespace, names: list[str]) -> str | None:
    """What is wrong with this combination of options, if anything."""
    from readi_graph.offline.oracles import ORACLES

    offline = args.planner not in ("gold", "model")
    if (args.editor or args.budgets) and not offline:
        return "--editor and --budgets go with --planner empty or corrupt"
    if args.budgets and names != ["readi"]:
        return "--budgets sweeps Readi's edit budget: --strategy readi"
    if args.planner == "gold" and names != ["readi"]:
        return ("--planner gold instantiates gold paths without a graph (Readi's environment "
                "alone): compare strategies with --planner empty|corrupt or --model")  # fmt: skip
    if offline and args.model and names != ["readi"]:
        return "--model with an offline planner is Readi's delegate editor: --strategy readi"
    if args.planner == "model":
        return None
    missing = [n for n in names if n != "readi" and not (_offline(n) and n in ORACLES)]
    if missing:
        return (f"--strategy {','.join(missing)} needs --model (no offline driver on MetaQA; "
                "see offline/oracles.py)")  # fmt: skip
    return None


def _offline(strategy: str) -> bool:
    return strategies.get(strategy).offline
