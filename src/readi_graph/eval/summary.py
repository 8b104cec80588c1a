"""One summary from the JSON lines of a run (the runner's last line, and the report's numbers).

Rates are over the questions *requested*: a question that failed or never ran counts as wrong,
and `errors`/`missing` say how many there were.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

Record = dict[str, Any]


def _usage(record: Record, key: str) -> float:
    return float((record.get("usage") or {}).get(key, 0) or 0)


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarize(records: Sequence[Record], *, label: str, requested: int | None = None) -> Record:
    n = max(requested if requested is not None else len(records), len(records))
    per = max(n, 1)
    total = {k: sum(_usage(r, k) for r in records) for k in _COUNTERS}
    summary: Record = {
        "run": label,
        "n": n,
        "answered": len(records),
        "missing": n - len(records),
        "errors": sum(1 for r in records if r.get("error")),
        "accuracy": round(sum(float(r.get("correct", 0)) for r in records) / per, 5),
    }
    for metric in ("hit1", "hit_lenient", "f1", "answer_in_evidence"):
        if any(metric in r for r in records):
            summary[metric] = round(sum(float(r.get(metric, 0)) for r in records) / per, 5)
    summary.update(
        llm_calls_per_question=round(total["llm_calls"] / per, 3),
        cached_calls=int(total["cached_calls"]),
        prompt_tokens_per_question=round(total["prompt_tokens"] / per, 1),
        completion_tokens_per_question=round(total["completion_tokens"] / per, 1),
        queries_per_question=round(total["queries"] / per, 3),
        edits_per_question=round(sum(int(r.get("edits") or 0) for r in records) / per, 3),
        seconds_per_question=round(sum(float(r.get("seconds", 0)) for r in records) / per, 4),
        plan_parse_rate=_rate(total["plans"] - total["plans_unreadable"], total["plans"]),
        answer_parse_rate=_rate(total["answers"] - total["answers_unreadable"], total["answers"]),
    )
    for key in ("first_complete", "final_complete", "first_progress", "final_progress"):
        values = [float(r[key]) for r in records if key in r]
        if values:
            summary[f"instantiation_{key}"] = _mean(values)
    # the paper's analyses (its Tables 4 and 8): answer coverage, retrieved triples (#RK),
    # path length, compound-ending rate
    for key, name in (
        ("coverage", "coverage"),
        ("retrieved_triples", "retrieved_triples_per_question"),
        ("path_length", "path_length"),
        ("compound_end", "compound_end_rate"),
    ):
        values = [float(r[key]) for r in records if key in r]
        if values:
            summary[name] = _mean(values)
    feedback = [bool(f) for r in records for f in r.get("feedback", [])]
    if any("feedback" in r for r in records):
        summary["feedback_recall"] = _rate(sum(feedback), len(feedback))
        summary["edit_prompts"] = len(feedback)
    return summary


_COUNTERS = (
    "llm_calls",
    "cached_calls",
    "prompt_tokens",
    "completion_tokens",
    "queries",
    "plans",
    "plans_unreadable",
    "answers",
    "answers_unreadable",
)


def _rate(part: float, whole: float) -> float | None:
    return round(part / whole, 4) if whole else None


def by_group(records: Sequence[Record], key: str) -> dict[str, Record]:
    """Accuracy, questions and LLM calls per value of `key` (e.g. hops, qtype)."""
    groups: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        groups[str(r.get(key, "?"))].append(r)
    return {
        name: {
            "n": len(rs),
            "accuracy": round(sum(float(r.get("correct", 0)) for r in rs) / len(rs), 4),
            "llm_calls_per_question": round(sum(_usage(r, "llm_calls") for r in rs) / len(rs), 3),
        }
        for name, rs in sorted(groups.items())
    }


def edits_histogram(records: Sequence[Record]) -> dict[int, int]:
    return dict(sorted(Counter(int(r.get("edits") or 0) for r in records).items()))
