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

from readi_graph.cli.checks import entities_known, kg_answers, model_ready, writable_target
from readi_graph.cli.errors import ANSWERED, NO_EVIDENCE, UNAVAILABLE
from readi_graph.cli.human import read_reply, show_edit_request
from readi_graph.cli.options import context_from, load_kg, load_table
from readi_graph.core.base import InputError
from readi_graph.core.inputs import checked_question
from readi_graph.core.run.progress import EVENT
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.table.table import Table


def run(args: argparse.Namespace) -> int:
    """Check everything that can be checked before a model is loaded or called (the
    question, the files, the KG and `--entity`, the model's configuration), run, then exit
    with what the run found (`cli/errors.py`)."""
    from langgraph.types import Command

    from readi_graph.core.state import ReadiInput
    from readi_graph.graph import build_graph

    context = context_from(args)
    checked_question(args.question, context.max_question_chars)
    human = args.editor == "human"
    if human and args.strategy != "readi":
        raise InputError(f"--editor human edits Readi's paths, not {args.strategy}'s")
    if args.table and args.entity:
        raise InputError("--entity names a topic entity of a KG; a --table question has none")
    if args.trace:
        writable_target(args.trace, "--trace")
    env: KnowledgeGraph | Table = load_table(args.table) if args.table else load_kg(args.kg)
    if isinstance(env, KnowledgeGraph):
        kg_answers(env)  # an endpoint that cannot be reached fails here, before any model
        entities_known(env, args.entity or [])
    model_ready(context, bool(args.model))
    if human:
        from langgraph.checkpoint.memory import InMemorySaver

        context = dataclasses.replace(context, editor="human")
    graph = build_graph(
        env, context=context, strategy=args.strategy,
        checkpointer=InMemorySaver() if human else None,
    )  # fmt: skip
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
    print(f"\nAnswer: {shown_answer(final.get('answer') or '')}")
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
    return _ending(args, final)


def _ending(args: argparse.Namespace, final: dict[str, Any]) -> int:
    """The exit code of a finished run, and its one line on stderr when not answered."""
    source = "table" if args.table else "knowledge graph"
    if final.get("error"):
        print(f"readi: error: the {source} failed: {final['error']}", file=sys.stderr)
        return UNAVAILABLE
    if not args.table and not args.entity:
        found = final.get("topic_entities") or []
        if not found:
            print(
                "readi ask: no topic entity was found in the question; name one with --entity",
                file=sys.stderr,
            )
            return NO_EVIDENCE
        print(
            "readi ask: topic entities found in the question: " + ", ".join(found), file=sys.stderr
        )
    # a KG answer must be named in the evidence; a table's may be computed from its rows (a
    # count, a total: no cell holds it)
    from_rows = bool(args.table and final.get("evidence"))
    if final.get("answers") and (final.get("grounded", True) or from_rows):
        return ANSWERED
    print(f"readi ask: no answer from the {source} (see the notes above)", file=sys.stderr)
    return NO_EVIDENCE


def shown_answer(text: str) -> str:
    """The answer as a person reads it: a JSON reply (the bundled model answers in JSON) as
    its answers and its reasoning, anything else as written."""
    stripped = text.strip()
    try:
        reply = json.loads(stripped) if stripped.startswith("{") else None
    except json.JSONDecodeError:
        reply = None
    if not isinstance(reply, dict):
        return stripped
    answers = reply.get("answers")
    listed = [str(a) for a in answers] if isinstance(answers, list) else []
    thought = str(reply.get("thought") or "").strip()
    shown = "; ".join(a for a in listed if a.strip()) or "(none)"
    return f"{shown}\n  (reasoning: {thought})" if thought else shown
