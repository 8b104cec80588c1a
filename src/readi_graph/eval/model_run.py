"""Run a Readi graph with a chat model over benchmark questions, one JSON line each.

Shared by `readi eval wtq` and `readi eval metaqa --model ...`. A question whose run raises
counts as wrong and its error is written, so a failure never hides in the average. The summary
reports accuracy, LLM calls, seconds and how often the model's output could be read.
(Batching, resume and caching are the evaluation harness's job: issue 6.)
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from readi_graph.context import ReadiContext


@dataclass
class Item:
    id: str
    input: dict[str, Any]
    gold: list[str]


def run(
    items: Sequence[Item],
    graph_for: Callable[[Item], Any],
    correct: Callable[[list[str], list[str]], bool],
    *,
    context: ReadiContext,
    label: str,
    out: IO[str] | None = None,
    progress: IO[str] | None = None,
) -> dict[str, Any]:
    progress = progress or sys.stderr  # looked up now: sys.stderr may be replaced
    totals = {
        "correct": 0,
        "llm_calls": 0,
        "errors": 0,
        "plans": 0,
        "plans_unreadable": 0,
        "answers": 0,
        "answers_unreadable": 0,
    }
    seconds = 0.0
    for n, item in enumerate(items, 1):
        started = time.perf_counter()
        record: dict[str, Any] = {"id": item.id, "gold": item.gold}
        try:
            result = graph_for(item).invoke(item.input, {"recursion_limit": 100}, context=context)
        except Exception as exc:
            totals["errors"] += 1
            record.update(prediction=[], correct=False, error=f"{type(exc).__name__}: {exc}")
        else:
            usage = result.get("usage") or {}
            right = correct(item.gold, result.get("answers") or [])
            totals["correct"] += right
            for key in ("llm_calls", "plans", "plans_unreadable", "answers", "answers_unreadable"):
                totals[key] += int(usage.get(key, 0))
            record.update(
                prediction=result.get("answers"),
                correct=right,
                path=result.get("path"),
                edits=result.get("edits"),
                usage=usage,
            )
        elapsed = time.perf_counter() - started
        seconds += elapsed
        record["seconds"] = round(elapsed, 3)
        if out is not None:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
        progress.write(
            f"[{label}] {n}/{len(items)} accuracy={totals['correct'] / n:.3f} "
            f"calls/q={totals['llm_calls'] / n:.2f} s/q={seconds / n:.1f}\n"
        )
        progress.flush()
    n = max(len(items), 1)
    return {
        "run": label,
        "n": len(items),
        "accuracy": round(totals["correct"] / n, 5),
        "errors": totals["errors"],
        "llm_calls_per_question": round(totals["llm_calls"] / n, 3),
        "seconds_per_question": round(seconds / n, 3),
        "plan_parse_rate": round(1 - totals["plans_unreadable"] / max(totals["plans"], 1), 4),
        "answer_parse_rate": round(1 - totals["answers_unreadable"] / max(totals["answers"], 1), 4),
        "plans": totals["plans"],
        "answers": totals["answers"],
    }
