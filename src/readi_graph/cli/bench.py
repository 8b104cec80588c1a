"""`readi bench binding`: recall@1/5/10 of relation binding (see bench/binding_recall.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from readi_graph.cli.checks import (
    at_least,
    existing_dir,
    existing_file,
    fraction,
    listed,
    non_negative,
)
from readi_graph.core.base import InputError


def bench_binding(args: argparse.Namespace) -> int:
    from readi_graph.bench.binding_recall import bench_freebase, bench_metaqa

    dense = {"auto": None, "on": True, "off": False}[args.dense]
    results: dict[str, Any] = {}
    if args.metaqa:
        results["metaqa"] = bench_metaqa(args.metaqa, dense)
        print(json.dumps({"metaqa": results["metaqa"]}), flush=True)
    if args.freebase and not args.real:
        results["freebase"] = bench_freebase(args.freebase, args.sample or None, dense)
        print(json.dumps({"freebase": results["freebase"]}), flush=True)
    if args.real:
        if not args.freebase:
            raise InputError("--real needs --freebase DIR (the relation inventory to bind against)")
        from readi_graph.bench.binding_real import bench_real

        results["real"] = bench_real(
            args.real, args.freebase, dense=dense, question_weight=args.question_weight
        )
        print(json.dumps({"real": results["real"]}), flush=True)
        return 0
    if not results:
        raise InputError("give --metaqa DIR, --freebase DIR and/or --real DIR --freebase DIR")
    return 0


def bench_replay(args: argparse.Namespace) -> int:
    from pathlib import Path

    from readi_graph.bench.binding_real import real_files
    from readi_graph.bench.replay import bench_replay as replay

    source = Path(args.real)
    if not source.exists():
        raise InputError(f"--real {source}: no such file or directory")
    files = real_files(source) if source.is_dir() else [source]
    if not files:
        raise InputError(f"--real {source}: no model-path files there")
    if args.subgraphs:  # each question on its own subgraph
        from readi_graph.bench.subgraph_replay import replay_on_subgraphs

        for file in files:
            result = replay_on_subgraphs(file, args.subgraphs, args.freebase, split=args.split)
            print(json.dumps({file.stem: result}), flush=True)
        return 0
    if not args.run or not args.freebase:
        raise InputError("give --run (the authors' run) and --freebase DIR, or --subgraphs PATH")
    for file in files:
        print(json.dumps({file.stem: replay(file, args.run, args.freebase)}), flush=True)
    return 0


def bench_pathrag(args: argparse.Namespace) -> int:
    import itertools
    from pathlib import Path

    from readi_graph.bench.analyses import pathrag_coverage
    from readi_graph.datasets.metaqa import load_questions
    from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph

    if args.subgraphs:
        return _pathrag_subgraphs(args)
    if not args.data or not args.hops:
        raise InputError("give --data DIR --hops N (MetaQA), or --subgraphs PATH")
    kg = KnowledgeGraph.from_metaqa(existing_file(Path(args.data) / "kb.txt", "--data"))
    questions = list(itertools.islice(load_questions(args.data, args.hops, "dev"), args.limit))
    result = pathrag_coverage(kg, questions, args.alphas, top_m=args.top_m)
    print(json.dumps({"pathrag": {"hops": args.hops, **result}}))
    return 0


def _pathrag_subgraphs(args: argparse.Namespace) -> int:
    from readi_graph.bench.subgraph_pathrag import pathrag_on_subgraphs
    from readi_graph.datasets.subgraphs import load_subgraphs

    subgraphs, questions = load_subgraphs(args.subgraphs, args.split, args.limit)
    with subgraphs:
        result = pathrag_on_subgraphs(subgraphs, questions, args.alphas, top_m=args.top_m)
    print(json.dumps({"pathrag": {"subgraphs": str(args.subgraphs), **result}}))
    return 0


def bench_linking(args: argparse.Namespace) -> int:
    from readi_graph.bench.entity_linking import bench_linking as measure

    existing_dir(args.data, "--data")
    result = measure(args.data, args.hops, args.split, args.limit, as_endpoint=args.as_endpoint)
    print(json.dumps({"linking": result}))
    return 0


def add_parsers(commands: Any) -> None:
    bench = commands.add_parser("bench", help="measure parts of the pipeline without an LLM")
    kinds = bench.add_subparsers(dest="bench", required=True)
    binding = kinds.add_parser("binding", help="recall@k of NL relation phrases to KG relations")
    binding.add_argument("--metaqa", help="MetaQA directory (1-hop question templates)")
    binding.add_argument("--freebase", help="directory of fb_relations_domain_range_label.json")
    binding.add_argument(
        "--sample", type=at_least(0), default=2000, help="Freebase labels (0: all)"
    )
    binding.add_argument(
        "--real",
        help="directory of model paths in the readi_cwq format (bound against --freebase)",
    )
    binding.add_argument(
        "--question-weight", type=non_negative, default=None, help="weight of the question's scores"
    )
    binding.add_argument("--dense", choices=("auto", "on", "off"), default="auto")
    binding.set_defaults(func=bench_binding)

    replay = kinds.add_parser(
        "replay", help="replay real model paths on the authors' Freebase fragment (no edits)"
    )
    replay.add_argument("--real", required=True, help="model-path file or directory (readi_cwq)")
    replay.add_argument("--run", help="the authors' run (JSON lines with triples)")
    replay.add_argument("--freebase", help="Freebase relation inventory directory")
    _subgraph_arguments(replay)
    replay.set_defaults(func=bench_replay)

    pathrag = kinds.add_parser(
        "pathrag", help="FiDeLiS: gold relation among Path-RAG's top-m candidates, alpha sweep"
    )
    pathrag.add_argument("--data", help="MetaQA directory")
    pathrag.add_argument("--hops", type=int, choices=(1, 2, 3))
    _subgraph_arguments(pathrag)
    pathrag.add_argument("--limit", type=at_least(1), default=200, help="first N dev questions")
    pathrag.add_argument("--alphas", type=listed(fraction), default=[0.0, 0.3, 0.6])
    pathrag.add_argument("--top-m", type=at_least(1), default=10)
    pathrag.set_defaults(func=bench_pathrag)

    linking = kinds.add_parser(
        "linking", help="entity linking: the topic entity found in a MetaQA question = gold?"
    )
    linking.add_argument("--data", required=True, help="MetaQA directory")
    linking.add_argument("--hops", type=int, nargs="+", choices=(1, 2, 3), default=[1, 2, 3])
    linking.add_argument("--split", default="dev")
    linking.add_argument(
        "--limit", type=at_least(1), default=None, help="first N questions per hop"
    )
    linking.add_argument(
        "--as-endpoint",
        action="store_true",
        help="no label scan: the bounded look-ups an endpoint gets (counts queries)",
    )
    linking.set_defaults(func=bench_linking)

    report = commands.add_parser("report", help="markdown report with plots from results")
    report.add_argument(
        "results",
        nargs="+",
        help="JSON lines written by `readi eval --out`; several files, or the --out of a "
        "comparison (`--strategy a,b`), put the strategies side by side",
    )
    report.add_argument("--out", required=True, help="directory for report.md and the plots")
    report.add_argument(
        "--requested",
        type=at_least(1),
        help="questions the run was asked (when RESULTS.requested.json, which the runner "
        "writes, is absent): the ones without a line count as missing",
    )
    report.set_defaults(func=write_report)


def _subgraph_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--subgraphs",
        help="per-question subgraphs in RoG's format (JSON lines, Parquet or the release's "
        "directory): each question on its own subgraph",
    )
    parser.add_argument("--split", help="which split of a release directory (test, validation)")


def write_report(args: argparse.Namespace) -> int:
    from readi_graph.eval.ledger_report import runs_of, strategy_of, write_side_by_side
    from readi_graph.eval.report import write_report as write

    paths = [Path(p) for p in args.results]
    runs = runs_of(paths[0]) if len(paths) == 1 else {strategy_of(p): p for p in paths}
    if runs:
        print(write_side_by_side(runs, args.out))
    else:
        print(write(paths[0], args.out, requested=args.requested))
    return 0
