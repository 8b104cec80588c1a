"""A fault-injecting HTTP proxy on loopback, in front of a real SPARQL endpoint.

Each request takes the next fault from a script (then passes through): `delay:S` (sleep S
seconds, then forward), `drop` (close the connection without answering), `500`, `503`,
`429:S` (429 with `Retry-After: S`), `truncate` (forward, but cut the JSON body in half).
`down()` drops every request until `up()`: an endpoint that went away mid-run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx


class FaultProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.script: list[str] = []
        self.requests = 0
        self.injected: dict[str, int] = {}
        self.is_down = False
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/sparql"

    def inject(self, *faults: str) -> None:
        with self._lock:
            self.script.extend(faults)

    def down(self) -> None:
        self.is_down = True

    def up(self) -> None:
        self.is_down = False

    def _next(self) -> str:
        with self._lock:
            self.requests += 1
            fault = "drop" if self.is_down else (self.script.pop(0) if self.script else "pass")
            if fault != "pass":
                kind = fault.split(":")[0]
                self.injected[kind] = self.injected.get(kind, 0) + 1
            return fault

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                fault = proxy._next()
                kind, _, arg = fault.partition(":")
                if kind == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                if kind in ("500", "503", "429"):
                    self.send_response(int(kind))
                    if kind == "429":
                        self.send_header("Retry-After", arg or "1")
                    self.send_header("Content-Length", "5")
                    self.end_headers()
                    self.wfile.write(b"fault")
                    return
                if kind == "delay":
                    time.sleep(float(arg))
                response = httpx.post(
                    proxy.upstream,
                    content=body,
                    headers={
                        "Content-Type": self.headers.get("Content-Type", ""),
                        "Accept": self.headers.get("Accept", ""),
                    },
                    timeout=60,
                )
                data = response.content
                if kind == "truncate":
                    data = data[: len(data) // 2]
                try:
                    self.send_response(response.status_code)
                    self.send_header("Content-Type", response.headers.get("Content-Type", ""))
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        return Handler


@contextmanager
def fault_proxy(upstream: str) -> Iterator[FaultProxy]:
    proxy = FaultProxy(upstream)
    thread = threading.Thread(target=proxy.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy.server.shutdown()
        proxy.server.server_close()
