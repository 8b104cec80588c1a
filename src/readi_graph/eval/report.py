"""`readi report`: a markdown report with PNG plots from an evaluation's JSON lines.

Plots follow the paper: edits per question (its Figures 5/8), accuracy per group (hops or
question type), LLM calls and tokens per question, and instantiation success and progress of
the first and final paths (its Table 8). matplotlib is the `[report]` extra.

Its figures are the summary's (eval/summary.py): over the questions requested, read from the
file the runner writes beside the results (`results.requested_path`), or `requested=N` when
there is none; a question that crashed or never ran counts as 0 in every rate and group.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from readi_graph.core.base import ReadiError
from readi_graph.eval.results import read_requested, read_results
from readi_graph.eval.summary import (
    OVER_N,
    Record,
    by_group,
    edits_histogram,
    summarize,
    upgrade,
    with_missing,
)


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, no display
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - the extra is in dev
        raise ReadiError("plots need matplotlib: pip install 'readi-graph[report]'") from exc
    return plt


def _bar(plt: Any, path: Path, labels: list[str], values: list[float], title: str, y: str) -> None:
    fig, ax = plt.subplots(figsize=(6.4, 3.6 if len(labels) <= 6 else 5.2))
    ax.bar(labels, values, color="#4C72B0")
    ax.set_title(title)
    ax.set_ylabel(y)
    if len(labels) > 6:
        plt.setp(ax.get_xticklabels(), rotation=50, ha="right", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(
    results: str | Path,
    out: str | Path,
    *,
    label: str | None = None,
    traces: int = 500,
    requested: int | None = None,
) -> Path:
    """Write `out/report.md`, its plots and a trace page per question (the first `traces`);
    returns the markdown file. `requested`: how many questions the run was asked, when the
    file of requested questions is not beside the results."""
    source = Path(results)
    answered = [upgrade(r) for r in read_results(source)]
    asked = read_requested(source)
    if not answered and not asked:
        raise ReadiError(f"{source}: no results to report")
    records = with_missing(answered, asked or [])
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    plt = _pyplot()
    name = label or str((answered or [{}])[0].get("run", source.stem))
    summary = summarize(records, label=name, requested=requested)
    lines = [f"# Evaluation report: {source.name}", ""]
    if asked is None and requested is None:
        lines += [f"(No list of requested questions beside {source.name}: `n` counts the "
                  "lines in the file; a question that never ran is not counted.)", ""]  # fmt: skip
    lines += ["| metric | value |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in summary.items() if k != "run"]

    edits = edits_histogram(records)
    _bar(plt, out_dir / "edits.png", [str(k) for k in edits], list(edits.values()),
         "Edits per question", "questions")  # fmt: skip
    lines += ["", "## Edits per question", "", "![edits](edits.png)", ""]
    lines += [f"- {k} edits: {v} questions" for k, v in edits.items()]

    present = [k for k in ("hops", "qtype", "type") if any(k in r for r in records)]
    varied = [k for k in present if len({str(r.get(k)) for r in records}) > 1]
    group_key = (varied or present)[0] if present else None
    if group_key is not None:
        groups = by_group(records, group_key)
        _bar(plt, out_dir / "accuracy.png", list(groups), [g["accuracy"] for g in groups.values()],
             f"Accuracy by {group_key}", "accuracy")  # fmt: skip
        lines += ["", f"## Accuracy by {group_key}", "", "![accuracy](accuracy.png)", ""]
        lines += [f"| {group_key} | n | missing | errors | accuracy | LLM calls/q |",
                  "|---|---|---|---|---|---|"]  # fmt: skip
        lines += [
            f"| {name} | {g['n']} | {g['missing']} | {g['errors']} | {g['accuracy']} "
            f"| {g['llm_calls_per_question']} |"
            for name, g in groups.items()
        ]

    _cost_plot(plt, out_dir / "cost.png", answered)
    lines += ["", "## LLM calls and tokens per question", "", "![cost](cost.png)"]

    rates = _instantiation_rates(summary)
    if rates:
        _bar(plt, out_dir / "instantiation.png", list(rates), list(rates.values()),
             "Instantiation (first and final path)", "rate / mean progress")  # fmt: skip
        lines += ["", "## Instantiation", "", "![instantiation](instantiation.png)", ""]
        lines += [f"- {k}: {v}" for k, v in rates.items()]
    lines += _traces(records, out_dir, traces)
    report = out_dir / "report.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return report


def _traces(records: list[Record], out_dir: Path, cap: int) -> list[str]:
    """One `readi trace` page per question, linked from the report."""
    from readi_graph.trace import write_trace

    traced = [r for r in records if isinstance(r.get("trace"), dict)][:cap]
    if not traced:
        return []
    lines = ["", "## Traces", "", "| question | correct | edits | trace |", "|---|---|---|---|"]
    for i, r in enumerate(traced):
        name = f"traces/{i:05d}.html"
        write_trace(r, out_dir / name)
        question = str(r.get("question", "")).replace("|", "/")[:90]
        cells = [question, str(r.get("correct", "")), str(r.get("edits", 0))]
        lines.append("| " + " | ".join(cells) + f" | [{r.get('id')}]({name}) |")
    left = sum(1 for r in records if isinstance(r.get("trace"), dict)) - len(traced)
    if left > 0:
        lines.append(f"\n({left} more questions not traced: `readi trace RESULTS --id ID`)")
    return lines


def _cost_plot(plt: Any, path: Path, records: list[Record]) -> None:
    calls = Counter(int((r.get("usage") or {}).get("llm_calls", 0)) for r in records)
    tokens = [
        int((r.get("usage") or {}).get("prompt_tokens", 0))
        + int((r.get("usage") or {}).get("completion_tokens", 0))
        for r in records
    ]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    keys = sorted(calls)
    left.bar([str(k) for k in keys], [calls[k] for k in keys], color="#55A868")
    left.set_title("LLM calls per question")
    left.set_ylabel("questions")
    right.hist(tokens, bins=20, color="#C44E52")
    right.set_title("Tokens per question")
    right.set_xlabel("prompt + completion tokens")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _instantiation_rates(summary: Record) -> dict[str, float]:
    """The summary's instantiation rates (over the questions requested), named for a plot."""
    names = {
        "first_complete": "first path instantiated",
        "first_progress": "first path progress",
        "final_complete": "final path instantiated",
        "final_progress": "final path progress",
    }
    fields = dict(OVER_N)
    return {
        name: float(summary[fields[key]])
        for key, name in names.items()
        if summary.get(fields[key]) is not None
    }
