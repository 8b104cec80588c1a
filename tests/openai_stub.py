"""A scripted OpenAI-compatible chat server on loopback: the real ChatOpenAI client path,
with replies chosen by prompt kind. No network beyond 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def openai_stub(
    replies: dict[str, str] | Callable[[str], str],
    requests: list[dict[str, Any]] | None = None,
) -> Iterator[tuple[str, list[str]]]:
    """Serve /v1/chat/completions; yields (base_url, prompts received). `replies` maps a
    marker in the prompt to the reply, or computes the reply from the prompt; `requests`, if
    given, receives every request body (e.g. to read its `response_format`)."""
    prompts: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompt = body["messages"][-1]["content"]
            prompts.append(prompt)
            if requests is not None:
                requests.append(body)
            if callable(replies):
                reply = replies(prompt)
            else:
                reply = next((r for marker, r in replies.items() if marker in prompt), "{}")
            payload = json.dumps(
                {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "stub"),
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": reply},
                        }
                    ],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", prompts
    finally:
        server.shutdown()
        server.server_close()
