"""The evaluation runner: questions through a graph, one JSON line each, resumable.

Questions run through `Runnable.batch_as_completed` with `max_concurrency`, and each line is
written (and flushed) as its question finishes, so a killed run loses at most the questions in
flight. `resume=True` keeps the lines already written (a torn last line is dropped) and runs
only the ids not there yet, or there with an error (an endpoint that was down); a fresh run
refuses to overwrite an existing file. A question whose run raises, or whose environment
failed, is written with its error and counts as wrong. Beside the results file the runner
writes what was requested (`requested_path`: the ids with their groups), so a report of a
killed run counts the questions that never ran as missing, in every rate and group.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from langchain_core.runnables import RunnableLambda

from readi_graph.core.context import ReadiContext
from readi_graph.eval.metrics import answer_in_evidence
from readi_graph.eval.results import (
    ResultsFileError,
    read_requested,
    read_results,
    requested_path,
    without_failures,
    write_requested,
)
from readi_graph.eval.summary import summarize, with_missing

__all__ = ["Item", "ResultsFileError", "read_requested", "read_results", "requested_path", "run"]

Record = dict[str, Any]
# (gold, predicted) -> metrics; "correct" (0/1) is the headline accuracy.
Scorer = Callable[[Any, list[str]], dict[str, float]]


@dataclass
class Item:
    id: str
    input: dict[str, Any]
    gold: Any  # answers, or alias groups (see eval.metrics)
    meta: dict[str, Any] = field(default_factory=dict)  # e.g. hops and question type


def instantiation(attempts: Sequence[Record]) -> dict[str, Any]:
    """First and final attempt: instantiated completely? how far along the path (0..1)?"""

    def progress(attempt: Record) -> float:
        if attempt.get("complete"):
            return 1.0
        hops = str(attempt.get("path", "")).count(" -> ")
        return round(min(attempt.get("depth", 0) / hops, 1.0), 4) if hops else 0.0

    if not attempts or "complete" not in attempts[0]:  # FiDeLiS records search steps instead
        return {}
    first, final = attempts[0], attempts[-1]
    return {
        "first_complete": bool(first.get("complete")),
        "first_progress": progress(first),
        "final_complete": bool(final.get("complete")),
        "final_progress": progress(final),
    }


TRACE_EVIDENCE = 30


def path_statistics(result: Record, attempts: Sequence[Record]) -> dict[str, Any]:
    """The paper's Tables 4 and 8 per question: retrieved triples (#RK), relations per final
    path, and whether the final path ended in compound nodes only."""
    paths = [str(p) for p in result.get("path") or [] if isinstance(p, str)]
    out: dict[str, Any] = {"retrieved_triples": len(result.get("evidence") or [])}
    if paths and attempts and "complete" in attempts[0]:  # relation paths (not tables)
        out["path_length"] = round(sum(p.count(" -> ") for p in paths) / len(paths), 3)
        finals = {str(a.get("path", "")).split(" -> ", 1)[0]: a for a in attempts}
        out["compound_end"] = any(bool(a.get("compound_end")) for a in finals.values())
    return out


def run_one(
    item: Item,
    graph_for: Callable[[Item], Any],
    scorer: Scorer,
    context: ReadiContext,
    annotate: Callable[[Item, Record], None] | None = None,
) -> Record:
    started = time.perf_counter()
    try:
        result = graph_for(item).invoke(item.input, RUN_CONFIG, context=context)
    except Exception as exc:  # the run goes on; the question counts as wrong
        result = exc
    return _record(item, result, scorer, annotate, started)


async def arun_one(
    item: Item,
    graph_for: Callable[[Item], Any],
    scorer: Scorer,
    context: ReadiContext,
    annotate: Callable[[Item, Record], None] | None = None,
) -> Record:
    """`run_one` through `ainvoke`: waiting for the model holds no thread."""
    started = time.perf_counter()
    try:
        result = await graph_for(item).ainvoke(item.input, RUN_CONFIG, context=context)
    except Exception as exc:  # the run goes on; the question counts as wrong
        result = exc
    return _record(item, result, scorer, annotate, started)


RUN_CONFIG: dict[str, Any] = {"recursion_limit": 100}


def _record(
    item: Item,
    result: Record | Exception,
    scorer: Scorer,
    annotate: Callable[[Item, Record], None] | None,
    started: float,
) -> Record:
    """One results line: the question, the scores, and what `readi trace` draws."""
    record: Record = {"id": item.id, "question": item.input.get("question"), "gold": item.gold}
    record["topics"] = len(item.input.get("topic_entities") or [])  # for per-question call bounds
    record.update(item.meta)
    if isinstance(result, Exception):
        record.update(prediction=[], correct=0.0, error=f"{type(result).__name__}: {result}")
    else:
        predicted = list(result.get("answers") or [])
        attempts = result.get("attempts") or []
        record.update(scorer(item.gold, predicted))
        if result.get("topic_entities"):  # found in the question when none was given
            record["topics"] = len(result["topic_entities"])
        record["answer_in_evidence"] = answer_in_evidence(item.gold, result.get("evidence") or [])
        if result.get("error"):  # the environment failed: wrong now, rerun by --resume
            record["error"] = str(result["error"])
        record.update(
            prediction=predicted,
            path=result.get("path"),
            edits=result.get("edits", 0),
            usage=result.get("usage") or {},
            attempts=len(attempts),
            **instantiation(attempts),
            **path_statistics(result, attempts),
            # what `readi trace` draws (the evidence capped: results files stay small)
            trace={
                "attempts": attempts,
                "evidence": list(result.get("evidence") or [])[:TRACE_EVIDENCE],
                "answer": result.get("answer", ""),
                "notes": result.get("notes") or [],
            },
        )
    if annotate is not None:
        annotate(item, record)
    record["seconds"] = round(time.perf_counter() - started, 3)
    return record


def run(
    items: Iterable[Item],
    graph_for: Callable[[Item], Any],
    scorer: Scorer,
    *,
    context: ReadiContext,
    label: str,
    out: str | Path | None = None,
    resume: bool = False,
    concurrency: int = 1,
    progress: IO[str] | None = None,
    annotate: Callable[[Item, Record], None] | None = None,
    asynchronous: bool = False,
) -> dict[str, Any]:
    """Evaluate `items`; returns the summary over every requested question (see summary.py).

    `annotate(item, record)` adds fields to a record (e.g. the oracle editor's feedback).
    `concurrency` questions run at once: in that many threads, or with `asynchronous` as
    tasks on one event loop (`ainvoke`), where a question waiting for its model holds no
    thread.
    """
    items = list(items)
    requested = [{"id": item.id, **item.meta} for item in items]
    path = Path(out) if out else None
    done: list[Record] = []
    if path is not None:
        if path.exists() and path.stat().st_size and not resume:
            raise ResultsFileError(f"{path} exists: pass --resume to continue it, or remove it")
        done = without_failures(path, read_results(path)) if resume else []
        write_requested(path, label, requested)
    finished = {r["id"] for r in done}
    todo = [item for item in items if item.id not in finished]
    wanted = {item.id for item in items}
    records = [r for r in done if r["id"] in wanted]
    bar = _Progress(len(items), records, label, progress)
    sink = path.open("a" if resume else "w", encoding="utf-8") if path is not None else None

    def emit(record: Record) -> None:
        if sink is not None:
            sink.write(json.dumps(record, ensure_ascii=False) + "\n")
            sink.flush()
        records.append(record)
        bar.add(record)

    try:
        if asynchronous:
            asyncio.run(_run_async(todo, graph_for, scorer, context, annotate, concurrency, emit))
        else:
            worker: RunnableLambda[Item, Record] = RunnableLambda(
                lambda item: run_one(item, graph_for, scorer, context, annotate)
            )
            config = {"max_concurrency": max(concurrency, 1)}
            for _, record in worker.batch_as_completed(todo, config):  # type: ignore[call-overload]
                emit(record)
    finally:
        if sink is not None:
            sink.close()
        bar.close()
    return summarize(with_missing(records, requested), label=label, requested=len(items))


async def _run_async(
    todo: Sequence[Item],
    graph_for: Callable[[Item], Any],
    scorer: Scorer,
    context: ReadiContext,
    annotate: Callable[[Item, Record], None] | None,
    concurrency: int,
    emit: Callable[[Record], None],
) -> None:
    """At most `concurrency` questions in flight; each record is emitted as it finishes."""
    gate = asyncio.Semaphore(max(concurrency, 1))

    async def one(item: Item) -> Record:
        async with gate:
            return await arun_one(item, graph_for, scorer, context, annotate)

    for finished in asyncio.as_completed([one(item) for item in todo]):
        emit(await finished)


class _Progress:
    """A tqdm bar with the running accuracy and LLM calls per question."""

    def __init__(self, total: int, done: list[Record], label: str, stream: IO[str] | None):
        from tqdm import tqdm

        self.n = len(done)
        self.correct = sum(float(r.get("correct", 0)) for r in done)
        self.calls = sum(int((r.get("usage") or {}).get("llm_calls", 0)) for r in done)
        self.bar = tqdm(
            total=total,
            initial=self.n,
            desc=label,
            file=stream or sys.stderr,  # looked up now: sys.stderr may have been replaced
            mininterval=0.5,
            dynamic_ncols=True,
        )

    def add(self, record: Record) -> None:
        self.n += 1
        self.correct += float(record.get("correct", 0))
        self.calls += int((record.get("usage") or {}).get("llm_calls", 0))
        self.bar.set_postfix_str(
            f"acc={self.correct / self.n:.3f} calls/q={self.calls / self.n:.2f}", refresh=False
        )
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()
