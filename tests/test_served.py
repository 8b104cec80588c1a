"""The Studio graphs served by `langgraph dev` (langgraph-cli[inmem]) and driven over HTTP with
the official SDK, as an app would, each time with no `--allow-blocking` (the server raises on a
blocking call made on its event loop) and a stop that leaves no process behind.

1. With an OpenAI-compatible stub on loopback as the model: runs, thread history, exact
   answers, a human edit resumed through the API.
2. Zero-config, as a new user starts it: no `OPENAI_*` or model variable at all, so every
   graph in `langgraph.json` answers through the bundled local model, loaded in the server.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from readi_graph.core.local.model import local_available

from openai_stub import openai_stub

ROOT = Path(__file__).resolve().parents[1]
LANGGRAPH = shutil.which("langgraph", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(LANGGRAPH is None, reason="needs langgraph-cli[inmem] (dev extra)")
GRAPHS = json.loads((ROOT / "langgraph.json").read_text())["graphs"]
ZWICK = "which languages are the films directed by Joel Zwick in"
NEEDS_HELP = "which languages are the films Joel Zwick directed, please"


def reply(prompt: str) -> str:
    """The stub model: right paths, except for the question a person must fix."""
    if prompt.startswith("You plan how to answer a question from a table"):
        return 'Chosen Headers: ["Season", "Position"]\nConstraints: {}'
    if "Topic Entities:" in prompt and "could not be instantiated" not in prompt:
        relation = "nationality" if NEEDS_HELP in prompt else "in_language"
        return "Path: " + json.dumps({"Joel Zwick": [f"Joel Zwick -> directed -> {relation}"]})
    if "Answer:" in prompt and "table" in prompt.lower():
        return 'Answer: ["2023"]'
    return "{Greek}"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@contextmanager
def served(tmp_path: Path, env: dict[str, str]) -> Iterator[Any]:
    """`langgraph dev` over every graph of `langgraph.json` (no --allow-blocking), yielding a
    sync SDK client; stopped with SIGTERM, then checked: no process of its group is left."""
    from langgraph_sdk import get_sync_client

    config = tmp_path / "langgraph.json"
    config.write_text(json.dumps({
        "dependencies": [str(ROOT)],
        "graphs": {name: str(ROOT / spec["path"]) for name, spec in GRAPHS.items()},
        "env": {},
    }))  # fmt: skip
    port = _port()
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [str(LANGGRAPH), "dev", "--host", "127.0.0.1", "--port", str(port), "--no-browser",
         "--no-reload", "--config", str(config)],
        cwd=tmp_path, env={**env, "LANGSMITH_TRACING": "false"}, stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                assert server.poll() is None, (tmp_path / "server.log").read_text()[-2000:]
                time.sleep(0.5)
        client = get_sync_client(url=url, timeout=600)
        assert {a["graph_id"] for a in client.assistants.search()} == set(GRAPHS)
        yield client
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
        log.close()
        deadline = time.monotonic() + 15
        while _group_alive(server.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        alive = _group_alive(server.pid)
        if alive:
            os.killpg(server.pid, signal.SIGKILL)
        assert not alive, "a process of the served graph outlived the server"
        assert "BlockingError" not in (tmp_path / "server.log").read_text()


def _no_model_variables() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "READI_MODEL"))}


def test_langgraph_dev_serves_the_graphs_and_stops_cleanly(tmp_path: Path) -> None:
    with openai_stub(reply) as (base_url, prompts):
        env = {**_no_model_variables(), "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "stub",
               "READI_MODEL": "stub"}  # fmt: skip
        with served(tmp_path, env) as client:
            inputs = {
                "kgqa": {"question": ZWICK, "topic_entities": ["Joel Zwick"]},
                "tableqa": {"question": "in which season did the club finish highest?"},
                "fidelis": {"question": ZWICK, "topic_entities": ["Joel Zwick"]},
                "tog": {"question": ZWICK, "topic_entities": ["Joel Zwick"]},
            }
            for graph_id, question in inputs.items():
                thread = client.threads.create()
                out = client.runs.wait(thread["thread_id"], graph_id, input=question)
                assert isinstance(out, dict) and isinstance(out.get("answer"), str), (graph_id, out)
                assert out["usage"]["llm_calls"] >= 2
                history = client.threads.get_history(thread["thread_id"])
                assert len(history) >= 4  # a checkpoint per step, kept by the server
            assert client.runs.wait(
                client.threads.create()["thread_id"], "kgqa", input=inputs["kgqa"]
            )["answers"] == ["Greek"]

            # a person edits through the API
            thread = client.threads.create()["thread_id"]
            human = {"editor": "human"}
            ask = {"question": NEEDS_HELP, "topic_entities": ["Joel Zwick"]}
            client.runs.wait(thread, "kgqa", input=ask, context=human)
            (waiting,) = client.threads.get_state(thread)["interrupts"]
            assert (
                waiting["value"]["kind"] == "readi_edit"
                and "in_language" in waiting["value"]["candidates"]
            )
            fixed = {"Joel Zwick": ["Joel Zwick -> directed -> in_language"]}
            out = client.runs.wait(thread, "kgqa", command={"resume": fixed}, context=human)
            assert out["answers"] == ["Greek"] and out["usage"]["human_edits"] == 1
            assert prompts  # every answer went through the stub model


CHEAP = {"max_edits": 0, "beam_width": 1, "beam_depth": 1}  # the fewest calls each strategy allows


@pytest.mark.slow
@pytest.mark.skipif(
    not local_available() and not os.environ.get("READI_REQUIRE_LOCAL"),
    reason="needs the [local] extra",
)
def test_zero_config_langgraph_dev_answers_with_the_bundled_model(tmp_path: Path) -> None:
    with served(tmp_path, _no_model_variables()) as client:
        for graph_id in GRAPHS:
            assistant = next(a for a in client.assistants.search(graph_id=graph_id))
            known = client.assistants.get_schemas(assistant["assistant_id"])["context_schema"]
            context = {k: v for k, v in CHEAP.items() if k in known.get("properties", {})}
            table = "table" in graph_id
            question = (
                {"question": "in which season did the club finish highest?"}
                if table
                else {"question": "which films did Robert Zemeckis direct",
                      "topic_entities": ["Robert Zemeckis"]}
            )  # fmt: skip
            thread = client.threads.create()["thread_id"]
            out = client.runs.wait(thread, graph_id, input=question, context=context)
            assert isinstance(out, dict) and isinstance(out.get("answer"), str), (graph_id, out)
            # at least the plan came from the model (no evidence: the answer needs no call)
            assert out["usage"]["llm_calls"] >= 1, (graph_id, out["usage"])
            assert out["usage"]["completion_tokens"] > 0 and not out.get("error"), graph_id
