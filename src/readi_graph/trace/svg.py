"""The SVG drawing of one run: a row per attempt (generation, then each edit), left to right
from the topic entity over each relation step to the nodes it reached, the step where the
walk got stuck marked, the bound KG relations under each step, and the answers at the end.

Nothing overlaps and no name is cut, however long (Freebase ids such as
`film.performance.actor`): each relation and each bound relation is wrapped at its own
separators to its step's width (`trace/layout.py`), bound relations are stacked under the
arrow, each step is a column as wide as its widest text in any row (hop i under hop i), and
a row that would pass `MAX_WIDTH` goes on below (an elbow joins the two lines) instead of
scrolling sideways.

Plain SVG text, no JavaScript and no external resources: the page opens anywhere, offline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Any

from readi_graph.trace.layout import INDENT, LEFT, MAX_WIDTH, Columns, widest, wrap

TOP = 16
GAP_MIN, GAP_MAX, PAD = 84, 210, 10  # width of an arrow with its texts
NODE_MIN, NODE_MAX, NODE_PAD = 72, 190, 10
LINE_GAP = 26  # between two lines of a row, and between rows
SIZES = {"relation": 13.0, "bound": 11.0, "node-label": 13.0, "row-label": 12.0}
LEADING = {"relation": 16, "bound": 14, "node-label": 16, "row-label": 14}
CAPTIONS = 4  # bound relations shown per step ("+N more" beyond)
CAPTION_GAP = 3  # between two bound relations (a wrapped one keeps its lines together)
ANSWERS = 6
COLOURS = {
    "complete": "#2e7d32",
    "stuck": "#c62828",
    "compound": "#ef6c00",
    "unknown": "#6d6d6d",
    "answer": "#1565c0",
    "unreached": "#9e9e9e",
}


def lines_of(text: str, cls: str, width: float) -> list[str]:
    return wrap(text, width, SIZES[cls], bold=cls == "relation")


def text_block(
    x: float, y: float, lines: list[str], cls: str, tooltip: str, anchor: str = "middle"
) -> str:
    """Lines of text, the first baseline at `y`, each line its own <tspan>."""
    spans = "".join(
        f'<tspan x="{x:.0f}" dy="{0 if i == 0 else LEADING[cls.split()[0]]}">{escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" class="{cls}" text-anchor="{anchor}">'
        f"<title>{escape(tooltip)}</title>{spans}</text>"
    )


@dataclass
class Node:
    label: str
    cls: str
    colour: str
    tooltip: str
    lines: list[str] = field(default_factory=list)
    width: float = NODE_MIN

    def __post_init__(self) -> None:
        self.lines = lines_of(self.label, "node-label", NODE_MAX - 2 * NODE_PAD)
        inner = widest(self.lines, SIZES["node-label"])
        self.width = min(NODE_MAX, max(NODE_MIN, inner + 2 * NODE_PAD))

    @property
    def height(self) -> float:
        return max(40, len(self.lines) * LEADING["node-label"] + 22)

    def svg(self, x: float, y: float, height: float, width: float | None = None) -> str:
        """The box at (x, y), `width` wide (a column's) or its own width."""
        width = width or self.width
        first = y + height / 2 - (len(self.lines) - 1) * LEADING["node-label"] / 2 + 5
        label = text_block(x + width / 2, first, self.lines, "node-label", self.tooltip)
        return (
            f'<g class="node {self.cls}"><rect x="{x:.0f}" y="{y:.0f}" '
            f'width="{width:.0f}" height="{height:.0f}" rx="8" fill="white" '
            f'stroke="{self.colour}" stroke-width="2"/>{label}</g>'
        )


@dataclass
class Step:
    """One relation step: the arrow with its texts, and the node it reached."""

    relation: list[str]  # the relation's lines, above the arrow
    captions: list[list[str]]  # bound relations stacked under the arrow, each in its lines
    caption_cls: str
    caption_tip: str
    colour: str
    walked: bool
    node: Node
    reason: str  # why it got stuck, under the node
    relation_tip: str = ""

    @property
    def gap(self) -> float:
        texts = max(
            widest(self.relation, SIZES["relation"], bold=True),
            widest([line for c in self.captions for line in c], SIZES["bound"]),
        )
        return min(GAP_MAX, max(GAP_MIN, texts + 2 * PAD))


def _step(i: int, relation: str, step: dict[str, Any], attempt: dict[str, Any]) -> Step:
    steps = attempt.get("steps") or []
    failed = attempt.get("failed_at")
    walked = i < len(steps) and (failed is None or i < failed)
    colour = COLOURS["stuck"] if failed == i else COLOURS["complete"] if walked else "#9e9e9e"
    matched = [str(m) for m in step.get("matched") or []]
    bound = [str(b) for b in step.get("bound") or []]
    shown = matched or bound[:3]
    names = shown[:CAPTIONS] + ([f"+{len(shown) - CAPTIONS} more"] if len(shown) > CAPTIONS else [])
    if not names and (walked or failed == i):
        names = ["(none bound)"]
    inner = GAP_MAX - 2 * PAD
    captions = [lines_of(name, "bound", inner) for name in names]
    reason = ""
    if failed == i:
        why = f"tried {', '.join(bound[:3])}: none connects" if bound else "no KG relation matches"
        node = Node("stuck here", "step stuck", COLOURS["stuck"], f'"{relation}": {why}')
        reason = "none connects" if bound else "no KG relation matches"
    elif walked:
        last = i == len(attempt.get("path", "").split(" -> ")) - 2 and attempt.get("compound_end")
        reached = step.get("reached", "?")
        label = f"{reached} node{'' if reached == 1 else 's'}" + (" (compound)" if last else "")
        kind = "compound" if last else "complete"
        node = Node(label, "step compound" if last else "step", COLOURS[kind], label)
    else:
        node = Node("not reached", "step unreached", COLOURS["unreached"], "not reached")
    return Step(
        relation=lines_of(relation, "relation", inner),
        captions=captions,
        caption_cls="bound matched" if matched else "bound",
        caption_tip=", ".join(shown) or "(none bound)",
        colour=colour,
        walked=walked,
        node=node,
        reason=reason,
        relation_tip=relation,
    )


def _status(attempt: dict[str, Any]) -> str:
    if not attempt.get("topic_found", True):
        return "unknown"
    if attempt.get("compound_end"):
        return "compound"
    return "complete" if attempt.get("complete") else "stuck"


def parse_attempt(attempt: dict[str, Any]) -> tuple[Node, list[Step]]:
    """The topic node and the steps of one attempt, each sized for its own texts."""
    parts = [p.strip() for p in str(attempt.get("path", "")).split(" -> ")]
    topic_name, relations = parts[0], parts[1:]
    recorded = list(attempt.get("steps") or [])
    steps = [
        _step(i, r, recorded[i] if i < len(recorded) else {}, attempt)
        for i, r in enumerate(relations)
    ]
    found = attempt.get("topic_found", True)
    topic = Node(
        topic_name, "topic", COLOURS["complete"] if found else COLOURS["unknown"],
        topic_name if found else f"{topic_name}: not in the knowledge graph",
    )  # fmt: skip
    return topic, steps


def attempt_row(
    top: float, attempt: dict[str, Any], topic: Node, steps: list[Step], columns: Columns
) -> tuple[str, float]:
    """One attempt as an SVG group starting at `top`: (svg, height)."""
    source = str(attempt.get("source", ""))
    out = [f'<g class="attempt" data-source="{escape(source)}" data-status="{_status(attempt)}">']
    y, previous_end = top, (0.0, 0.0, 0.0)
    lines = [[(i, x) for i, x in line if i < len(steps)] for line in columns.lines]
    for n, line in enumerate(lines):
        if n > 0 and not line:
            break
        above = max([len(steps[i].relation) for i, _ in line] + [1]) * LEADING["relation"] + 8
        height = max([topic.height] * (n == 0) + [steps[i].node.height for i, _ in line])
        node_y = y + above
        mid = node_y + height / 2
        if n == 0:
            out.append(text_block(8, mid + 4, [source], "row-label", source, "start"))
            out.append(topic.svg(LEFT, node_y, height, columns.topic))
        else:  # an elbow from the end of the line above
            end_x, end_mid, gap_y = previous_end
            out.append(
                f'<path class="continued" d="M{end_x + 2:.0f},{end_mid:.0f} h10 '
                f'V{gap_y:.0f} H{LEFT:.0f} V{mid:.0f} H{LEFT + INDENT:.0f}" fill="none" '
                'stroke="#9e9e9e" stroke-width="1.5"/>'
            )
        bottom = node_y + height
        for i, x in line:
            s, gap, node_w = steps[i], columns.gaps[i], columns.nodes[i]
            out.append(_edge(x + 6, x + gap - 6, mid, s.colour, dashed=not s.walked))
            centre = x + gap / 2
            rel_y = mid - 8 - (len(s.relation) - 1) * LEADING["relation"]
            out.append(text_block(centre, rel_y, s.relation, "relation", s.relation_tip))
            below = mid + 17
            for caption in s.captions:  # one text per bound relation, stacked
                out.append(text_block(centre, below, caption, s.caption_cls, s.caption_tip))
                below += len(caption) * LEADING["bound"] + CAPTION_GAP
            bottom = max(bottom, below - 9 - CAPTION_GAP)
            out.append(s.node.svg(x + gap, node_y, height, node_w))
            if s.reason:
                why = lines_of(s.reason, "bound", node_w - 4)
                below, tip = node_y + height + 14, s.node.tooltip
                out.append(text_block(x + gap + node_w / 2, below, why, "bound reason", tip))
                bottom = max(bottom, node_y + height + 4 + len(why) * LEADING["bound"])
        previous_end = (columns.end(line), mid, bottom + LINE_GAP / 2)
        y = bottom + LINE_GAP
    out.append("</g>")
    return "".join(out), y - top


def _edge(x1: float, x2: float, y: float, colour: str, dashed: bool) -> str:
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    return (
        f'<line class="edge" x1="{x1:.0f}" y1="{y:.0f}" x2="{x2:.0f}" y2="{y:.0f}" '
        f'stroke="{colour}" stroke-width="2" marker-end="url(#arrow)"{dash}/>'
    )


def answers_row(top: float, answers: list[str]) -> tuple[str, float, float]:
    """The answers as nodes from `top`, on as many lines as they need: (svg, width, height)."""
    nodes = [Node(a, "answer-node", COLOURS["answer"], a) for a in answers[:ANSWERS]]
    nodes = nodes or [Node("(none)", "answer-node", COLOURS["answer"], "no answer")]
    more = f"+{len(answers) - ANSWERS} more" if len(answers) > ANSWERS else ""
    height = max(n.height for n in nodes)
    out = ['<g class="answers">']
    out.append(text_block(8, top + height / 2 + 4, ["answers"], "row-label", "answers", "start"))
    x, y, width = float(LEFT), top, 0.0
    for node in nodes:
        if x > LEFT and x + node.width > MAX_WIDTH:
            x, y = LEFT, y + height + 16
        out.append(f'<g class="answer">{node.svg(x, y, height)}</g>')
        width = max(width, x + node.width)
        x += node.width + 16
    if more:
        room = widest([more], SIZES["bound"]) + 8
        if x + room > MAX_WIDTH:
            x, y = LEFT, y + height + 16
        out.append(text_block(x, y + height / 2 + 4, [more], "bound", more, "start"))
        width = max(width, x + room)
    out.append("</g>")
    return "".join(out), width, y + height - top + LINE_GAP


def drawing(attempts: list[dict[str, Any]], answers: list[str]) -> str:
    rows = [parse_attempt(a) for a in attempts]
    parts, y, width = [], float(TOP), 0.0
    if rows:
        sizes = [[(s.gap, s.node.width) for s in steps] for _, steps in rows]
        columns = Columns.of([t.width for t, _ in rows], sizes)
        width = max(columns.end(line) for line in columns.lines)
        for attempt, (topic, steps) in zip(attempts, rows, strict=True):
            svg, h = attempt_row(y, attempt, topic, steps, columns)
            parts.append(svg)
            y += h
    svg, w, h = answers_row(y, answers)
    parts.append(svg)
    width = max(width, w) + 12
    height = y + h
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="reasoning path">'
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker>'
        "</defs>" + "".join(parts) + "</svg>"
    )
