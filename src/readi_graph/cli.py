"""`readi` command line: ask a question, evaluate on a benchmark."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

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


def load_kg(source: str | None) -> KnowledgeGraph:
    """A KG from a URL (SPARQL endpoint), a MetaQA kb.txt, an RDF file, or the demo KG."""
    if not source:
        from readi_graph.demo import demo_kg

        return demo_kg()
    if source.startswith(("http://", "https://")):
        return KnowledgeGraph.from_endpoint(source)
    if source.endswith(".txt"):
        return KnowledgeGraph.from_metaqa(source)
    return KnowledgeGraph.from_file(source)


def _progress(node: str, update: dict[str, Any]) -> str:
    """One line per finished node, for people watching a question being answered."""
    if node in ("generate", "edit"):
        plan = update.get("plan") or {}
        paths = "; ".join(" -> ".join([t, *r]) for t, alts in plan.items() for r in alts)
        label = "edit" if node == "edit" else "generate"
        return f"[{label}] " + (paths or f"unreadable output: {update.get('parse_error')}")
    if node == "bind":
        n = sum(len(c) for alts in update.get("bindings", {}).values() for a in alts for c in a)
        return f"[bind] {n} candidate KG relations"
    if node == "connect":
        done = [
            f"{i['path']['topic']}: {'complete' if i['complete'] else 'stuck'} "
            f"({i['depth']}/{len(i['path']['relations'])} relations)"
            for i in update.get("instances", [])
        ]
        return "[connect] " + ("; ".join(done) or "nothing to instantiate")
    if node == "diagnose":
        reasons = (update.get("diagnosis") or {}).get("reasons") or []
        return "[diagnose] " + ("ok" if not reasons else "; ".join(r["message"] for r in reasons))
    return f"[{node}] done"


def _ask(args: argparse.Namespace) -> int:
    from readi_graph.context import ReadiContext
    from readi_graph.graph import build_graph
    from readi_graph.state import ReadiInput

    kg = load_kg(args.kg)
    context = ReadiContext(
        max_edits=args.max_edits, **({"model": args.model} if args.model else {})
    )
    graph = build_graph(kg, context=context)
    question: ReadiInput = {"question": args.question, "topic_entities": args.entity}
    final: dict[str, Any] = {}
    parts = graph.stream(question, context=context, stream_mode=["updates", "values"])
    for part in parts:  # (mode, chunk) pairs, as two stream modes were asked for
        mode, data = cast(tuple[str, dict[str, Any]], part)
        if mode == "updates":
            for node, update in data.items():
                print(_progress(node, update or {}), file=sys.stderr, flush=True)
        else:
            final = data
    print(f"\nAnswer: {final.get('answer', '').strip()}")
    print(f"Answers: {final.get('answers')}  (grounded: {final.get('grounded')})")
    print("Path: " + " | ".join(final.get("path") or []))
    print("Evidence:")
    for s, p, o in (final.get("evidence") or [])[: args.show]:
        print(f"  ({s}, {p}, {o})")
    print("Usage: " + json.dumps(final.get("usage")))
    return 0


def _read_predictions(path: Path) -> dict[str, list[str]]:
    """JSON lines (`id` + `prediction`/`answers`: a list, or a `|`-joined string), or the
    official TSV (`id<TAB>answer<TAB>answer...`, TSV-escaped)."""
    from readi_graph.eval.wtq import unescape_tsv

    predictions: dict[str, list[str]] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            if path.suffix in (".jsonl", ".json"):
                try:
                    record = json.loads(line)
                    value = record.get("prediction", record.get("answers", []))
                    key = str(record["id"])
                except (json.JSONDecodeError, KeyError, AttributeError) as exc:
                    raise ReadiError(f"{path}:{number}: not a prediction record ({exc})") from exc
                predictions[key] = value.split("|") if isinstance(value, str) else list(value)
            else:
                key, *answers = line.rstrip("\n").split("\t")
                predictions[key] = [unescape_tsv(a) for a in answers]
    return predictions


def _score_wtq(args: argparse.Namespace) -> int:
    from readi_graph.eval.wtq import denotation_correct, load_questions

    questions = list(load_questions(args.data, args.split))
    predictions = _read_predictions(Path(args.predictions))
    correct = sum(
        denotation_correct(q.answers, predictions[q.id]) for q in questions if q.id in predictions
    )
    missing = sum(q.id not in predictions for q in questions)
    n = len(questions)
    print(
        json.dumps(
            {
                "n": n,
                "accuracy": round(correct / max(n, 1), 5),
                "correct": correct,
                "missing": missing,
            }
        )
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="readi", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    ask = commands.add_parser("ask", help="answer a question over a KG with Readi")
    ask.add_argument("question")
    ask.add_argument("--kg", help="RDF file, MetaQA kb.txt or SPARQL endpoint URL (default: demo)")
    ask.add_argument("--entity", action="append", required=True, help="topic entity (repeatable)")
    ask.add_argument("--model", help="model name (default: READI_MODEL or gpt-4o-mini)")
    ask.add_argument("--max-edits", type=int, default=4)
    ask.add_argument("--show", type=int, default=20, help="evidence triples to print")
    ask.set_defaults(func=_ask)

    score = commands.add_parser("score", help="score predictions with a benchmark's metric")
    score_sets = score.add_subparsers(dest="dataset", required=True)
    wtq = score_sets.add_parser("wtq", help="official WikiTableQuestions denotation accuracy")
    wtq.add_argument("--data", required=True, help="dataset directory (data/<split>.tsv)")
    wtq.add_argument("--split", default="training")
    wtq.add_argument("--predictions", required=True, help="JSON lines or the official TSV")
    wtq.set_defaults(func=_score_wtq)

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
