"""Sync environment code with async I/O: one body for `invoke` and `ainvoke`.

Instantiation, diagnosis and Path-RAG are plain sync code that calls `select` many times.
Under `ainvoke` on a remote endpoint, running them in a worker thread would hold that thread
for every round trip, so a server with many questions in flight needs one thread per waiting
query. Instead `run` executes the sync code in a greenlet on the event loop, and the endpoint
client hands its HTTP request up with `await_`: the loop awaits it (the async client) and
switches back with the rows. Nothing is written twice and no thread waits. (SQLAlchemy's
asyncio layer works the same way.)

Rules that keep this safe: a bridged body never holds a `threading.Lock` across `await_` or
`offload` (another greenlet on the same thread would block the loop on it), and CPU-heavy
work it starts (embedding phrases, building an index) goes through `offload`, which runs it
in the default executor while the loop serves other questions.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

import greenlet

T = TypeVar("T")


class _Bridged(greenlet.greenlet):
    """A greenlet that runs sync code for `run`; its parent awaits what it hands up."""


def active() -> bool:
    """Whether the calling sync code runs inside `run` (so `await_` may be used)."""
    return isinstance(greenlet.getcurrent(), _Bridged)


def await_(awaitable: Awaitable[T]) -> T:
    """From sync code inside `run`: the result of `awaitable`, awaited by the event loop."""
    current = greenlet.getcurrent()
    if not isinstance(current, _Bridged):
        raise RuntimeError("await_() outside bridge.run(): call the sync path instead")
    parent = current.parent
    assert parent is not None  # set by `run`
    result: T = parent.switch(awaitable)
    return result


async def run(fn: Callable[..., T], *args: Any, context: contextvars.Context | None = None) -> T:
    """`fn(*args)` on the event loop's thread, every `await_` inside it awaited here.

    `context`: the contextvars the body sees (a copy of the caller's by default; pass one
    context to several calls so what one sets the next sees, e.g. a node's meter)."""
    body = _Bridged(fn)
    body.gr_context = context if context is not None else contextvars.copy_context()
    handed = body.switch(*args)
    while not body.dead:
        try:
            value = await handed
        except BaseException:  # thrown into the body, which decides what it means
            handed = body.throw(*sys.exc_info())
        else:
            handed = body.switch(value)
    result: T = handed
    return result


def offload(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)`; inside `run`, in the default executor so the loop is not blocked."""
    if not active():
        return fn(*args)
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    return await_(loop.run_in_executor(None, context.run, fn, *args))


def wait(future: concurrent.futures.Future[T]) -> T:
    """The result of `future`: awaited inside `run`, else blocking this thread."""
    if active() and not future.done():
        return await_(asyncio.wrap_future(future))
    return future.result()


class Once(Generic[T]):
    """A value computed once however many callers ask at the same time (threads, or bridged
    questions on one event loop): the first computes it, the others `wait` for it, and no
    lock is held while they wait. A failure is raised to everyone waiting; the next caller
    tries again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._future: concurrent.futures.Future[T] | None = None

    def get(self, compute: Callable[[], T]) -> T:
        with self._lock:
            future, mine = self._future, self._future is None
            if future is None:
                future = self._future = concurrent.futures.Future()
        if not mine:
            return wait(future)
        try:
            value = compute()
        except BaseException as exc:
            with self._lock:
                self._future = None
            future.set_exception(exc)
            raise
        future.set_result(value)
        return value
