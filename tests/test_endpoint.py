"""The remote SPARQL client: bounded retries, Retry-After, typed errors naming the endpoint."""

from __future__ import annotations

import time

import httpx
import pytest

from readi_graph.core.base import EndpointUnavailable, QueryRejected, Term
from readi_graph.environments.kg.store.endpoint import EndpointBackend

URL = "http://127.0.0.1:9/sparql"
OK = {"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "urn:a"}}]}}


def scripted(*responses: object) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    seen: list[httpx.Request] = []
    queue = list(responses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        item = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(item, Exception):
            raise item
        assert isinstance(item, httpx.Response)
        return item

    return httpx.MockTransport(handler), seen


def backend(transport: httpx.MockTransport, **kw: object) -> EndpointBackend:
    options: dict[str, object] = {"backoff": 0.01, "max_backoff": 0.5, **kw}
    return EndpointBackend(URL, transport=transport, **options)  # type: ignore[arg-type]


def test_select_parses_terms() -> None:
    body = {
        "results": {
            "bindings": [
                {
                    "x": {
                        "type": "literal",
                        "value": "1999",
                        "datatype": "http://www.w3.org/2001/XMLSchema#gYear",
                    },
                    "y": {"type": "literal", "value": "Paris", "xml:lang": "fr"},
                    "z": {"type": "bnode", "value": "nodeID://b1"},
                }
            ]
        }
    }
    transport, seen = scripted(httpx.Response(200, json=body))
    row = backend(transport).select("SELECT * {}")[0]
    assert row["x"] == Term.literal("1999", "http://www.w3.org/2001/XMLSchema#gYear")
    assert row["y"] == Term.literal("Paris", lang="fr")
    assert row["z"] == Term.iri("nodeID://b1")  # Virtuoso blank nodes can be queried again
    assert seen[0].headers["accept"] == "application/sparql-results+json"
    assert "readi-graph" in seen[0].headers["user-agent"]


def test_server_errors_are_retried_then_succeed() -> None:
    transport, seen = scripted(
        httpx.Response(503), httpx.Response(500), httpx.Response(200, json=OK)
    )
    assert backend(transport).select("SELECT * {}") == [{"x": Term.iri("urn:a")}]
    assert len(seen) == 3


def test_retries_are_bounded_and_the_error_names_the_endpoint() -> None:
    transport, seen = scripted(httpx.Response(502))
    with pytest.raises(EndpointUnavailable) as info:
        backend(transport, max_retries=2).select("SELECT * {}")
    assert len(seen) == 3
    assert info.value.endpoint == URL and URL in str(info.value) and info.value.status == 502


def test_client_errors_are_not_retried() -> None:
    transport, seen = scripted(httpx.Response(400, text="SPARQL syntax error"))
    with pytest.raises(QueryRejected, match="syntax error"):
        backend(transport).select("SELECT * {")
    assert len(seen) == 1


def test_retry_after_is_honoured() -> None:
    transport, seen = scripted(
        httpx.Response(429, headers={"Retry-After": "1"}), httpx.Response(200, json=OK)
    )
    started = time.monotonic()
    backend(transport, max_backoff=5).select("SELECT * {}")
    assert time.monotonic() - started >= 0.95  # not the 0.01 s backoff
    assert len(seen) == 2


def test_connection_errors_and_timeouts_become_unavailable() -> None:
    transport, _ = scripted(httpx.ConnectError("refused"))
    with pytest.raises(EndpointUnavailable, match="connection failed"):
        backend(transport, max_retries=1).select("SELECT * {}")
    transport, _ = scripted(httpx.ReadTimeout("slow"))
    with pytest.raises(EndpointUnavailable, match="timed out"):
        backend(transport, max_retries=0).select("SELECT * {}")


def test_truncated_json_is_retried() -> None:
    transport, seen = scripted(
        httpx.Response(200, content=b'{"results": {"bindings": [{"x": '),
        httpx.Response(200, json=OK),
    )
    assert backend(transport).select("SELECT * {}")
    assert len(seen) == 2


def test_unreachable_port_fails_fast_with_a_typed_error() -> None:
    """A real closed loopback port: no hang, a typed error after the bounded retries."""
    b = EndpointBackend("http://127.0.0.1:9/sparql", timeout=2, max_retries=1, backoff=0.01)
    started = time.monotonic()
    with pytest.raises(EndpointUnavailable):
        b.ask("ASK {}")
    assert time.monotonic() - started < 10


def test_read_timeout_fires_on_a_silent_server() -> None:
    """A loopback server that accepts and never answers: the timeout fires."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    port = server.getsockname()[1]
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        b = EndpointBackend(
            f"http://127.0.0.1:{port}/sparql", timeout=0.5, max_retries=1, backoff=0.01
        )
        started = time.monotonic()
        with pytest.raises(EndpointUnavailable, match="timed out"):
            b.select("SELECT * {}")
        assert time.monotonic() - started < 5
    finally:
        stop.set()
        thread.join()
        for s in accepted:
            s.close()
        server.close()


@pytest.mark.parametrize(
    "query",
    [
        "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
        "DELETE WHERE { ?s ?p ?o }",
        "LOAD <http://example.org/x>",
        "CLEAR ALL",
        "DROP GRAPH <urn:g>",
        "PREFIX x: <urn:x> CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",
        "# SELECT\nINSERT DATA { <urn:a> <urn:b> <urn:c> }",
    ],
)
def test_only_select_and_ask_leave_the_client(query: str) -> None:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.content.decode())
        return httpx.Response(200, json={"boolean": True})

    backend = EndpointBackend("http://kg.test/sparql", transport=httpx.MockTransport(handler))
    with pytest.raises(QueryRejected, match="only SELECT and ASK"):
        backend.select(query)
    assert sent == []
    assert backend.ask("PREFIX x: <urn:x> ASK { ?s ?p ?o }") is True  # reads still go out
