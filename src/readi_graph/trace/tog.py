"""The SVG drawing of a Think-on-Graph run: the explored tree, one column per depth.

Column 0 holds the topic entities; column d the candidates scored at depth d, kept ones first
(solid, green) and the best pruned ones after them (faded, dashed edges), each joined to the
entity it was reached from by its relation. Under each column, the sufficiency verdict of that
depth; the answers close the drawing. Input: the run's `attempts`, one record per depth
(`kind == "tog"`, `strategies/tog/state.DepthRecord`).

Plain SVG text, no JavaScript and no external resources: the page opens anywhere, offline.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any, TypeGuard

from readi_graph.strategies.tog.state import DepthRecord

COLUMN = 300  # width of one depth (edge + box)
BOX_W, BOX_H, GAP = 170, 36, 14
TOP, LEFT = 40, 20
SHOWN = 8  # candidates drawn per depth (kept first)
COLOURS = {"kept": "#2e7d32", "pruned": "#9e9e9e", "topic": "#37474f", "answer": "#1565c0"}
VERDICTS = {
    "yes": ("enough: yes", "#2e7d32"),
    "no": ("not enough yet", "#c62828"),
    "unreadable": ("verdict unreadable", "#ef6c00"),
    "nothing new": ("nothing new reached", "#6d6d6d"),
    "more hops needed": ("not asked: more hops needed", "#6d6d6d"),
}


def is_tog(attempts: list[dict[str, Any]]) -> TypeGuard[list[DepthRecord]]:
    """A ToG run's attempts: one record per depth (`strategies/tog/state.py`)."""
    return bool(attempts) and all(a.get("kind") == "tog" for a in attempts)


def _short(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _box(x: float, y: float, label: str, colour: str, cls: str, tooltip: str) -> str:
    faded = ' opacity="0.45"' if cls == "pruned" else ""
    return (
        f'<g class="tog-node {cls}"{faded}><title>{escape(tooltip)}</title>'
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{BOX_W}" height="{BOX_H}" rx="8" fill="white" '
        f'stroke="{colour}" stroke-width="2"/><text x="{x + BOX_W / 2:.0f}" y="{y + 23:.0f}" '
        f'text-anchor="middle" class="node-label">{escape(_short(label))}</text></g>'
    )


def _edge(x1: float, y1: float, x2: float, y2: float, relation: str, kept: bool) -> str:
    colour = COLOURS["kept"] if kept else COLOURS["pruned"]
    style = "" if kept else ' stroke-dasharray="5 4" opacity="0.45"'
    cls = "tog-edge kept" if kept else "tog-edge pruned"
    mx, my = x1 + 0.62 * (x2 - x1), y1 + 0.62 * (y2 - y1)  # near the target: fans spread
    return (
        f'<g class="{cls}"><line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" '
        f'stroke="{colour}" stroke-width="1.5"{style}/><text x="{mx:.0f}" y="{my - 4:.0f}" '
        f'text-anchor="middle" class="bound"{style}><title>{escape(relation)}</title>'
        f"{escape(_short(relation, 22))}</text></g>"
    )


def _y(row: int) -> float:
    return TOP + row * (BOX_H + GAP)


def drawing(attempts: Sequence[DepthRecord], answers: list[str]) -> str:
    """The explored tree of a ToG run as one SVG element."""
    depths = [a for a in attempts if a.get("kind") == "tog"]
    parts: list[str] = []
    first = depths[0].get("frontier") or [] if depths else []
    placed: dict[str, float] = {}  # entity name -> y of its box in the previous column
    for row, entity in enumerate(first):
        y = _y(row)
        parts.append(_box(LEFT, y, entity["name"], COLOURS["topic"], "topic", entity["name"]))
        placed[entity["name"]] = y
    rows = len(first)
    x = LEFT
    for record in depths:
        frontier = [e["name"] for e in record.get("frontier") or []]
        candidates = record.get("candidates") or []
        shown = [c for c in candidates if c.get("kept")]
        shown += [c for c in candidates if not c.get("kept")][: max(SHOWN - len(shown), 0)]
        nx = x + COLUMN
        column: dict[str, float] = {}
        for row, c in enumerate(shown):
            y = _y(row)
            source = frontier[c["entity"]] if c.get("entity", -1) < len(frontier) else ""
            sy = placed.get(source, y)
            via = f" (through a compound node: {c['via']})" if c.get("via") else ""
            relation = f"{c.get('relation', '')}{via}"
            kept = bool(c.get("kept"))
            parts.append(_edge(x + BOX_W, sy + BOX_H / 2, nx, y + BOX_H / 2, relation, kept))
            tip = f"{source} -> {relation} -> {c['name']}: score {c.get('score', 0):.3f}"
            colour = COLOURS["kept"] if kept else COLOURS["pruned"]
            parts.append(_box(nx, y, c["name"], colour, "kept" if kept else "pruned", tip))
            if kept:
                column.setdefault(c["name"], y)
        more = len(candidates) - len(shown)
        rows = max(rows, len(shown))
        label, colour = VERDICTS.get(str(record.get("verdict")), ("not judged", "#6d6d6d"))
        verdict = f"depth {record.get('depth')}: {label}"
        if more > 0:
            verdict += f" (+{more} pruned not drawn)"
        parts.append(
            f'<text x="{nx + BOX_W / 2:.0f}" y="{TOP - 16}" text-anchor="middle" '
            f'class="verdict" fill="{colour}">{escape(verdict)}</text>'
        )
        placed, x = column, nx
    ax = x + COLUMN
    parts.append(
        f'<text x="{ax + BOX_W / 2:.0f}" y="{TOP - 16}" text-anchor="middle" '
        f'class="verdict">answers</text>'
    )
    for row, answer in enumerate(answers[:SHOWN] or ["(none)"]):
        y = _y(row)
        parts.append(
            f'<g class="answer">{_box(ax, y, answer, COLOURS["answer"], "answer", answer)}</g>'
        )
    rows = max(rows, min(len(answers), SHOWN), 1)
    width, height = ax + BOX_W + LEFT, _y(rows) + 20
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="explored tree">'
        + "".join(parts)
        + "</svg>"
    )
