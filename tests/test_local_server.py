"""The opt-in llama.cpp runtime of the local model (`READI_LOCAL_RUNTIME=llamacpp`): the real
OpenAI client path with JSON-schema `response_format`, end to end against an OpenAI-compatible
stub server on loopback (always), and llama.cpp's own server (only with the `[llamacpp]`
extra, which compiles llama.cpp on install and is not installed by CI)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from types import SimpleNamespace
from typing import Any

import pytest

from readi_graph.core.context import ReadiContext
from readi_graph.demo import demo_kg, demo_table
from readi_graph.graph import build_graph

from openai_stub import openai_stub

needs_llamacpp = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="needs the [llamacpp] extra"
)


def _json_reply(prompt: str) -> str:
    """What a schema-constrained model sends back: JSON only, per prompt kind."""
    if prompt.startswith("You plan how to answer a question from a table"):
        return json.dumps(
            {
                "thought": "t",
                "headers": ["Season", "Position"],
                "constraints": {"Position": ["1st"]},
            }
        )
    if "Topic Entities:" in prompt:
        return json.dumps(
            {"thought": "t", "path": {"Robert Zemeckis": ["Robert Zemeckis -> directed"]}}
        )
    answers = ["2017"] if "Position" in prompt else ["Forrest Gump"]
    return json.dumps({"thought": "from the evidence", "answers": answers})


@pytest.fixture
def llamacpp_at_stub(monkeypatch: pytest.MonkeyPatch) -> Any:
    """`--model local` with the llama.cpp runtime, its server replaced by the stub."""
    import readi_graph.core.local.model as local_model
    import readi_graph.core.local.server as local_server

    requests: list[dict[str, Any]] = []
    with openai_stub(_json_reply, requests) as (base_url, _):
        monkeypatch.setenv("READI_LOCAL_RUNTIME", "llamacpp")
        # the runtime is the stub: llama-cpp-python need not be installed for it
        monkeypatch.setattr(local_model, "local_available", lambda: True)
        monkeypatch.setattr(
            local_server, "local_server", lambda gguf=None: SimpleNamespace(base_url=base_url)
        )
        yield requests


def test_the_openai_path_sends_json_schemas_and_reads_json_replies(llamacpp_at_stub: Any) -> None:
    requests = llamacpp_at_stub
    context = ReadiContext(model="local", max_edits=0)
    kg_out = build_graph(demo_kg(), "local").invoke(
        {
            "question": "which films did Robert Zemeckis direct",
            "topic_entities": ["Robert Zemeckis"],
        },
        context=context,
    )
    assert "Forrest Gump" in kg_out["answers"] and kg_out["grounded"]
    table = demo_table()
    table_out = build_graph(table, "local").invoke(
        {"question": "in which season did the club finish first?"}, context=context
    )
    assert table_out["answers"] == ["2017"] and table_out["usage"]["llm_calls"] == 2

    formats = [r.get("response_format") for r in requests]
    assert all(f and f["type"] == "json_object" for f in formats), formats
    kg_plan, kg_answer, table_plan, table_answer = (f["schema"] for f in formats)
    assert kg_plan["properties"]["path"]["required"] == ["Robert Zemeckis"]
    assert table_plan["properties"]["headers"]["items"]["enum"] == table.headers
    assert kg_answer["required"] == table_answer["required"] == ["thought", "answers"]
    assert {r["model"] for r in requests} == {"local"}


def test_a_model_from_the_environment_gets_no_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    """Schemas go only to a model known to honour them; any other server gets plain prompts."""
    requests: list[dict[str, Any]] = []
    with openai_stub(_json_reply, requests) as (base_url, _):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        monkeypatch.setenv("READI_MODEL", "stub")
        build_graph(demo_table()).invoke(
            {"question": "in which season did the club finish first?"},
            context=ReadiContext(max_edits=0),
        )
    assert requests and all("response_format" not in r for r in requests)


@pytest.mark.slow
@needs_llamacpp
@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT", "SIGKILL"])
def test_the_llamacpp_server_dies_with_its_process(signal_name: str) -> None:
    """Stopping a process that serves the graph (e.g. `langgraph dev`) stops the model server:
    no orphan holding hundreds of MB, whatever signal ended the parent."""
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import signal, sys, time\n"
        # a shell's background job ignores SIGINT, and children inherit that: undo it, as a
        # foreground `langgraph dev` would have it
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from readi_graph.core.local.server import local_server\n"
        "print(local_server().process.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        os.kill(child, 0)  # the server runs
        parent.send_signal(getattr(signal, signal_name))
        parent.wait(timeout=30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            os.kill(child, signal.SIGKILL)
            pytest.fail(f"the local model server outlived its process ({signal_name})")
    finally:
        if parent.poll() is None:
            parent.kill()


@pytest.mark.slow
@needs_llamacpp
def test_a_question_through_llamacpp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READI_LOCAL_RUNTIME", "llamacpp")
    out = build_graph(demo_kg(), "local").invoke(
        {
            "question": "which films did Robert Zemeckis direct",
            "topic_entities": ["Robert Zemeckis"],
        },
        context=ReadiContext(model="local", max_edits=1),
    )
    assert out["usage"]["llm_calls"] >= 2 and isinstance(out["answer"], str)
    assert re.search(r"\S", out["answer"])
