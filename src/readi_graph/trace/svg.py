"""The SVG drawing of one run: a row per attempt (generation, then each edit), left to right
from the topic entity over each relation step to the nodes it reached, the step where the
walk got stuck marked, the bound KG relations under each step, and the answers at the end.

Plain SVG text, no JavaScript and no external resources: the page opens anywhere, offline.
"""

from __future__ import annotations

from html import escape
from typing import Any

ROW = 118  # height of one attempt row
STEP = 250  # width of one relation step (arrow + node)
NODE_W, NODE_H = 150, 40
LEFT = 96  # room for the row label
COLOURS = {
    "complete": "#2e7d32",
    "stuck": "#c62828",
    "compound": "#ef6c00",
    "unknown": "#6d6d6d",
    "answer": "#1565c0",
}


def _short(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(x: float, y: float, text: str, cls: str, anchor: str = "middle") -> str:
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" class="{cls}" text-anchor="{anchor}">'
        f"<title>{escape(text)}</title>{escape(_short(text, 34))}</text>"
    )


def _node(x: float, y: float, label: str, cls: str, colour: str, tooltip: str = "") -> str:
    return (
        f'<g class="node {cls}"><title>{escape(tooltip or label)}</title>'
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{NODE_W}" height="{NODE_H}" rx="8" '
        f'fill="white" stroke="{colour}" stroke-width="2"/>'
        f'<text x="{x + NODE_W / 2:.0f}" y="{y + 25:.0f}" text-anchor="middle" '
        f'class="node-label">{escape(_short(label))}</text></g>'
    )


def _edge(x1: float, x2: float, y: float, colour: str, dashed: bool) -> str:
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    return (
        f'<line class="edge" x1="{x1:.0f}" y1="{y:.0f}" x2="{x2:.0f}" y2="{y:.0f}" '
        f'stroke="{colour}" stroke-width="2" marker-end="url(#arrow)"{dash}/>'
    )


def attempt_row(index: int, attempt: dict[str, Any]) -> tuple[str, int]:
    """One attempt as an SVG group, and its width."""
    parts = [p.strip() for p in str(attempt.get("path", "")).split(" -> ")]
    topic, relations = parts[0], parts[1:]
    steps = list(attempt.get("steps") or [])
    failed = attempt.get("failed_at")
    y = 30 + index * ROW
    mid = y + NODE_H / 2
    status = _status(attempt)
    out = [
        f'<g class="attempt" data-source="{escape(str(attempt.get("source", "")))}" '
        f'data-status="{status}">',
        _text(8, mid + 4, str(attempt.get("source", "")), "row-label", "start"),
    ]
    found = attempt.get("topic_found", True)
    out.append(
        _node(
            LEFT,
            y,
            topic,
            "topic",
            COLOURS["complete"] if found else COLOURS["unknown"],
            topic if found else f"{topic}: not in the knowledge graph",
        )
    )
    x = LEFT + NODE_W
    for i, relation in enumerate(relations):
        step = steps[i] if i < len(steps) else {}
        walked = i < len(steps) and (failed is None or i < failed)
        colour = COLOURS["stuck"] if failed == i else COLOURS["complete"] if walked else "#9e9e9e"
        out.append(_edge(x + 6, x + STEP - NODE_W - 6, mid, colour, dashed=not walked))
        centre = x + (STEP - NODE_W) / 2
        out.append(_text(centre, mid - 10, relation, "relation"))
        matched = step.get("matched") or []
        bound = step.get("bound") or []
        under = ", ".join(matched) if matched else ", ".join(bound[:3])
        if walked or failed == i:
            under = under or "(none bound)"
        if under:
            out.append(_text(centre, mid + 22, under, "bound matched" if matched else "bound"))
        x += STEP - NODE_W
        if failed == i:
            label, cls, colour = "stuck here", "step stuck", COLOURS["stuck"]
            why = "no KG relation matches"
            if bound:
                why = f"tried {', '.join(bound[:3])}: none connects"
            tooltip = f'"{relation}": {why}'
            out.append(_text(x + NODE_W / 2, y + NODE_H + 16, why, "bound reason"))
        elif walked:
            last = i == len(relations) - 1 and attempt.get("compound_end")
            reached = step.get("reached", "?")
            label = f"{reached} node{'' if reached == 1 else 's'}" + (" (compound)" if last else "")
            cls = "step compound" if last else "step"
            colour = COLOURS["compound"] if last else COLOURS["complete"]
            tooltip = label
        else:
            label, cls, colour, tooltip = "not reached", "step unreached", "#9e9e9e", ""
        out.append(_node(x, y, label, cls, colour, tooltip))
        x += NODE_W
    out.append("</g>")
    return "".join(out), int(x)


def _status(attempt: dict[str, Any]) -> str:
    if not attempt.get("topic_found", True):
        return "unknown"
    if attempt.get("compound_end"):
        return "compound"
    return "complete" if attempt.get("complete") else "stuck"


def answers_row(index: int, answers: list[str]) -> tuple[str, int]:
    y = 30 + index * ROW
    out = ['<g class="answers">', _text(8, y + NODE_H / 2 + 4, "answers", "row-label", "start")]
    x = LEFT
    for answer in answers[:6] or ["(none)"]:
        out.append(f'<g class="answer">{_node(x, y, answer, "answer-node", COLOURS["answer"])}</g>')
        x += NODE_W + 16
    if len(answers) > 6:
        out.append(_text(x + 20, y + 25, f"+{len(answers) - 6} more", "bound", "start"))
        x += 90
    out.append("</g>")
    return "".join(out), int(x)


def drawing(attempts: list[dict[str, Any]], answers: list[str]) -> str:
    rows = [attempt_row(i, a) for i, a in enumerate(attempts)]
    rows.append(answers_row(len(attempts), answers))
    width = max(w for _, w in rows) + 40
    height = 30 + len(rows) * ROW
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="reasoning path">'
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker>'
        "</defs>" + "".join(svg for svg, _ in rows) + "</svg>"
    )
