"""A SPARQL 1.1 protocol client over httpx: pooled, bounded in time, explicit about failure.

Transient failures (connection errors, timeouts, 5xx, 429, a cut-off response body) are retried
a bounded number of times with exponential backoff, honouring `Retry-After`; then they raise
`EndpointUnavailable`. Anything else the endpoint refuses raises `QueryRejected` at once.
Only SELECT and ASK are sent: this client has no update path.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
from typing import Any

import httpx

from readi_graph.core.base import EndpointUnavailable, QueryRejected, Term
from readi_graph.environments.kg.vocabulary import literal_term

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
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = url
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.default_graph = default_graph
        self.client = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            headers={"User-Agent": USER_AGENT, "Accept": _ACCEPT, **(headers or {})},
            limits=httpx.Limits(max_connections=8, max_keepalive_connections=8),
            transport=transport,
        )

    def close(self) -> None:
        self.client.close()

    def _post(self, query: str) -> dict[str, Any]:
        if not _READ_ONLY.match(query):
            raise QueryRejected("only SELECT and ASK queries are sent", endpoint=self.url)
        form = {"query": query}
        if self.default_graph:
            form["default-graph-uri"] = self.default_graph
        last: EndpointUnavailable | None = None
        for attempt in range(self.max_retries + 1):
            delay = min(self.max_backoff, self.backoff * 2**attempt)
            try:
                response = self.client.post(self.url, data=form)
            except httpx.TimeoutException as exc:
                last = EndpointUnavailable(f"timed out: {exc}", endpoint=self.url)
            except httpx.TransportError as exc:
                last = EndpointUnavailable(f"connection failed: {exc}", endpoint=self.url)
            else:
                status = response.status_code
                if status == 200:
                    try:
                        return dict(response.json())
                    except (json.JSONDecodeError, UnicodeDecodeError, ValueError) as exc:
                        last = EndpointUnavailable(
                            f"unreadable results ({exc})", endpoint=self.url, status=status
                        )
                elif status == 429 or status >= 500:
                    wait = _retry_after(response.headers.get("Retry-After"))
                    if wait is not None:
                        delay = min(self.max_backoff, wait)
                    last = EndpointUnavailable(
                        f"HTTP {status}: {response.text[:200]!r}", endpoint=self.url, status=status
                    )
                else:
                    raise QueryRejected(
                        f"HTTP {status}: {response.text[:300]!r}", endpoint=self.url, status=status
                    )
            if attempt < self.max_retries:
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
