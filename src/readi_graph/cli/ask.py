"""`readi ask`: answer one question over a KG or a table, showing each node as it finishes."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, cast

from readi_graph.context import ReadiContext
from readi_graph.envs.kg import KnowledgeGraph
from readi_graph.envs.table import Table


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


def context_from(args: argparse.Namespace) -> ReadiContext:
    """Run settings from the command line (`--model`, `--max-edits`)."""
    return ReadiContext(max_edits=args.max_edits, **({"model": args.model} if args.model else {}))


def load_table(source: str) -> Table:
    """A table from a CSV or Parquet file."""
    if source.lower().endswith(".parquet"):
        return Table.from_parquet(source)
    return Table.from_csv(source)


def _progress(node: str, update: dict[str, Any]) -> str:
    """One line per finished node, for people watching a question being answered."""
    if node in ("generate", "edit"):
        plan = update.get("plan") or {}
        if "headers" in plan:
            paths = f"headers {plan['headers']}, constraints {plan.get('constraints')}"
        else:
            paths = "; ".join(" -> ".join([t, *r]) for t, alts in plan.items() for r in alts)
        label = "edit" if node == "edit" else "generate"
        return f"[{label}] " + (paths or f"unreadable output: {update.get('parse_error')}")
    if node == "bind":
        bindings = update.get("bindings", {})
        if all(isinstance(v, str | None) for v in bindings.values()):  # a table's headers
            return "[bind] " + ", ".join(
                f"{h} -> {c or 'not in the table'}" for h, c in bindings.items()
            )
        n = sum(len(c) for alts in bindings.values() for a in alts for c in a)
        return f"[bind] {n} candidate KG relations"
    if node == "connect":
        done = [
            f"{i['path']['topic']}: {'complete' if i['complete'] else 'stuck'} "
            f"({i['depth']}/{len(i['path']['relations'])} relations)"
            if "path" in i
            else f"{len(i['headers'])} columns, {i['total']} rows"
            + (" (constraints matched nothing: all rows)" if i.get("fallback") else "")
            for i in update.get("instances", [])
        ]
        return "[connect] " + ("; ".join(done) or "nothing to instantiate")
    if node == "plan":  # FiDeLiS
        plan = update.get("plan") or {}
        return f"[plan] keywords {plan.get('keywords')}; statement {plan.get('statement')!r}"
    if node == "expand":
        step = (update.get("attempts") or [{}])[-1]
        return f"[expand] step {step.get('step')}: {step.get('candidates')} candidates"
    if node in ("select", "verify"):
        kept = update.get("beams") or []
        verified = update.get("finished")
        extra = "" if verified is None else f", {len(verified)} verified"
        return f"[{node}] {len(kept)} beams{extra}"
    if node == "diagnose":
        reasons = (update.get("diagnosis") or {}).get("reasons") or []
        return "[diagnose] " + ("ok" if not reasons else "; ".join(r["message"] for r in reasons))
    return f"[{node}] done"


def run(args: argparse.Namespace) -> int:
    from readi_graph.graph import build_graph
    from readi_graph.state import ReadiInput

    env: KnowledgeGraph | Table = load_table(args.table) if args.table else load_kg(args.kg)
    if not args.table and not args.entity:
        print("readi ask: a KG question needs --entity NAME (or use --table FILE)", file=sys.stderr)
        return 2
    context = context_from(args)
    if args.strategy == "fidelis" and args.table:
        print("readi ask: --strategy fidelis searches KGs, not tables", file=sys.stderr)
        return 2
    graph = build_graph(env, context=context, strategy=args.strategy)
    question: ReadiInput = {"question": args.question}
    if args.entity:
        question["topic_entities"] = args.entity
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
    for item in (final.get("evidence") or [])[: args.show]:
        print("  (" + ", ".join(item) + ")" if not args.table else "  " + " | ".join(item))
    print("Usage: " + json.dumps(final.get("usage")))
    return 0
