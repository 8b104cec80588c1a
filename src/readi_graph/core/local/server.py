"""Opt-in: the bundled GGUF served by llama.cpp (`[llamacpp]`, `READI_LOCAL_RUNTIME=llamacpp`).

llama.cpp generates faster than transformers on a CPU, but `llama-cpp-python`
ships no wheel on PyPI: installing it compiles llama.cpp (8-17 minutes on 2 cores), which is
why it is no longer the default. `llamacpp_chat_model()` starts `python -m llama_cpp.server` on
a free loopback port (one per process, stopped at exit and with its parent, see
`child.py`) and returns a `ChatOpenAI` pointed at it, whose replies the server constrains
to JSON schemas.
"""

from __future__ import annotations

import atexit
import logging
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from readi_graph.core.local.weights import LocalModelUnavailable, gguf_path

log = logging.getLogger(__name__)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalServer:
    """llama.cpp's OpenAI-compatible server as a child process on 127.0.0.1."""

    def __init__(self, gguf: Path, *, n_ctx: int = 4096, ready_timeout: float = 120) -> None:
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lives as long as the server
            prefix="readi-llama-", suffix=".log", delete=False
        )
        command = [  # the launcher exits with this process, however it ends (child.py)
            sys.executable,
            "-m",
            "readi_graph.core.local.child",
            str(os.getpid()),
            "--model",
            str(gguf),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(n_ctx),
            "--model_alias",
            "local",
        ]
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + ready_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.3)
        tail = Path(self._log.name).read_text(errors="replace")[-1500:]
        self.stop()
        raise LocalModelUnavailable(
            f"llama.cpp server did not start within {ready_timeout}s:\n{tail}"
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


_server: LocalServer | None = None
_lock = threading.Lock()


def local_server(gguf: str | Path | None = None) -> LocalServer:
    """The process's one local server, started on first use (~98 MB model, CPU)."""
    global _server
    with _lock:
        if _server is None or _server.process.poll() is not None:
            path = gguf_path(gguf)
            log.warning(
                "starting the local model %s (small; for trying the machinery, not accuracy)",
                path.name,
            )
            _server = LocalServer(path)
            atexit.register(_server.stop)
        return _server


def llamacpp_chat_model(
    temperature: float = 0.3, gguf: str | Path | None = None, **kwargs: Any
) -> Any:
    """A `ChatOpenAI` talking to the process's llama.cpp server."""
    from langchain_openai import ChatOpenAI

    server = local_server(gguf)
    return ChatOpenAI(
        model="local",
        base_url=server.base_url,
        api_key="local",  # type: ignore[arg-type]
        temperature=temperature,
        use_responses_api=False,
        timeout=600,
        max_retries=0,
        **kwargs,
    )
