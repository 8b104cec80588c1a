"""The graph's nodes, one module each; every `make_<node>` closes over the KG and the model.

`Meter` measures a node run: wall time, KG queries and LLM calls/tokens, as a `usage` update
that the state's reducer sums.

A node that calls the model is written once, as a generator that yields its requests
(`Ask`: prompt and JSON schema) and receives the replies (`Steps`). `model_node` runs it both
ways: under `invoke` each request is a blocking call, under `ainvoke` it is awaited through the
model's async path, so a question waiting for its model holds no thread.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Awaitable, Callable, Generator
from contextlib import ExitStack
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from readi_graph.core.base import EndpointError
from readi_graph.core.models.llm import ModelRef, Reply
from readi_graph.core.run import bridge
from readi_graph.core.run.counting import QueryCount, count_queries


class Meter:
    def __init__(self, node: str) -> None:
        self.node = node
        self.llm_calls = self.prompt_tokens = self.completion_tokens = 0
        self._stack = ExitStack()
        self._queries = QueryCount()
        self._started = 0.0
        self._ms = 0.0
        self.counters: dict[str, int] = {}

    def __enter__(self) -> Meter:
        self._started = time.perf_counter()
        self._queries = self._stack.enter_context(count_queries())
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stack.close()
        self._ms = (time.perf_counter() - self._started) * 1000

    def llm(self, reply: Reply) -> Reply:
        if reply.cached:  # no model was called: not a cost of this run
            self.count("cached_calls")
            return reply
        self.llm_calls += 1
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        if reply.counted_by:  # the model reported no usage: which tokenizer counted it
            self.count(f"tokens_counted_by_{reply.counted_by}")
        return reply

    def count(self, name: str, n: int = 1) -> None:
        """An extra counter in `usage` (e.g. model replies that could not be read)."""
        self.counters[name] = self.counters.get(name, 0) + n

    @property
    def usage(self) -> dict[str, Any]:
        return {
            **self.counters,
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "queries": self._queries.n,
            "ms": {self.node: round(self._ms, 3)},
        }


def guarded(meter: Meter, work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run an environment step; an endpoint that failed after its own bounded retries becomes
    `failure` in state (the run then answers with the reason) instead of an exception."""
    try:
        return work()
    except EndpointError as exc:
        meter.count("environment_failures")
        return {"failure": str(exc)}


Update = dict[str, Any]
Ask = tuple[str, dict[str, Any] | None]  # one model request: the prompt, a JSON schema or None
Steps = Generator[Ask, Reply, Update]  # a node body: yields requests, returns its update


@dataclass(frozen=True)
class ModelNode:
    """A node that calls the model, runnable sync (`func`) and async (`afunc`)."""

    func: Callable[[Any], Update]
    afunc: Callable[[Any], Awaitable[Update]]


def model_node(model: ModelRef, body: Callable[[Any], Steps], *, native: bool = False) -> ModelNode:
    """`body` answered by `model.ask` (sync) or `await model.aask` (async). A failed call is
    thrown into the body, so its `with` blocks close where they opened, then raised.

    Async, the body's own work (KG queries, parsing) runs one step at a time in one copied
    context (its meters and LangGraph's config stay visible from step to step): in the
    default executor, or with `native` (an environment whose queries are awaited, see
    `core/run/bridge.py`) on the event loop itself; the model calls are awaited either way."""

    def func(state: Any) -> Update:
        steps = body(state)
        done, value = _advance(steps.send, None)
        while not done:
            try:
                reply = model.ask(*value)
            except Exception as exc:
                done, value = _advance(steps.throw, exc)
                continue
            except BaseException:  # an interrupt or a stop: close the body where it opened
                steps.close()
                raise
            done, value = _advance(steps.send, reply)
        return with_model_note(model, state, value)

    async def afunc(state: Any) -> Update:
        steps = body(state)
        context = contextvars.copy_context()
        loop = asyncio.get_running_loop()

        def step(move: Callable[[Any], Any], value: Any) -> Awaitable[tuple[bool, Any]]:
            if native:
                return bridge.run(_advance, move, value, context=context)
            return loop.run_in_executor(None, context.run, _advance, move, value)

        done, value = await step(steps.send, None)
        while not done:
            try:
                reply = await model.aask(*value)
            except Exception as exc:
                done, value = await step(steps.throw, exc)
                continue
            except BaseException:  # cancelled: close the body in its own context
                context.run(steps.close)
                raise
            done, value = await step(steps.send, reply)
        return with_model_note(model, state, value)

    return ModelNode(func, afunc)


def with_model_note(model: ModelRef, state: Any, update: Update) -> Update:
    """An update that writes the output's `notes` gets the model's own note first when the
    run called a model (`ModelRef.note`: the bundled model stood in, nothing was named), so
    no strategy can forget to say it."""
    notes = update.get("notes") if isinstance(update, dict) else None
    if notes is None:
        return update
    note = model.note()
    used = [(state.get("usage") or {}) if isinstance(state, dict) else {}, update.get("usage")]
    calls = sum(int((u or {}).get(k) or 0) for u in used for k in ("llm_calls", "cached_calls"))
    if note is None or note in notes or not calls:
        return update
    return {**update, "notes": [note, *notes]}


def _advance(move: Callable[[Any], Any], value: Any) -> tuple[bool, Any]:
    """One step of a node body: (False, its next request) or (True, its update)."""
    try:
        return False, move(value)
    except StopIteration as finished:
        return True, finished.value
