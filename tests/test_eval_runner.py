"""The evaluation runner: metrics, JSON lines, kill-and-resume, the reply cache."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from readi_graph.cli import main
from readi_graph.core.context import ReadiContext
from readi_graph.core.models.reply_cache import ReplyCache
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.eval import runner
from readi_graph.eval.metrics import f1, hit1, hit_lenient, kgqa_scores
from readi_graph.eval.runner import Item, ResultsFileError, read_results
from readi_graph.graph import build_graph

from fakes import routed


def test_hit1_is_strict_lenient_is_labelled_and_f1_counts_sets() -> None:
    gold = [["Paris", "City of Light"], ["Lyon"]]
    assert hit1(gold, ["the city of light!", "Rome"])  # alias, normalised
    assert not hit1(gold, ["Rome", "Paris"])  # only the first prediction counts
    assert not hit1(["1990"], ["1990s"]) and hit_lenient(["1990"], ["1990s"])
    assert hit_lenient(["Paris"], ["Paris, France"]) and not hit1(["Paris"], ["Paris, France"])
    assert f1(gold, ["Paris", "Lyon"]) == 1.0
    assert f1(gold, ["Paris", "Rome"]) == pytest.approx(0.5)  # P = 1/2, R = 1/2
    assert f1(gold, []) == 0.0 and not hit1(gold, [])
    assert kgqa_scores(["Émile Zola"], ["emile zola"])["correct"] == 1.0


def _items(n: int) -> list[Item]:
    return [
        Item(
            f"q{i}", {"question": "who directed [Forrest Gump]", "topic_entities": ["Gump"]}, ["x"]
        )
        for i in range(n)
    ]


def test_a_failing_question_is_written_with_its_error_and_counts_as_wrong(tmp_path: Path) -> None:
    class Broken:
        def invoke(self, *_: object, **__: object) -> dict[str, object]:
            raise RuntimeError("endpoint down")

    out = tmp_path / "r.jsonl"
    summary = runner.run(
        _items(3), lambda _: Broken(), kgqa_scores, context=ReadiContext(), label="t", out=out
    )
    records = read_results(out)
    assert [r["error"] for r in records] == ["RuntimeError: endpoint down"] * 3
    assert summary["n"] == 3 and summary["errors"] == 3 and summary["accuracy"] == 0.0
    with pytest.raises(ResultsFileError, match="--resume"):  # never overwritten silently
        runner.run(_items(3), lambda _: Broken(), kgqa_scores, context=ReadiContext(), label="t",
                   out=out)  # fmt: skip


def test_resume_drops_a_torn_line_and_runs_only_what_is_missing(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    seen: list[str] = []

    class Echo:
        def invoke(self, data: dict[str, str], *_: object, **__: object) -> dict[str, object]:
            seen.append(data["question"])
            return {"answers": ["x"], "usage": {"llm_calls": 2}}

    done = [{"id": "q0", "correct": 1.0, "usage": {"llm_calls": 3}}]
    out.write_text(json.dumps(done[0]) + "\n" + '{"id": "q1", "corr')  # killed mid-write
    items = [Item(f"q{i}", {"question": f"question {i}"}, ["x"]) for i in range(4)]
    summary = runner.run(items, lambda _: Echo(), kgqa_scores, context=ReadiContext(),
                         label="t", out=out, resume=True, concurrency=2)  # fmt: skip
    ids = [r["id"] for r in read_results(out)]
    assert sorted(ids) == ["q0", "q1", "q2", "q3"] and len(ids) == len(set(ids))
    assert sorted(seen) == ["question 1", "question 2", "question 3"]  # q0 was not rerun
    assert summary["n"] == 4 and summary["answered"] == 4
    assert summary["llm_calls_per_question"] == pytest.approx((3 + 2 * 3) / 4)


def test_killed_run_resumes_with_no_lost_or_duplicated_lines(
    metaqa_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jsonl"
    n = 60
    args = ["eval", "metaqa", "--data", str(metaqa_dir), "--hops", "3", "--limit", str(n),
            "--planner", "corrupt", "--editor", "oracle", "--out", str(out)]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-c", "from readi_graph.cli import main; raise SystemExit(main())", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= 3:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    written = read_results(out)
    assert 3 <= len(written) < n, "the run must be killed part-way"

    assert main([*args, "--resume"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    lines = out.read_text().splitlines()
    ids = [json.loads(line)["id"] for line in lines]
    assert len(lines) == n and len(set(ids)) == n  # nothing lost, nothing twice
    assert {r["id"] for r in written} <= set(ids)
    assert summary["n"] == n and summary["answered"] == n and summary["missing"] == 0


def test_a_rerun_with_the_reply_cache_calls_no_model(
    metaqa_kg: KnowledgeGraph, tmp_path: Path
) -> None:
    from fakes import path

    generate = path({"Robert Zemeckis": ["Robert Zemeckis -> directed_by"]})
    model = routed(generate, "Thought: the films.\nAnswer: {Forrest Gump}")
    cache = ReplyCache(tmp_path / "replies.sqlite")
    graph = build_graph(metaqa_kg, model, reply_cache=cache)
    question = {
        "question": "what did [Robert Zemeckis] direct",
        "topic_entities": ["Robert Zemeckis"],
    }
    first = graph.invoke(question)
    calls = len(model.prompts)
    again = build_graph(metaqa_kg, model, reply_cache=ReplyCache(cache.path)).invoke(question)
    assert first["usage"]["llm_calls"] == calls == 2
    assert again["usage"]["llm_calls"] == 0 and again["usage"]["cached_calls"] == 2
    assert len(model.prompts) == calls  # the model was not asked again
    assert again["answers"] == first["answers"] == ["Forrest Gump"]


def test_async_runs_and_a_delayed_model_give_the_same_results_as_threads(
    metaqa_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--async` runs questions as tasks (ainvoke) and `--latency` delays every model reply:
    neither changes a single result line."""
    base = ["eval", "metaqa", "--data", str(metaqa_dir), "--hops", "2", "--limit", "16",
            "--planner", "corrupt", "--editor", "oracle"]  # fmt: skip
    runs = {
        "threads": ["--concurrency", "4"],
        "async": ["--concurrency", "8", "--async", "--latency", "0.01"],
    }
    lines = {}
    for name, extra in runs.items():
        out = tmp_path / f"{name}.jsonl"
        assert main([*base, *extra, "--out", str(out)]) == 0
        lines[name] = {
            r["id"]: (r["prediction"], r["correct"], r["edits"], r["usage"]["llm_calls"])
            for r in read_results(out)
        }
    capsys.readouterr()
    assert len(lines["async"]) == 16 and lines["async"] == lines["threads"]
    assert any(calls > 1 for _, _, _, calls in lines["async"].values())  # edits happened


def test_a_delayed_model_replies_what_its_inner_model_does() -> None:
    import asyncio

    from readi_graph.eval.latency import Delayed

    from fakes import function_model

    model = Delayed(inner=function_model(lambda p: p.upper()), seconds=0.001)
    assert model.invoke("abc").content == "ABC"
    assert asyncio.run(model.ainvoke("xyz")).content == "XYZ"
