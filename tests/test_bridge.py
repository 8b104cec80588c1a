"""The async path of a remote KG: sync environment code whose endpoint queries are awaited on
the event loop (`core/run/bridge.py`), so questions waiting for the endpoint hold no thread."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import httpx
import pyoxigraph as ox
import pytest

from readi_graph.core.base import EndpointUnavailable
from readi_graph.core.run import bridge
from readi_graph.demo import DEMO_KB
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.store.endpoint import EndpointBackend
from readi_graph.environments.kg.store.local import load_metaqa
from readi_graph.graph import build_graph

from fakes import function_model

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="unset")


# --- the bridge itself ---------------------------------------------------------------------
async def _double(x: int) -> int:
    await asyncio.sleep(0)
    return 2 * x


def test_await_inside_run_is_awaited_by_the_loop_and_outside_is_refused() -> None:
    def body(n: int) -> list[int]:
        assert bridge.active()
        return [bridge.await_(_double(i)) for i in range(n)]

    assert asyncio.run(bridge.run(body, 3)) == [0, 2, 4]
    assert not bridge.active()
    pending = _double(1)
    with pytest.raises(RuntimeError, match=r"outside bridge\.run"):
        bridge.await_(pending)
    pending.close()


def test_an_awaited_failure_is_raised_where_the_body_awaited_it() -> None:
    async def fail() -> None:
        raise ValueError("endpoint said no")

    def body() -> str:
        try:
            bridge.await_(fail())
        except ValueError as exc:
            return f"caught: {exc}"
        return "not raised"

    def uncaught() -> None:
        bridge.await_(fail())

    assert asyncio.run(bridge.run(body)) == "caught: endpoint said no"
    with pytest.raises(ValueError, match="endpoint said no"):
        asyncio.run(bridge.run(uncaught))


def test_bodies_see_the_callers_context_and_share_a_given_one() -> None:
    async def main() -> tuple[str, str]:
        VAR.set("caller")
        seen = await bridge.run(VAR.get)
        shared = contextvars.copy_context()
        await bridge.run(VAR.set, "first step", context=shared)
        return seen, await bridge.run(VAR.get, context=shared)

    assert asyncio.run(main()) == ("caller", "first step")


def test_offload_runs_in_a_worker_inside_run_and_inline_outside() -> None:
    def where() -> str:
        return threading.current_thread().name

    assert bridge.offload(where) == threading.current_thread().name
    assert asyncio.run(bridge.run(bridge.offload, where)) != threading.current_thread().name


# --- an endpoint served by an async handler ------------------------------------------------
class FakeEndpoint:
    """A SPARQL endpoint over the demo KG inside an `httpx.MockTransport`: records which client
    sent each query and the most queries in flight at once."""

    def __init__(self, delay: float = 0.0) -> None:
        self.store = load_metaqa(DEMO_KB).store
        self.delay = delay
        self.sync_requests = self.async_requests = self.in_flight = self.peak = 0
        self.threads: set[str] = set()
        self.queries: list[str] = []

    def _answer(self, request: httpx.Request) -> httpx.Response:
        form = dict(httpx.QueryParams(request.content.decode()))
        self.queries.append(form["query"])
        result = self.store.query(form["query"], use_default_graph_as_union=True)
        if isinstance(result, ox.QueryBoolean):
            return httpx.Response(200, json={"head": {}, "boolean": bool(result)})
        assert isinstance(result, ox.QuerySolutions)
        body = result.serialize(format=ox.QueryResultsFormat.JSON)
        return httpx.Response(200, content=body)

    def sync(self, request: httpx.Request) -> httpx.Response:
        self.sync_requests += 1
        return self._answer(request)

    async def asynchronous(self, request: httpx.Request) -> httpx.Response:
        self.async_requests += 1
        self.threads.add(threading.current_thread().name)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            return self._answer(request)
        finally:
            self.in_flight -= 1

    def kg(self) -> KnowledgeGraph:
        backend = EndpointBackend(
            "http://kg.test/sparql",
            transport=httpx.MockTransport(self.sync),
            async_transport=httpx.MockTransport(self.asynchronous),
        )
        return KnowledgeGraph(backend, "metaqa", name="fake-endpoint", scan_labels=False)


def _reply(prompt: str) -> str:
    if "Answer the question" in prompt:
        return "Answer: {Forrest Gump}"
    return 'Path: {"Robert Zemeckis": ["Robert Zemeckis -> directed_by"]}'


QUESTION = {
    "question": "what films did [Robert Zemeckis] direct",
    "topic_entities": ["Robert Zemeckis"],
}
KEYS = ("answers", "evidence", "path", "edits")


@pytest.mark.parametrize("strategy", ["readi", "fidelis"])
def test_ainvoke_on_an_endpoint_awaits_every_query_on_the_loop(strategy: str) -> None:
    endpoint = FakeEndpoint()
    kg = endpoint.kg()
    assert kg.native_async
    plan = '{"keywords": ["directed"], "planning_steps": [], "declarative_statement": "x"}'
    model = function_model(
        _reply if strategy == "readi"
        else lambda p: plan if "plan for it" in p
        else "[1]" if "choose how" in p
        else "yes" if "You check" in p
        else "{Forrest Gump}"
    )  # fmt: skip
    graph = build_graph(kg, model, strategy=strategy)
    graph.invoke(QUESTION)  # lists the relations, labels them: once per KG
    sync = graph.invoke(QUESTION)
    sent = endpoint.sync_requests
    assert sent > 0 and endpoint.async_requests == 0

    result = asyncio.run(graph.ainvoke(QUESTION))
    assert {k: result.get(k) for k in KEYS} == {k: sync.get(k) for k in KEYS}
    assert result["answers"] and result["usage"]["queries"] == sync["usage"]["queries"]
    assert endpoint.sync_requests == sent  # no query went through the blocking client
    assert endpoint.async_requests > 0 and endpoint.threads == {"MainThread"}


def test_questions_waiting_for_a_slow_endpoint_hold_no_thread() -> None:
    """32 questions, each query 20 ms away: more queries are in flight at once than asyncio's
    default executor has threads, which a worker thread per waiting query could not do."""
    endpoint = FakeEndpoint(delay=0.02)
    graph = build_graph(endpoint.kg(), function_model(_reply))

    async def all_at_once() -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(graph.ainvoke(QUESTION) for _ in range(32))))

    results = asyncio.run(all_at_once())
    assert all(r["answers"] == ["Forrest Gump"] for r in results)
    assert endpoint.sync_requests == 0
    assert endpoint.peak > 16, endpoint.peak


def test_async_retries_back_off_then_raise_a_typed_error() -> None:
    calls: list[int] = []

    async def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) < 3:
            return httpx.Response(503, text="busy")
        return httpx.Response(200, json={"head": {}, "results": {"bindings": []}})

    async def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    def backend(handler: Any) -> EndpointBackend:
        return EndpointBackend(
            "http://kg.test/sparql",
            backoff=0.001,
            max_retries=2,
            async_transport=httpx.MockTransport(handler),
        )

    assert asyncio.run(bridge.run(backend(flaky).select, "SELECT * {}")) == []
    assert len(calls) == 3
    with pytest.raises(EndpointUnavailable, match="connection failed"):
        asyncio.run(bridge.run(backend(down).select, "SELECT * {}"))


def test_bridged_nodes_stream_their_progress() -> None:
    """LangGraph's stream writer is found inside the bridge (the caller's context is copied)."""
    graph = build_graph(FakeEndpoint().kg(), function_model(_reply))

    async def nodes() -> list[str]:
        seen = []
        async for chunk in graph.astream(QUESTION, stream_mode="custom"):
            seen.append(chunk["readi"]["node"])
        return seen

    assert asyncio.run(nodes()) == ["generate", "bind", "connect", "diagnose", "answer"]


def test_once_computes_once_for_callers_arriving_together_and_retries_after_a_failure() -> None:
    once: bridge.Once[int] = bridge.Once()
    calls: list[int] = []

    def slow() -> int:
        calls.append(1)
        bridge.await_(asyncio.sleep(0.01))  # the other callers arrive meanwhile
        return 42

    async def together() -> list[int]:
        return list(await asyncio.gather(*(bridge.run(once.get, slow) for _ in range(8))))

    assert asyncio.run(together()) == [42] * 8 and len(calls) == 1
    assert once.get(slow) == 42 and len(calls) == 1

    failing: bridge.Once[int] = bridge.Once()

    def broken() -> int:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        failing.get(broken)
    assert failing.get(lambda: 7) == 7


def test_first_wave_of_questions_lists_and_indexes_the_relations_once() -> None:
    endpoint = FakeEndpoint(delay=0.01)
    graph = build_graph(endpoint.kg(), function_model(_reply))

    async def first_wave() -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(graph.ainvoke(QUESTION) for _ in range(8))))

    assert all(r["answers"] == ["Forrest Gump"] for r in asyncio.run(first_wave()))
    listings = [q for q in endpoint.queries if q.startswith("SELECT DISTINCT ?p WHERE")]
    assert len(listings) == 1


def test_a_sync_only_transport_keeps_every_query_on_it() -> None:
    """A transport with no async twin (e.g. a proxy or a client certificate) must not be
    bypassed under ainvoke: the KG then runs its steps in worker threads."""
    endpoint = FakeEndpoint()

    class SyncOnly(httpx.BaseTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            return endpoint.sync(request)

    backend = EndpointBackend("http://kg.test/sparql", transport=SyncOnly())
    kg = KnowledgeGraph(backend, "metaqa", scan_labels=False)
    assert not kg.native_async
    result = asyncio.run(build_graph(kg, function_model(_reply)).ainvoke(QUESTION))
    assert result["answers"] == ["Forrest Gump"]
    assert endpoint.sync_requests > 0 and endpoint.async_requests == 0


def test_async_clients_of_ended_loops_are_dropped() -> None:
    backend = FakeEndpoint().kg().backend
    assert isinstance(backend, EndpointBackend)
    for _ in range(3):
        asyncio.run(bridge.run(backend.select, "SELECT * WHERE { ?s ?p ?o } LIMIT 1"))
    assert len(backend._async_clients) == 1  # only the last loop's, until the next one

    async def closed_properly() -> None:
        await bridge.run(backend.select, "SELECT * WHERE { ?s ?p ?o } LIMIT 1")
        await backend.aclose()

    asyncio.run(closed_properly())
    assert len(backend._async_clients) == 0
