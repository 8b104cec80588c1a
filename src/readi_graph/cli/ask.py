"""`readi ask`: answer one question over a KG or a table, showing each node as it finishes.

Without `--entity`, the KG's names are looked for in the question (`KnowledgeGraph.
link_topic_entities`); what was found, or that nothing was, is printed with the notes. With
`--editor human`, a person edits stuck paths from the terminal (`cli/human.py`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any, cast

from readi_graph.cli.human import read_reply, show_edit_request
from readi_graph.cli.options import context_from, load_kg, load_table
from readi_graph.core.progress import EVENT
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.table.table import Table
from readi_graph.strategies import UnknownStrategy


def run(args: argparse.Namespace) -> int:
    from langgraph.types import Command

    from readi_graph.core.state import ReadiInput
    from readi_graph.graph import build_graph

    env: KnowledgeGraph | Table = load_table(args.table) if args.table else load_kg(args.kg)
    context = context_from(args)
    human = args.editor == "human"
    if human and args.strategy != "readi":
        print(
            f"readi ask: --editor human edits Readi's paths, not {args.strategy}'s", file=sys.stderr
        )
        return 2
    if human:
        from langgraph.checkpoint.memory import InMemorySaver

        context = dataclasses.replace(context, editor="human")
    try:
        graph = build_graph(
            env, context=context, strategy=args.strategy,
            checkpointer=InMemorySaver() if human else None,
        )  # fmt: skip
    except UnknownStrategy as exc:
        print(f"readi ask: {exc}", file=sys.stderr)
        return 2
    question: ReadiInput = {"question": args.question}
    if args.entity:
        question["topic_entities"] = args.entity
    config: Any = {"configurable": {"thread_id": "readi-ask"}} if human else None
    step: Any = question
    while True:
        final = _stream(graph, step, context, config)
        waiting = graph.get_state(config).interrupts if human else ()
        if not waiting:
            break
        show_edit_request(waiting[0].value, context.max_edits, sys.stderr)
        step = Command(resume=read_reply(sys.stdin))
    return _report(args, final)


def _stream(graph: Any, step: Any, context: Any, config: Any) -> dict[str, Any]:
    """Run until the end or a pause, printing each node's progress; the last state."""
    final: dict[str, Any] = {}
    parts = graph.stream(step, config, context=context, stream_mode=["custom", "values"])
    for part in parts:  # (mode, chunk) pairs, as two stream modes were asked for
        mode, data = cast(tuple[str, dict[str, Any]], part)
        if mode == "custom" and EVENT in data:  # each node's progress (progress.py)
            event = data[EVENT]
            print(f"[{event['node']}] {event['message']}", file=sys.stderr, flush=True)
        elif mode == "values" and "__interrupt__" not in data:
            final = data
    return final


def _report(args: argparse.Namespace, final: dict[str, Any]) -> int:
    print(f"\nAnswer: {final.get('answer', '').strip()}")
    print(f"Answers: {final.get('answers')}  (grounded: {final.get('grounded')})")
    print("Path: " + " | ".join(final.get("path") or []))
    print("Evidence:")
    for item in (final.get("evidence") or [])[: args.show]:
        print("  (" + ", ".join(item) + ")" if not args.table else "  " + " | ".join(item))
    for note in final.get("notes") or []:
        print(f"Note: {note}")
    print("Usage: " + json.dumps(final.get("usage")))
    if args.trace:
        from readi_graph.trace import write_trace

        print(f"Trace: {write_trace(final, args.trace, question=args.question)}")
    if not args.table and not args.entity:
        found = final.get("topic_entities") or []
        if not found:
            print(
                "readi ask: no topic entity was found in the question; name one with --entity",
                file=sys.stderr,
            )
            return 1
        print(
            "readi ask: topic entities found in the question: " + ", ".join(found), file=sys.stderr
        )
    return 0
