"""Progress of a run as custom stream events: one line per finished node.

Each node is wrapped by `reporting`, which describes the node's own update in a sentence and
writes `{"readi": {"node": ..., "message": ...}}` with LangGraph's stream writer. Callers see
it with `graph.stream(..., stream_mode="custom")` (the CLI prints it, Studio shows it), with
no need to guess from state values what happened.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from langchain_core.runnables import RunnableLambda
from langgraph.runtime import Runtime

from readi_graph.context import ReadiContext
from readi_graph.nodes import ModelNode

Update = dict[str, Any]
EVENT = "readi"  # the key of readi-graph's custom stream events


def _plan(node: str, update: Update) -> str:
    plan = update.get("plan") or {}
    if "headers" in plan:
        paths = f"headers {plan['headers']}, constraints {plan.get('constraints')}"
    else:
        paths = "; ".join(" -> ".join([t, *r]) for t, alts in plan.items() for r in alts)
    return paths or f"unreadable reply: {update.get('parse_error')}"


def _bind(update: Update, environment: str) -> str:
    bindings = update.get("bindings") or {}
    if environment == "table":
        return ", ".join(f"{h} -> {c or 'not in the table'}" for h, c in bindings.items())
    n = sum(len(c) for alts in bindings.values() for a in alts for c in a)
    return f"{n} candidate KG relations"


def _connect(update: Update, environment: str) -> str:
    done = []
    for i in update.get("instances") or []:
        if environment == "table":
            fallback = " (constraints matched nothing: all rows)" if i.get("fallback") else ""
            done.append(f"{len(i.get('headers', []))} columns, {i.get('total')} rows{fallback}")
        else:
            state = "complete" if i.get("complete") else "stuck"
            relations = len(i["path"]["relations"])
            done.append(f"{i['path']['topic']}: {state} ({i.get('depth')}/{relations} relations)")
    return "; ".join(done) or "nothing to instantiate"


def describe(node: str, update: Update, environment: str = "kg") -> str:
    """A sentence for people watching a question being answered."""
    if update.get("failure"):
        return f"the environment failed: {update['failure']}"
    if node in ("generate", "edit"):
        return _plan(node, update)
    if node == "bind":
        return _bind(update, environment)
    if node == "connect":
        return _connect(update, environment)
    if node == "diagnose":
        reasons = (update.get("diagnosis") or {}).get("reasons") or []
        return "ok" if not reasons else "; ".join(r["message"] for r in reasons)
    if node == "plan":  # FiDeLiS
        plan = update.get("plan") or {}
        return f"keywords {plan.get('keywords')}; statement {plan.get('statement')!r}"
    if node == "expand":
        step = (update.get("attempts") or [{}])[-1]
        return f"step {step.get('step')}: {step.get('candidates')} candidates"
    if node in ("select", "verify"):
        verified = update.get("finished")
        extra = "" if verified is None else f", {len(verified)} verified"
        return f"{len(update.get('beams') or [])} beams{extra}"
    if node in ("answer", "reason"):
        return f"answers {update.get('answers')}" + (
            " (grounded)" if update.get("grounded") else ""
        )
    return "done"


def emit(node: str, update: Update, environment: str) -> None:
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (RuntimeError, KeyError):  # the node runs outside a graph
        return
    writer({EVENT: {"node": node, "message": describe(node, update or {}, environment)}})


def reporting(name: str, node: Callable[..., Update] | ModelNode, environment: str) -> Any:
    """`node`, emitting its progress event when it returns. A plain function keeps the
    signature LangGraph reads to inject the runtime; a `ModelNode` becomes one runnable with
    its sync and async paths (LangGraph picks the one the run needs)."""
    if isinstance(node, ModelNode):
        sync, asynchronous = node.func, node.afunc

        def func(state: Any) -> Update:
            update = sync(state)
            emit(name, update, environment)
            return update

        async def afunc(state: Any) -> Update:
            update = await asynchronous(state)
            emit(name, update, environment)
            return update

        return RunnableLambda(func, afunc=afunc, name=name)
    if "runtime" in inspect.signature(node).parameters:

        def with_runtime(state: Any, runtime: Runtime[ReadiContext] | None = None) -> Update:
            update = node(state, runtime)
            emit(name, update, environment)
            return update

        return with_runtime

    def plain(state: Any) -> Update:
        update = node(state)
        emit(name, update, environment)
        return update

    return plain
