"""ToG everywhere a strategy appears: `readi ask`, progress events, `ainvoke`, `as_tool`, a
person as the pruner (interrupt and resume), and the run picture of `readi trace`."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from readi_graph.cli import main
from readi_graph.core.run.progress import EVENT
from readi_graph.demo import demo_kg
from readi_graph.graph import build_graph
from readi_graph.strategies.tog.context import TogContext
from readi_graph.tool import as_tool
from readi_graph.trace import render_html, write_trace

from fakes import tog_kind, tog_model

ZEMECKIS = {  # on the demo KG: Robert Zemeckis directed and wrote films
    "question": "which films did [Robert Zemeckis] write",
    "topic_entities": ["Robert Zemeckis"],
}
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _model() -> Any:
    return tog_model(["<- written_by"], enough=lambda triples: "written_by" in triples)


def test_readi_ask_runs_tog_and_prints_its_progress(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from openai_stub import openai_stub

    with openai_stub(lambda prompt: str(_model().reply(prompt))) as (base_url, prompts):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        code = main(["ask", "--entity", "Robert Zemeckis", "--model", "stub", "--strategy", "tog",
                     ZEMECKIS["question"]])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0 and [tog_kind(p) for p in prompts] == ["relations", "entities", "reason"]
    assert "[start] start from Robert Zemeckis" in captured.err
    assert "[relations] depth 1: relations kept: <- written_by (0.90)" in captured.err
    assert "[reason] enough: answers" in captured.err
    assert "(grounded: True)" in captured.out and "Back to the Future" in captured.out


def test_progress_streams_one_event_per_node() -> None:
    graph = build_graph(demo_kg(), _model(), strategy="tog")
    events = [e[EVENT] for e in graph.stream(ZEMECKIS, stream_mode="custom")]
    assert [e["node"] for e in events] == ["start", "relations", "entities", "reason"]
    assert "kept: " in events[2]["message"] and "enough" in events[3]["message"]


def test_ainvoke_answers_as_invoke() -> None:
    graph = build_graph(demo_kg(), _model(), strategy="tog")
    sync, asynchronous = graph.invoke(ZEMECKIS), asyncio.run(graph.ainvoke(ZEMECKIS))
    for key in ("answers", "evidence", "path", "attempts", "answer_source"):
        assert sync[key] == asynchronous[key], key
    assert sync["usage"]["llm_calls"] == asynchronous["usage"]["llm_calls"] == 3


def test_as_tool_reports_where_the_answer_came_from() -> None:
    tool = as_tool(build_graph(demo_kg(), _model(), strategy="tog"), evidence_cap=2)
    out = json.loads(tool.invoke({"question": ZEMECKIS["question"],  # type: ignore[attr-defined]
                                  "topic_entities": ["Robert Zemeckis"]}))  # fmt: skip
    assert out["answer_source"] == "graph" and out["grounded"] and len(out["answers"]) == 3
    assert len(out["evidence"]) == 2 and out["evidence_not_shown"] == 1


def test_a_person_prunes_the_relations() -> None:
    model = _model()
    graph = build_graph(demo_kg(), model, strategy="tog", checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "p"}}
    human = TogContext(pruner="human", depth=2)
    paused = graph.invoke(ZEMECKIS, config, context=human)
    (request,) = paused["__interrupt__"]
    payload = request.value
    assert payload["kind"] == "tog_prune" and payload["depth"] == 1 and payload["width"] == 3
    (entity,) = payload["entities"]
    assert entity["entity"] == "Robert Zemeckis"
    assert {"<- directed_by", "<- written_by"} <= set(entity["relations"])
    out = graph.invoke(Command(resume=["<- written_by", "invented"]), config, context=human)
    first = out["attempts"][0]
    assert [r["name"] for r in first["relations"] if r["kept"]] == ["<- written_by"]
    assert out["answer_source"] == "graph" and out["usage"]["human_prunes"] == 1
    assert [tog_kind(p) for p in model.prompts] == ["entities", "reason"]  # no relations call
    assert out["usage"]["llm_calls"] == 2


def test_a_person_prunes_through_ainvoke_and_can_choose_nothing() -> None:
    graph = build_graph(demo_kg(), _model(), strategy="tog", checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "q"}}
    human = TogContext(pruner="human")

    async def run() -> dict[str, Any]:
        paused = await graph.ainvoke(ZEMECKIS, config, context=human)
        assert paused["__interrupt__"][0].value["kind"] == "tog_prune"
        return await graph.ainvoke(Command(resume={"Robert Zemeckis": []}), config, context=human)  # type: ignore[no-any-return]

    out = asyncio.run(run())
    assert out["answers"] == [] and out["answer_source"] == "none"
    assert out["usage"]["llm_calls"] == 0


def test_the_picture_draws_the_explored_tree(tmp_path: Path) -> None:
    model = tog_model(["<- directed_by", "starred_actors"], enough=lambda t: "Depth 2" in t)
    out = build_graph(demo_kg(), model, strategy="tog").invoke(
        {"question": "who starred in the films of [Robert Zemeckis]",
         "topic_entities": ["Robert Zemeckis"]}
    )  # fmt: skip
    page = render_html(dict(out))
    assert page.count('class="tog-node topic"') == 1
    kept = sum(sum(c["kept"] for c in a["candidates"]) for a in out["attempts"])
    assert page.count('class="tog-node kept"') == kept and kept >= 4
    assert 'class="tog-node pruned" opacity="0.45"' in page  # pruned branches faded
    assert "depth 1: not enough yet" in page and "depth 2: enough: yes" in page
    assert page.count('<g class="answer">') == len(out["answers"])
    assert "<script" not in page and not re.search(r'(src|href)="https?:', page)
    if CHROMIUM is None:
        pytest.skip("needs Debian's chromium for the screenshot")
    from PIL import Image

    html = write_trace(dict(out), tmp_path / "tog.html")
    shot = tmp_path / "shot.png"
    subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
         "--window-size=1400,700", html.as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    import numpy as np

    rgb = np.asarray(Image.open(shot).convert("RGB")).reshape(-1, 3).astype(int)
    r, g, b = rgb[:, 0], rgb[:, 1], rgb[:, 2]
    assert int(((g > 100) & (r < 90) & (b < 90)).sum()) > 200  # kept branches, in green
    assert int(((abs(r - g) < 8) & (abs(g - b) < 8) & (r > 160) & (r < 240)).sum()) > 200  # faded
