"""One summary from the JSON lines of a run (the runner's last line, and the report's numbers).

Every rate is over the questions *requested* (`n`): a question that crashed (`error`) or never
ran (`missing`: requested, no line) counts as 0 in each of them, and `errors`/`missing` say
how many there were. A mean that is not a rate (`path_length`) is over the questions that have
a value, and that count is printed beside it. Rates over something other than questions name
their denominator (`feedback_recall` over `feedback_samples`, the parse rates over replies).

Fields (stable: the ledger and other tools read them; absent when no record carries the key):

- `run`, `n` (requested), `answered` (lines), `missing`, `errors`
- `accuracy`: mean of each line's `correct`, the scorer's headline. With an answer step
  (a model, or the offline scripted answer) it is the strict `hit1`; a run without one
  (gold paths) says what it is in its own notes.
- `hit1`, `hit_lenient`, `f1` (eval/metrics.py): strict, lenient, F1 over answer sets.
- `answer_in_evidence`: a gold answer is named in the evidence handed to the answer step
  (the paper's answer coverage, AC), whatever the answer step made of it.
- `reached` (a gold answer among the instance ends: the paper's MetaQA "hit"),
  `ends_per_question` (how many ends), `coverage` (every gold answer among the ends), `exact`
  (the ends are the gold answers): offline and gold-path runs.
- `llm_calls_per_question`, `cached_calls`, `prompt_tokens_per_question`,
  `completion_tokens_per_question`, `queries_per_question`, `edits_per_question`,
  `seconds_per_question`, `retrieved_triples_per_question` (#RK): totals over `n`.
- `plan_parse_rate`, `answer_parse_rate`: over the plans / answers the model wrote.
- `instantiation_first_complete`, `instantiation_final_complete`,
  `instantiation_first_progress`, `instantiation_final_progress`, `compound_end_rate`: over n.
- `edit_stops` (questions whose editing stopped because no edit could change anything) and
  `edits_spared_per_question` (edit calls of the budget left unspent by that rule), when the
  runs' `usage` counts them (Readi's `stop_hopeless`).
- `path_length` (relations per final path) over `path_length_questions`.
- `feedback_recall` over `feedback_samples`; `edit_prompts` (samples + exclusions);
  `feedback_excluded` ({reason: prompts}) when an edit prompt could not be a sample.
- `legacy_records`: lines written before these names (read as described in `upgrade`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from readi_graph.eval.subgraph_summary import subgraph_figures

Record = dict[str, Any]

# Per-question values averaged over n: (key in a line, name in the summary).
OVER_N = (
    ("hit1", "hit1"),
    ("hit_lenient", "hit_lenient"),
    ("f1", "f1"),
    ("answer_in_evidence", "answer_in_evidence"),
    ("reached", "reached"),
    ("ends", "ends_per_question"),
    ("coverage", "coverage"),
    ("exact", "exact"),
    ("first_complete", "instantiation_first_complete"),
    ("final_complete", "instantiation_final_complete"),
    ("first_progress", "instantiation_first_progress"),
    ("final_progress", "instantiation_final_progress"),
    ("retrieved_triples", "retrieved_triples_per_question"),
    ("compound_end", "compound_end_rate"),
)
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


def _usage(record: Record, key: str) -> float:
    return float((record.get("usage") or {}).get(key, 0) or 0)


def _rate(part: float, whole: float) -> float | None:
    return round(part / whole, 4) if whole else None


def upgrade(record: Record) -> Record:
    """A line written before issue 24, in today's names. Offline lines (`feedback` and
    `coverage`, no `reached`) had `correct` = "a gold answer among the instance ends": that is
    `reached` now, and their `correct` becomes their strict `hit1` (of the ends in name order,
    since no answer step ran). Gold-planner lines had `hit` for `reached`."""
    if "reached" in record:  # a gold-path line has no answer step: its ends are its answers
        return record if "correct" in record else {**record, "correct": record["reached"]}
    if "feedback" in record and "coverage" in record:
        reached = record.get("correct", 0)
        return {**record, "reached": reached, "correct": record.get("hit1", 0), "legacy": True}
    if "hit" in record and "coverage" in record and "correct" not in record:
        return {**record, "reached": float(record["hit"]), "correct": float(record["hit"]),
                "legacy": True}  # fmt: skip
    return record


def with_missing(records: Iterable[Record], requested: Sequence[Record]) -> list[Record]:
    """`records` plus a line `{"id", <meta>, "missing": true}` for each requested question
    (`{"id", ...meta}`) that has none, so it counts as 0 in every rate and in its group."""
    out = list(records)
    seen = {r.get("id") for r in out}
    out += [{**meta, "missing": True} for meta in requested if meta.get("id") not in seen]
    return out


def summarize(records: Sequence[Record], *, label: str, requested: int | None = None) -> Record:
    """The summary of `records` (with `with_missing` placeholders, if any) over `requested`
    questions (default: the lines given)."""
    records = [upgrade(r) for r in records]
    answered = [r for r in records if not r.get("missing")]
    n = max(requested if requested is not None else len(records), len(records))
    per = max(n, 1)
    total = {k: sum(_usage(r, k) for r in answered) for k in _COUNTERS}
    summary: Record = {
        "run": label,
        "n": n,
        "answered": len(answered),
        "missing": n - len(answered),
        "errors": sum(1 for r in answered if r.get("error")),
        "accuracy": round(sum(float(r.get("correct", 0)) for r in answered) / per, 5),
    }
    for key, name in OVER_N[:4]:
        if any(key in r for r in answered):
            summary[name] = round(sum(float(r.get(key, 0)) for r in answered) / per, 5)
    summary.update(
        llm_calls_per_question=round(total["llm_calls"] / per, 3),
        cached_calls=int(total["cached_calls"]),
        prompt_tokens_per_question=round(total["prompt_tokens"] / per, 1),
        completion_tokens_per_question=round(total["completion_tokens"] / per, 1),
        queries_per_question=round(total["queries"] / per, 3),
        edits_per_question=round(sum(int(r.get("edits") or 0) for r in answered) / per, 3),
        seconds_per_question=round(sum(float(r.get("seconds", 0)) for r in answered) / per, 4),
        plan_parse_rate=_rate(total["plans"] - total["plans_unreadable"], total["plans"]),
        answer_parse_rate=_rate(total["answers"] - total["answers_unreadable"], total["answers"]),
    )
    for key, name in OVER_N[4:]:
        if any(key in r for r in answered):
            summary[name] = round(sum(float(r.get(key) or 0) for r in answered) / per, 4)
    if any("edit_stops" in (r.get("usage") or {}) for r in answered):
        summary["edit_stops"] = int(sum(_usage(r, "edit_stops") for r in answered))
        spared = sum(_usage(r, "edits_spared") for r in answered)
        summary["edits_spared_per_question"] = round(spared / per, 3)
    lengths = [float(r["path_length"]) for r in answered if "path_length" in r]
    if lengths:
        summary["path_length"] = round(sum(lengths) / len(lengths), 4)
        summary["path_length_questions"] = len(lengths)
    if any("answer_in_subgraph" in r for r in answered):  # runs on per-question subgraphs
        summary.update(subgraph_figures(answered, n))
    summary.update(_feedback(answered))
    legacy = sum(1 for r in answered if r.get("legacy"))
    if legacy:
        summary["legacy_records"] = legacy
    return summary


def _feedback(records: Sequence[Record]) -> Record:
    """Feedback recall over the edit prompts that were samples; the others by reason."""
    if not any("feedback" in r for r in records):
        return {}
    samples = [bool(f) for r in records for f in r.get("feedback") or []]
    excluded = Counter(str(x) for r in records for x in r.get("feedback_excluded") or [])
    out: Record = {
        "feedback_recall": _rate(sum(samples), len(samples)),
        "feedback_samples": len(samples),
        "edit_prompts": len(samples) + sum(excluded.values()),
    }
    if excluded:
        out["feedback_excluded"] = dict(sorted(excluded.items()))
    return out


GROUP_KEYS = ("n", "missing", "errors", "accuracy", "hit1", "f1", "reached", "coverage")


def by_group(records: Sequence[Record], key: str) -> dict[str, Record]:
    """Per value of `key` (e.g. hops, qtype): the summary's rates over that group's requested
    questions (missing ones count, when `with_missing` added them), and LLM calls."""
    groups: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        groups[str(r.get(key, "?"))].append(r)
    out: dict[str, Record] = {}
    for name, rs in sorted(groups.items()):
        summary = summarize(rs, label=name)
        out[name] = {k: summary[k] for k in (*GROUP_KEYS, "llm_calls_per_question") if k in summary}
    return out


def edits_histogram(records: Sequence[Record]) -> dict[int, int]:
    """Questions per number of edits (questions that did not run are not counted here)."""
    counts = Counter(int(r.get("edits") or 0) for r in records if not r.get("missing"))
    return dict(sorted(counts.items()))
