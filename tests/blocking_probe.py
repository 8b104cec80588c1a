"""Run every registered strategy's graph under `ainvoke` with blockbuster watching the event
loop: any blocking call made on the loop (a file read, a sleep, a socket, a subprocess, ...)
raises `BlockingError` inside the run. Run as a fresh process (`tests/test_blocking.py`), so
the first run is cold: demo KG not loaded, prompts not read, encoder not loaded, caches empty.

    python tests/blocking_probe.py [--local]

Prints the registry's (strategy, environment) pairs ({"registry": [...]}), then one JSON line
per run: {"strategy", "environment", "model", "ok", "error"}. `--local`
adds a Readi run over the demo KG with no model given and no `OPENAI_*` variable, i.e. the
bundled local model resolved, loaded (converted first, in a cold cache) and called.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from blockbuster import BlockBuster

from readi_graph import strategies
from readi_graph.core import markers
from readi_graph.core.context import ReadiContext
from readi_graph.demo import demo_kg, demo_table
from readi_graph.graph import build_graph

from fakes import function_model

QUESTIONS = {
    "kg": {
        "question": "which films did Robert Zemeckis direct",
        "topic_entities": ["Robert Zemeckis"],
    },
    "table": {"question": "in which season did the club finish highest?"},
}


def reply(prompt: str) -> str:
    """Right-shaped replies for the known strategies' prompts; plain text for any other (a
    strategy registered later still runs end to end, through its own unparseable-reply path)."""
    if prompt.startswith(markers.TABLE_GENERATE):
        return 'Chosen Headers: ["Season", "Position"]\nConstraints: {}'
    if markers.KG_GENERATE in prompt or markers.KG_EDIT in prompt:
        return 'Path: {"Robert Zemeckis": ["Robert Zemeckis -> directed"]}'
    if markers.FIDELIS_PLAN in prompt:
        return '{"keywords": ["directed"], "planning_steps": [], "declarative_statement": "x"}'
    if markers.FIDELIS_SELECT in prompt:
        return "[1]"
    if markers.FIDELIS_VERIFY in prompt:
        return "yes"
    return "Answer: {Forrest Gump}"


def blockbuster() -> BlockBuster:
    """Every blocking function blockbuster knows, in every module (stricter than `langgraph
    dev`, which lets file reads, `os.stat` and lock waits through)."""
    bb = BlockBuster(excluded_modules=[])
    # Writing a log line to stderr is what any server does on its loop.
    for module, function in (("logging/__init__.py", "emit"), ("logging/__init__.py", "flush")):
        bb.functions["io.TextIOWrapper.write"].can_block_in(module, function)
        bb.functions["io.BufferedWriter.write"].can_block_in(module, function)
    return bb


async def run(graph: Any, question: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        out = await graph.ainvoke(question, context=context)
    except Exception as exc:  # reported, the probe goes on with the next graph
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:3000]}
    return {"ok": isinstance(out.get("answer"), str), "error": out.get("error")}


async def main(local: bool) -> None:
    runs: list[tuple[str, str, str, Any, Any]] = []
    for strategy in strategies.STRATEGIES.values():
        for environment in strategy.environments:
            env = demo_kg() if environment == "kg" else demo_table()  # fresh: nothing loaded
            graph = build_graph(env, function_model(reply), strategy=strategy.name)
            runs.append((strategy.name, environment, "scripted", graph, None))
    registry = [[name, environment] for name, environment, *_ in runs]
    print(json.dumps({"registry": registry}), flush=True)
    if local:
        graph = build_graph(demo_kg())  # no model: the environment's, else the bundled one
        runs.append(("readi", "kg", "local", graph, ReadiContext(max_edits=0)))
    bb = blockbuster()
    bb.activate()
    try:
        for name, environment, model, graph, context in runs:
            result = await run(graph, QUESTIONS[environment], context)
            line = {"strategy": name, "environment": environment, "model": model, **result}
            print(json.dumps(line), flush=True)
    finally:
        bb.deactivate()


if __name__ == "__main__":
    asyncio.run(main("--local" in sys.argv[1:]))
