"""Pictures of a run: one self-contained HTML page with an SVG drawing of how a question was
answered (`readi trace`, or `render_html(out)` in a notebook).

The page shows the question and the final answer, then a row per attempt: the topic entity,
each relation step with the KG relations it was bound to, how many nodes each step reached,
the step where the walk got stuck and why, each edit as a new row, and the answers; below,
the caveats (`notes`) and the evidence. A table run shows the chosen columns, the row
constraints and the matched rows instead. Input: `graph.invoke(...)`'s output, or a line of
`readi eval --out` (which keeps the attempts and evidence under `trace`).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from readi_graph.core.base import InputError
from readi_graph.trace import tog
from readi_graph.trace.svg import drawing

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 18px; } .answer-text { white-space: pre-wrap; background: #f5f7fa;
padding: 8px 12px; border-radius: 6px; } table { border-collapse: collapse; margin-top: 8px; }
td, th { border: 1px solid #ddd; padding: 3px 8px; font-size: 13px; text-align: left; }
.relation { font-weight: 600; font-size: 13px; } .bound { fill: #777; font-size: 11px; }
.matched { fill: #2e7d32; } .row-label { font-size: 12px; fill: #555; }
.node-label { font-size: 13px; } .notes li { color: #8a4b00; } svg { max-width: none; }
.figure { overflow-x: auto; border: 1px solid #eee; padding: 8px; }
"""


def _run_from(source: dict[str, Any]) -> dict[str, Any]:
    """An invoke output as is; an eval results line through its `trace`."""
    if "trace" in source and isinstance(source["trace"], dict):
        trace = source["trace"]
        return {
            "question": source.get("question"),
            "answers": source.get("prediction") or [],
            "path": source.get("path") or [],
            "edits": source.get("edits", 0),
            "usage": source.get("usage") or {},
            "error": source.get("error"),
            **trace,
        }
    return source


def _is_table(attempts: list[dict[str, Any]]) -> bool:
    return any(str(a.get("path", "")).startswith("Chosen Headers") for a in attempts)


def _evidence_table(evidence: list[Any], table: bool, cap: int = 60) -> str:
    if not evidence:
        return "<p>(no evidence)</p>"
    rows = [list(map(str, row)) for row in evidence]
    head, body = (rows[0], rows[1:]) if table else (["subject", "relation", "object"], rows)
    lines = ["<table class='evidence'><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head)]
    lines += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in body[:cap]]
    more = f"<p>({len(body) - cap} more not shown)</p>" if len(body) > cap else ""
    return "".join(lines) + "</table>" + more


def _table_figure(attempts: list[dict[str, Any]]) -> str:
    items = []
    for a in attempts:
        status = "rows matched" if a.get("complete") else "headers not found"
        if a.get("fallback"):
            status = "no row matched a constraint: all rows"
        items.append(
            f"<li class='attempt' data-source='{escape(str(a.get('source', '')))}'>"
            f"<b>{escape(str(a.get('source', '')))}</b>: <pre>{escape(str(a.get('path', '')))}"
            f"</pre>{escape(status)}</li>"
        )
    return "<ol class='table-attempts'>" + "".join(items) + "</ol>"


def render_html(source: dict[str, Any], *, question: str | None = None) -> str:
    """The page for one run (an invoke output or an eval results line)."""
    run = _run_from(source)
    attempts = [a for a in run.get("attempts") or [] if isinstance(a, dict)]
    answers = [str(a) for a in run.get("answers") or []]
    question = question or run.get("question") or ""
    table = _is_table(attempts)
    figure = _table_figure(attempts) if table else drawing(attempts, answers)
    if tog.is_tog(attempts):  # Think-on-Graph: the explored tree, depth by depth
        figure = tog.drawing(attempts, answers)
    usage = run.get("usage") or {}
    facts = (
        f"edits: {run.get('edits', 0)} · LLM calls: {usage.get('llm_calls', '?')} · "
        f"KG queries: {usage.get('queries', '?')}"
    )
    notes = [str(n) for n in run.get("notes") or []]
    if run.get("error"):
        notes.insert(0, f"error: {run['error']}")
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>readi trace: {escape(question[:80])}</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(question) or 'readi trace'}</h1>",
        f"<p class='facts'>{escape(facts)}</p>",
        f"<div class='answer-text'>{escape(str(run.get('answer') or ', '.join(answers)))}</div>",
        "<h2>Reasoning path</h2><div class='figure'>",
        figure,
        "</div>",
    ]
    if notes:
        parts.append("<h2>Caveats</h2><ul class='notes'>")
        parts += [f"<li>{escape(n)}</li>" for n in notes]
        parts.append("</ul>")
    parts += ["<h2>Evidence</h2>", _evidence_table(list(run.get("evidence") or []), table)]
    parts.append("</body></html>")
    return "".join(parts)


def write_trace(source: dict[str, Any], path: str | Path, *, question: str | None = None) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(source, question=question), encoding="utf-8")
    return out


def load_run(path: str | Path, *, id: str | None = None, line: int | None = None) -> dict[str, Any]:
    """A run saved as JSON (an invoke output), or one line of a results file (by id or
    1-based line number; default: the first). What names no run is an `InputError`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text, so no run saved as JSON") from exc
    stripped = text.strip()
    if not stripped:
        raise InputError(f"{path}: empty, no run to draw")
    if stripped.startswith("{") and "\n{" not in stripped:
        records = [_json(path, stripped, 1)]
    else:
        lines = [x for x in stripped.splitlines() if x.strip()]
        records = [_json(path, x, number) for number, x in enumerate(lines, 1)]
    if id is not None:
        found = [r for r in records if str(r.get("id")) == id]
        if not found:
            ids = ", ".join(repr(str(r.get("id"))) for r in records[:5] if "id" in r)
            held = f" (its ids: {ids}{', ...' if len(records) > 5 else ''})" if ids else ""
            raise InputError(f"{path}: no result with id {id!r}{held}")
        return dict(found[0])
    number = line or 1
    if number < 1 or number > len(records):
        raise InputError(f"{path}: holds {len(records)} run(s); there is no line {number}")
    return dict(records[number - 1])


def _json(path: str | Path, text: str, number: int) -> dict[str, Any]:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{number}: not JSON ({exc.msg})") from exc
    if not isinstance(record, dict):
        raise InputError(f"{path}:{number}: not a run (a JSON object of a graph's output)")
    return record
