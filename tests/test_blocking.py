"""Nothing blocks the event loop under `ainvoke`: every registered strategy's graph, on the
demo KG and table, runs its first (cold) question in a fresh process with blockbuster raising
on any blocking call made on the loop (`blocking_probe.py`); with the local model installed,
so does a question answered by the bundled model, resolved with no `OPENAI_*` variable, from
an empty cache (the GGUF converted on that first call) and with every proxy pointing at a
closed port (the load never reaches a model hub)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from readi_graph.core.local.model import local_available

HERE = Path(__file__).parent
pytest.importorskip("blockbuster", reason="needs blockbuster (dev extra)")


def probe(tmp_path: Path, *args: str) -> list[dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "READI_MODEL"))}
    closed = "http://127.0.0.1:9"  # nothing listens there: a hub request would fail
    env.update(READI_CACHE_DIR=str(tmp_path / "cache"), HTTPS_PROXY=closed, HTTP_PROXY=closed,
               https_proxy=closed, http_proxy=closed)  # fmt: skip
    done = subprocess.run(
        [sys.executable, str(HERE / "blocking_probe.py"), *args],
        cwd=HERE, env=env, capture_output=True, text=True, timeout=1200, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_no_strategy_blocks_the_event_loop_on_a_cold_first_run(tmp_path: Path) -> None:
    registry, *runs = probe(tmp_path)
    expected = {(name, environment) for name, environment in registry["registry"]}
    assert {(r["strategy"], r["environment"]) for r in runs} == expected
    assert expected >= {("readi", "kg"), ("readi", "table"), ("fidelis", "kg")}
    failed = [r for r in runs if not r["ok"]]
    assert not failed, failed


@pytest.mark.slow
@pytest.mark.skipif(
    not local_available() and not os.environ.get("READI_REQUIRE_LOCAL"),
    reason="needs the [local] extra",
)
def test_the_bundled_model_loads_and_answers_off_the_event_loop(tmp_path: Path) -> None:
    runs = probe(tmp_path, "--local")
    local = [r for r in runs if r.get("model") == "local"]
    assert local and local[0]["ok"], local
    assert (tmp_path / "cache" / "models").is_dir()  # converted on the first call
