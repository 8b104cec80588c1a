"""A SPARQL 1.1 protocol client over httpx: pooled, bounded in time, explicit about failure.

Transient failures (connection errors, timeouts, 5xx, 429, a cut-off response body) are retried
a bounded number of times with exponential backoff, honouring `Retry-After`; then they raise
`EndpointUnavailable`. Anything else the endpoint refuses raises `QueryRejected` at once.
Only SELECT and ASK are sent: this client has no update path.

One retry loop serves both paths: `select` blocks (the sync client), and inside `bridge.run`
(a graph under `ainvoke`) the same call is sent by the async client and awaited on the event
loop, so a question waiting for the endpoint holds no thread.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import re
import time
from typing import Any

import httpx

from readi_graph.core.base import EndpointUnavailable, QueryRejected, Term
from readi_graph.core.run import bridge
from readi_graph.environments.kg.store.vocabulary import literal_term

_ACCEPT = "application/sparql-results+json"
# The query form after any PREFIX/BASE declarations: this client reads, never updates.
_READ_ONLY = re.compile(
    r"\s*(?:(?:PREFIX\s+[^\s:]*:\s*<[^>]*>|BASE\s*<[^>]*>)\s*)*(?:SELECT|ASK)\b", re.IGNORECASE
)
USER_AGENT = "readi-graph (https://pypi.org/project/readi-graph/)"


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _term(binding: dict[str, Any]) -> Term:
    kind = binding.get("type")
    value = str(binding.get("value", ""))
    if kind == "uri":
        return Term("iri", value)
    if kind in ("literal", "typed-literal"):
        datatype = binding.get("datatype")
        return literal_term(
            value,
            datatype,
            binding.get("xml:lang"),
        )
    if kind == "bnode":
        # Virtuoso names its blank nodes `nodeID://...` and accepts them back as IRIs;
        # other stores' blank nodes cannot be queried again and stay blank.
        return Term("iri", value) if value.startswith("nodeID://") else Term("bnode", value)
    raise QueryRejected(f"unexpected term type {kind!r} in results", endpoint="?")


class EndpointBackend:
    """Any SPARQL 1.1 endpoint (Virtuoso, QLever, Oxigraph server, Fuseki, Wikidata...)."""

    name = "endpoint"
    native_async = True  # `select` inside `bridge.run` awaits instead of blocking

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 30.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        default_graph: str | None = None,
        headers: dict[str, str] | None = None,
        max_connections: int = 8,
        transport: httpx.BaseTransport | None = None,
        async_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.default_graph = default_graph
        self._client_options: dict[str, Any] = {
            "timeout": httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            "headers": {"User-Agent": USER_AGENT, "Accept": _ACCEPT, **(headers or {})},
            "limits": httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_connections
            ),
        }
        self.client = httpx.Client(transport=transport, **self._client_options)
        if async_transport is None and isinstance(transport, httpx.AsyncBaseTransport):
            async_transport = transport  # e.g. httpx.MockTransport serves both
        if async_transport is not None:
            self._client_options["transport"] = async_transport
        elif transport is not None:
            # A sync-only transport (a proxy, a client certificate, a socket path) has no
            # async twin here: every query goes through it, in worker threads under ainvoke.
            self.native_async = False
        self._async_clients: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}

    def close(self) -> None:
        self.client.close()

    def _async_client(self) -> httpx.AsyncClient:
        """The async client of the running event loop (an async connection pool belongs to
        the loop that opened it; `asyncio.run` twice means two loops)."""
        loop = asyncio.get_running_loop()
        client = self._async_clients.get(loop)
        if client is None:
            # Clients of loops that have ended are dropped (their sockets close when
            # collected); `aclose` before the loop ends closes them properly.
            for ended in [other for other in self._async_clients if other.is_closed()]:
                del self._async_clients[ended]
            client = self._async_clients[loop] = httpx.AsyncClient(**self._client_options)
        return client

    async def aclose(self) -> None:
        """Close this event loop's async client (the sync one stays)."""
        client = self._async_clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    def _form(self, query: str) -> dict[str, str]:
        if not _READ_ONLY.match(query):
            raise QueryRejected("only SELECT and ASK queries are sent", endpoint=self.url)
        form = {"query": query}
        if self.default_graph:
            form["default-graph-uri"] = self.default_graph
        return form

    def _outcome(
        self, response: httpx.Response | None, error: Exception | None, attempt: int
    ) -> tuple[dict[str, Any] | None, EndpointUnavailable | None, float]:
        """One attempt judged: (payload, None, 0) on success, else (None, the transient
        failure, seconds to wait before the next attempt). A refusal raises at once."""
        delay = min(self.max_backoff, self.backoff * 2**attempt)
        if isinstance(error, httpx.TimeoutException):
            return None, EndpointUnavailable(f"timed out: {error}", endpoint=self.url), delay
        if isinstance(error, httpx.TransportError):
            failed = EndpointUnavailable(f"connection failed: {error}", endpoint=self.url)
            return None, failed, delay
        if error is not None:
            raise error
        assert response is not None
        status = response.status_code
        if status == 200:
            try:
                return dict(response.json()), None, 0.0
            except (json.JSONDecodeError, UnicodeDecodeError, ValueError) as exc:
                unreadable = EndpointUnavailable(
                    f"unreadable results ({exc})", endpoint=self.url, status=status
                )
                return None, unreadable, delay
        if status == 429 or status >= 500:
            wait = _retry_after(response.headers.get("Retry-After"))
            failed = EndpointUnavailable(
                f"HTTP {status}: {response.text[:200]!r}", endpoint=self.url, status=status
            )
            return None, failed, delay if wait is None else min(self.max_backoff, wait)
        raise QueryRejected(
            f"HTTP {status}: {response.text[:300]!r}", endpoint=self.url, status=status
        )

    def _post(self, query: str) -> dict[str, Any]:
        """The results of `query`, with bounded retries. Inside `bridge.run` each attempt is
        sent by the async client and each pause slept by the event loop (`bridge.await_`),
        so the same loop serves `invoke` and `ainvoke` without blocking a thread."""
        form = self._form(query)
        awaited = bridge.active()
        last: EndpointUnavailable | None = None
        for attempt in range(self.max_retries + 1):
            try:
                if awaited:
                    sent = self._async_client().post(self.url, data=form)
                    response, error = bridge.await_(sent), None
                else:
                    response, error = self.client.post(self.url, data=form), None
            except httpx.HTTPError as exc:
                response, error = None, exc
            payload, last, delay = self._outcome(response, error, attempt)
            if payload is not None:
                return payload
            if attempt < self.max_retries and awaited:
                bridge.await_(asyncio.sleep(delay))
            elif attempt < self.max_retries:
                time.sleep(delay)
        assert last is not None
        raise last

    def select(self, query: str) -> list[dict[str, Term]]:
        payload = self._post(query)
        try:
            bindings = payload["results"]["bindings"]
            return [{k: _term(v) for k, v in row.items()} for row in bindings]
        except (KeyError, TypeError) as exc:
            raise QueryRejected(f"malformed SELECT results: {exc}", endpoint=self.url) from exc

    def ask(self, query: str) -> bool:
        payload = self._post(query)
        if "boolean" not in payload:
            raise QueryRejected("malformed ASK result", endpoint=self.url)
        return bool(payload["boolean"])
