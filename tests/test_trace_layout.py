"""The run picture as a person sees it: at 1 to 4 hops with long Freebase ids, no two texts
overlap, no text runs over a box, no relation name is cut, and the picture does not scroll
sideways in a 1000-pixel window. Measured in Debian's headless Chromium: a script added to a
copy of the page writes the box of every SVG text and rect into the DOM (`--dump-dom`)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from readi_graph.cli import main
from readi_graph.trace import render_html
from readi_graph.trace.layout import text_width, wrap

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium")

MEASURE = """<script>
const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const texts = [...document.querySelectorAll('svg text')].map(t => ({
  cls: t.getAttribute('class'), box: box(t),
  lines: [...t.childNodes].filter(n => n.nodeName !== 'title').map(n => n.textContent)}));
const rects = [...document.querySelectorAll('svg rect')].map(box);
const figure = document.querySelector('.figure');
const pre = document.createElement('pre');
pre.id = 'boxes';
pre.textContent = JSON.stringify({texts, rects, scroll: figure.scrollWidth, width: figure.clientWidth});
document.body.appendChild(pre);
</script>"""

PHRASES = [  # what a model writes for CWQ: Freebase-like ids, some of them long
    "film.film.directed_by",
    "film.director.film",
    "film.film.starring",
    "award.award_nominated_work.award_nominations",
]
BOUND = [
    "film.film.directed_by", "film.director.film", "film.performance.actor",
    "film.film.starring", "award.award_nomination.award_nominee",
    "people.person.nationality", "location.location.containedby",
]  # fmt: skip


def freebase_run(hops: int) -> dict[str, Any]:
    """A generated path stuck at its last hop, an edit that goes further, one that completes;
    every step bound to long ids, some walked backwards."""

    def steps(n: int, stuck: bool) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for i in range(n):
            last = stuck and i == n - 1
            matched = [] if last else ["<- " + BOUND[i + 2], BOUND[i], BOUND[i + 1], BOUND[i + 3]]
            out.append({"bound": BOUND[i : i + 5], "matched": matched, "reached": 10**i + 7})
        return out

    topic = "The Lord of the Rings: The Return of the King"
    path = " -> ".join([topic, *PHRASES[:hops]])
    attempts = [
        {"source": "generate", "path": path, "complete": False, "failed_at": hops - 1,
         "steps": steps(hops, True), "topic_found": True},
        {"source": "edit 1", "path": path, "complete": True, "failed_at": None,
         "steps": steps(hops, False), "compound_end": True, "topic_found": True},
        {"source": "edit 2", "path": path, "complete": True, "failed_at": None,
         "steps": steps(hops, False), "topic_found": True},
    ]  # fmt: skip
    answers = ["Peter Jackson", "Fran Walsh", "Philippa Boyens", "Howard Shore",
               "Andrew Lesnie", "Jamie Selkirk", "Grant Major", "Ngila Dickson"]  # fmt: skip
    return {"question": "who worked on it", "attempts": attempts, "answers": answers}


def measure(page: str, tmp: Path) -> dict[str, Any]:
    assert CHROMIUM is not None
    copy = tmp / "measure.html"
    copy.write_text(page.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--user-data-dir={tmp / 'profile'}", "--window-size=1000,800", "--dump-dom",
         copy.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    found = re.search(r'<pre id="boxes">(.*?)</pre>', dom, re.S)
    assert found, "the measuring script did not run"
    result: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return result


def _overlap(a: list[float], b: list[float], slack: float = 0.5) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


def _inside(inner: list[float], outer: list[float]) -> bool:
    return all((inner[0] >= outer[0], inner[1] >= outer[1], inner[2] <= outer[2],
                inner[3] <= outer[3]))  # fmt: skip


def check_layout(boxes: dict[str, Any]) -> None:
    texts, rects = boxes["texts"], boxes["rects"]
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            assert not _overlap(a["box"], b["box"]), (a["lines"], b["lines"])
        if a["cls"] == "node-label":  # inside exactly one box
            assert sum(_inside(a["box"], r) for r in rects) == 1, a["lines"]
        else:
            assert not any(_overlap(a["box"], r) for r in rects), a["lines"]
    assert boxes["scroll"] <= boxes["width"]  # no sideways scrolling


@needs_chromium
@pytest.mark.parametrize("hops", [1, 2, 3, 4])
def test_long_freebase_ids_never_overlap_and_are_never_cut(hops: int, tmp_path: Path) -> None:
    run = freebase_run(hops)
    boxes = measure(render_html(run), tmp_path)
    check_layout(boxes)
    shown = {"".join(t["lines"]) for t in boxes["texts"]}
    # every relation whole: the model's, and under each step those that connected (else the
    # first three tried)
    steps = [step for a in run["attempts"] for step in a["steps"]]
    bound = {name for step in steps for name in (step["matched"] or step["bound"][:3])}
    assert set(PHRASES[:hops]) | bound <= shown
    relations = [t for t in boxes["texts"] if t["cls"] == "relation"]
    assert len(relations) == 3 * hops
    assert any(len(t["lines"]) > 1 for t in relations) == (hops == 4)  # the long one wraps


@needs_chromium
def test_a_corrupt_oracle_metaqa_3_hop_run_is_laid_out(metaqa_dir: Path, tmp_path: Path) -> None:
    """The run the issue was seen on: MetaQA 3-hop, corrupted plans edited by the oracle."""
    results = tmp_path / "r.jsonl"
    args = ["--hops", "3", "--limit", "2", "--planner", "corrupt", "--editor", "oracle"]
    assert main(["eval", "metaqa", "--data", str(metaqa_dir), *args, "--out", str(results)]) == 0
    for line in results.read_text().splitlines():
        run = json.loads(line)
        assert len(run["trace"]["attempts"]) == 2  # stuck, then edited
        check_layout(measure(render_html(run), tmp_path))


def test_wrapping_keeps_every_character_and_the_width() -> None:
    name = "award.award_nominated_work.award_nominations"
    lines = wrap(name, 120, 13, bold=True)
    assert "".join(lines) == name and len(lines) > 1
    assert all(text_width(line, 13, bold=True) <= 120 for line in lines)
    assert wrap("x" * 40, 50, 11) == ["".join(p) for p in wrap("x" * 40, 50, 11)]
    assert "".join(wrap("x" * 40, 50, 11)) == "x" * 40  # a piece with no separator is split
