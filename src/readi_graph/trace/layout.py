"""Text sizes for the run picture, known before any browser draws it.

The picture is plain SVG, which does not wrap text: each line is placed by the code that
writes it. Widths are estimated from the advance widths of DejaVu Sans (Debian's default sans
and among the widest common ones; Arial, Helvetica and Segoe UI are narrower), so a line
measured here is no shorter than a browser draws it. Long names are wrapped at their own
separators ("film.performance.actor" after each "."), never cut. Steps are laid out in
columns shared by every row (`Columns`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_WIDTH = 920  # the drawing's width: the page fits a 1000-pixel window
LEFT, INDENT = 76, 24  # room for the row label; the indent of a continued line

# Advance widths of DejaVu Sans (Book, Bold) in em, rounded up, by character (ASCII); any
# other character counts `OTHER`.
_REGULAR = {
    0.28: "ijl'", 0.30: "IJ", 0.32: ",. ", 0.34: "/:;\\|", 0.36: "f", 0.37: "-",
    0.40: "t()[]", 0.41: "!", 0.42: "r", 0.46: '"', 0.50: "*_`", 0.53: "sz", 0.54: "?",
    0.55: "c", 0.56: "L", 0.58: "kF", 0.60: "vxy", 0.61: "P", 0.62: "aeoTY",
    0.64: "0123456789bdghnpquES${}", 0.66: "K", 0.69: "ABVXZ", 0.70: "CR", 0.74: "U",
    0.75: "N", 0.76: "H", 0.78: "DG&", 0.79: "OQ", 0.82: "w", 0.84: "#+<=>^~", 0.87: "M",
    0.96: "%", 0.98: "m", 0.99: "W", 1.00: "@",
}  # fmt: skip
_BOLD = {
    0.31: "'", 0.35: "ijl ", 0.37: "/\\|", 0.38: "IJ,.", 0.40: ":;", 0.42: "-", 0.44: "f",
    0.46: "!()[]", 0.48: "t", 0.50: "r_`", 0.53: '"*', 0.59: "z?", 0.60: "cs", 0.64: "L",
    0.65: "x", 0.66: "vy", 0.67: "k", 0.68: "ae", 0.69: "oEFT", 0.70: "0123456789$",
    0.72: "bdghnpqu{}", 0.73: "SYZ", 0.74: "CP", 0.77: "B", 0.78: "AKRVX", 0.82: "U",
    0.83: "G", 0.84: "DHN#+<=>^~", 0.86: "OQ", 0.88: "&", 0.93: "w", 1.00: "M@", 1.01: "%",
    1.05: "m", 1.11: "W",
}  # fmt: skip
EM = {c: w for w, chars in _REGULAR.items() for c in chars}
EM_BOLD = {c: w for w, chars in _BOLD.items() for c in chars}
OTHER = 1.0  # accented letters are as wide as their base; CJK is 1 em
SAFETY = 1.03  # rounding and hinting
_BREAK = re.compile(r"(?<=[ ._/\-])")  # break after a space, ".", "_", "/" or "-"


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """An upper estimate of `text`'s width in pixels at `size` px."""
    widths = EM_BOLD if bold else EM
    return sum(widths.get(c, OTHER) for c in text) * size * SAFETY


def wrap(text: str, width: float, size: float, *, bold: bool = False) -> list[str]:
    """`text` in lines no wider than `width`, broken after its separators (a piece wider
    than a line is split between characters); the lines joined give `text` back."""
    lines: list[str] = []
    line = ""
    for piece in _pieces(text, width, size, bold):
        if line and text_width((line + piece).rstrip(), size, bold=bold) > width:
            lines.append(line)
            line = ""
        line += piece
    if line or not lines:
        lines.append(line)
    return lines


def _pieces(text: str, width: float, size: float, bold: bool) -> list[str]:
    pieces: list[str] = []
    for piece in (p for p in _BREAK.split(text) if p):
        while text_width(piece, size, bold=bold) > width and len(piece) > 1:
            cut = len(piece) - 1
            while cut > 1 and text_width(piece[:cut], size, bold=bold) > width:
                cut -= 1
            pieces.append(piece[:cut])
            piece = piece[cut:]
        pieces.append(piece)
    return pieces


def widest(lines: list[str], size: float, *, bold: bool = False) -> float:
    return max((text_width(line.rstrip(), size, bold=bold) for line in lines), default=0.0)


@dataclass(frozen=True)
class Columns:
    """Where each step goes, the same in every row so that hop i is under hop i: each
    column is as wide as its widest step; a column that would pass `MAX_WIDTH` starts a new
    line (in every row)."""

    topic: float  # width of the topic nodes
    gaps: list[float]  # per step: the arrow's width
    nodes: list[float]  # per step: the node's width
    lines: list[list[tuple[int, float]]]  # per line: (step, x of its arrow)

    @classmethod
    def of(cls, topics: list[float], rows: list[list[tuple[float, float]]]) -> Columns:
        """From each row's topic width and its steps' (arrow width, node width)."""
        depth = max((len(steps) for steps in rows), default=0)
        gaps = [max(s[i][0] for s in rows if i < len(s)) for i in range(depth)]
        nodes = [max(s[i][1] for s in rows if i < len(s)) for i in range(depth)]
        topic = max(topics)
        lines: list[list[tuple[int, float]]] = [[]]
        x = LEFT + topic
        for i in range(depth):
            if lines[-1] and x + gaps[i] + nodes[i] > MAX_WIDTH:
                lines.append([])
                x = LEFT + INDENT
            lines[-1].append((i, x))
            x += gaps[i] + nodes[i]
        return cls(topic, gaps, nodes, lines)

    def end(self, line: list[tuple[int, float]]) -> float:
        """Where a line's last node ends."""
        if not line:
            return LEFT + self.topic
        i, x = line[-1]
        return x + self.gaps[i] + self.nodes[i]
