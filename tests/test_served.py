"""The four Studio graphs served by `langgraph dev` (langgraph-cli[inmem]) and driven over
HTTP with the official SDK, as an app would: runs, thread history, a human edit resumed
through the API, and a stop that leaves no process behind. The model is an OpenAI-compatible
stub on loopback."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from openai_stub import openai_stub

ROOT = Path(__file__).resolve().parents[1]
LANGGRAPH = shutil.which("langgraph", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(LANGGRAPH is None, reason="needs langgraph-cli[inmem] (dev extra)")
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


def test_langgraph_dev_serves_the_graphs_and_stops_cleanly(tmp_path: Path) -> None:
    from langgraph_sdk import get_sync_client

    config = tmp_path / "langgraph.json"
    config.write_text(json.dumps({
        "dependencies": [str(ROOT)],
        "graphs": {name: str(ROOT / "graphs" / f"{name}.py") + ":graph" for name in ("kgqa", "tableqa", "fidelis", "tog")},
        "env": {},
    }))  # fmt: skip
    with openai_stub(reply) as (base_url, prompts):
        env = {**os.environ, "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "stub",
               "READI_MODEL": "stub", "LANGSMITH_TRACING": "false"}  # fmt: skip
        port = _port()
        log = (tmp_path / "server.log").open("w")
        server = subprocess.Popen(
            [str(LANGGRAPH), "dev", "--host", "127.0.0.1", "--port", str(port), "--no-browser",
             "--no-reload", "--config", str(config)],
            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
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
            client = get_sync_client(url=url)
            assert {a["graph_id"] for a in client.assistants.search()} == {
                "kgqa",
                "tableqa",
                "fidelis",
                "tog",
            }

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
