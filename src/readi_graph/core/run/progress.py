"""Progress of a run as custom stream events: one line per finished node.

Each node is wrapped by `reporting`, which describes the node's own update in a sentence (the
`describe` its strategy registered in `readi_graph.strategies`) and writes
`{"readi": {"node": ..., "message": ...}}` with LangGraph's stream writer. Callers see it with
`graph.stream(..., stream_mode="custom")` (the CLI prints it, Studio shows it), with no need
to guess from state values what happened.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.runnables import RunnableLambda
from langgraph.types import RetryPolicy

from readi_graph.core.models.llm import is_transient
from readi_graph.core.run import bridge
from readi_graph.core.run.nodes import ModelNode

Update = dict[str, Any]
EVENT = "readi"  # the key of readi-graph's custom stream events
Describe = Callable[[str, Update, str], str]  # (node, its update, environment) -> a line


def emit(node: str, update: Update, environment: str, describe: Describe) -> None:
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (RuntimeError, KeyError):  # the node runs outside a graph
        return
    writer({EVENT: {"node": node, "message": describe(node, update or {}, environment)}})


def dual_runnable(
    func: Callable[[Any], Update], afunc: Callable[[Any], Awaitable[Update]], name: str
) -> Any:
    """One node with a sync and an async path. LangGraph's own node runnable does this without
    a traced run of its own (0.5 ms less per model node: `benchmarks/bench_overhead.py`); it
    is reached through LangGraph's compatibility module, so a LangChain `RunnableLambda`
    stands in should that module go."""
    try:
        from langgraph.utils.runnable import RunnableCallable  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - depends on the LangGraph version
        return RunnableLambda(func, afunc=afunc, name=name)
    return RunnableCallable(func, afunc, name=name, trace=False)


def reporting(
    name: str,
    node: Callable[..., Update] | ModelNode,
    environment: str,
    describe: Describe,
    *,
    native: bool = False,
) -> Any:
    """`node`, emitting its progress event (the strategy's `describe` of its update) when it
    returns. A `ModelNode` becomes one runnable with its sync and async paths (LangGraph picks
    the one the run needs). A plain function stays a function (LangGraph runs it in a worker
    thread under `ainvoke`), unless `native`: its async path then runs it on the event loop
    through `core/run/bridge.py`, the environment's queries awaited."""
    if isinstance(node, ModelNode):
        sync, asynchronous = node.func, node.afunc

        def func(state: Any) -> Update:
            update = sync(state)
            emit(name, update, environment, describe)
            return update

        async def afunc(state: Any) -> Update:
            update = await asynchronous(state)
            emit(name, update, environment, describe)
            return update

        return dual_runnable(func, afunc, name)

    def plain(state: Any) -> Update:
        update = node(state)
        emit(name, update, environment, describe)
        return update

    if not native:
        return plain

    async def bridged(state: Any) -> Update:
        return await bridge.run(plain, state)

    return dual_runnable(plain, bridged, name)


def add_nodes(
    builder: Any,
    nodes: Sequence[tuple[str, Callable[..., Update] | ModelNode, RetryPolicy]],
    environment: str,
    describe: Describe,
    *,
    native: bool = False,
) -> None:
    """Add a strategy's (name, node, retry policy) triples, each reporting its progress.
    `native`: the environment awaits its own I/O (`reporting`)."""
    for name, node, policy in nodes:
        runnable = reporting(name, node, environment, describe, native=native)
        builder.add_node(name, runnable, retry_policy=policy)


def retry_policies(llm_retries: int, env_retries: int) -> tuple[RetryPolicy, RetryPolicy]:
    """(model, environment) retry policies: transient failures only, bounded and visible."""
    return (
        RetryPolicy(max_attempts=llm_retries, retry_on=is_transient),
        RetryPolicy(max_attempts=env_retries, retry_on=is_transient),
    )
