"""`readi ask`: answer one question over a KG or a table, showing each node as it finishes."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, cast

from readi_graph.cli.options import context_from, load_kg, load_table
from readi_graph.core.progress import EVENT
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.table.table import Table
from readi_graph.strategies import UnknownStrategy


def run(args: argparse.Namespace) -> int:
    from readi_graph.core.state import ReadiInput
    from readi_graph.graph import build_graph

    env: KnowledgeGraph | Table = load_table(args.table) if args.table else load_kg(args.kg)
    if not args.table and not args.entity:
        print("readi ask: a KG question needs --entity NAME (or use --table FILE)", file=sys.stderr)
        return 2
    context = context_from(args)
    try:
        graph = build_graph(env, context=context, strategy=args.strategy)
    except UnknownStrategy as exc:
        print(f"readi ask: {exc}", file=sys.stderr)
        return 2
    question: ReadiInput = {"question": args.question}
    if args.entity:
        question["topic_entities"] = args.entity
    final: dict[str, Any] = {}
    parts = graph.stream(question, context=context, stream_mode=["custom", "values"])
    for part in parts:  # (mode, chunk) pairs, as two stream modes were asked for
        mode, data = cast(tuple[str, dict[str, Any]], part)
        if mode == "custom" and EVENT in data:  # each node's progress (progress.py)
            event = data[EVENT]
            print(f"[{event['node']}] {event['message']}", file=sys.stderr, flush=True)
        elif mode == "values":
            final = data
    print(f"\nAnswer: {final.get('answer', '').strip()}")
    print(f"Answers: {final.get('answers')}  (grounded: {final.get('grounded')})")
    print("Path: " + " | ".join(final.get("path") or []))
    print("Evidence:")
    for item in (final.get("evidence") or [])[: args.show]:
        print("  (" + ", ".join(item) + ")" if not args.table else "  " + " | ".join(item))
    print("Usage: " + json.dumps(final.get("usage")))
    return 0
