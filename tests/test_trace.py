"""Pictures of a run: the HTML/SVG page, checked as a person sees it in a real headless
Chromium (Debian's `chromium`), from an invoke output, a results line and a report."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from readi_graph.cli import main
from readi_graph.demo import demo_kg
from readi_graph.environments.table.table import Table
from readi_graph.graph import build_graph
from readi_graph.trace import render_html, write_trace

from fakes import path, routed, scripted

ZWICK = {
    "question": "which languages are the films directed by Joel Zwick in",
    "topic_entities": ["Joel Zwick"],
}
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium")


def _edited_run() -> dict[str, object]:
    llm = scripted(
        path({"Joel Zwick": ["Joel Zwick -> directed -> nationality"]}),
        "Goal: languages\n" + path({"Joel Zwick": ["Joel Zwick -> directed -> in_language"]}),
        "{Greek}",
    )
    return dict(build_graph(demo_kg(), llm).invoke(ZWICK))


def _chromium(args: list[str], tmp: Path) -> str:
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--user-data-dir={tmp / 'profile'}", *args],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return done.stdout


def test_the_page_draws_each_attempt_where_it_got_stuck_and_the_answers() -> None:
    page = render_html(_edited_run(), question=ZWICK["question"])
    attempts = re.findall(r'<g class="attempt" data-source="([^"]+)" data-status="(\w+)"', page)
    assert attempts == [("generate", "stuck"), ("edit 1", "complete")]
    assert page.count('class="node step stuck"') == 1  # where the first path got stuck
    assert len(re.findall(r'<line class="edge"', page)) == 4  # two steps in each row
    assert re.search(r'class="node answer-node".*Greek', page)
    assert "in_language" in page and "My Big Fat Greek Wedding" in page  # bound + evidence
    assert "<script" not in page and not re.search(r'(src|href)="https?:', page)  # offline


def test_a_table_run_shows_the_chosen_columns_and_rows(tmp_path: Path) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text("Year,League\n2001,USL A-League\n2002,USL A-League\n2005,USL First Division\n")
    model = routed(
        'Chosen Headers: ["Year", "League"]\nConstraints: {"League": ["USL A-League"]}',
        'Answer: ["2002"]',
    )
    out = build_graph(Table.from_csv(csv), model).invoke({"question": "last year in the A-League?"})
    page = render_html(dict(out))
    assert "table-attempts" in page and "Chosen Headers" in page
    assert "<th>Year</th>" in page and "<td>2002</td>" in page and "<td>2005</td>" not in page


@needs_chromium
def test_chromium_renders_the_page_and_the_picture_is_not_blank(tmp_path: Path) -> None:
    from PIL import Image

    html = write_trace(_edited_run(), tmp_path / "trace.html", question=ZWICK["question"])
    dom = _chromium(["--dump-dom", html.as_uri()], tmp_path)
    assert dom.count('class="attempt"') == 2 and "<svg" in dom and "stuck here" in dom
    shot = tmp_path / "shot.png"
    _chromium([f"--screenshot={shot}", "--window-size=1000,700", html.as_uri()], tmp_path)
    import numpy as np

    image = Image.open(shot).convert("RGB")
    assert image.size == (1000, 700)
    rgb = np.asarray(image).reshape(-1, 3).astype(int)
    r, g, b = rgb[:, 0], rgb[:, 1], rgb[:, 2]
    assert int((rgb != 255).any(axis=1).sum()) > 5_000  # text, boxes, arrows
    assert int(((r > 150) & (g < 90) & (b < 90)).sum()) > 50  # the stuck step, in red
    assert int(((g > 100) & (r < 90) & (b < 90)).sum()) > 200  # the walked steps, in green


def test_trace_and_report_from_an_evaluation(
    metaqa_dir: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "r.jsonl"
    args = ["--hops", "2", "--limit", "3", "--planner", "corrupt", "--editor", "oracle"]
    assert main(["eval", "metaqa", "--data", str(metaqa_dir), *args, "--out", str(results)]) == 0
    first = json.loads(results.read_text().splitlines()[0])
    page = tmp_path / "one.html"
    assert main(["trace", str(results), "--id", first["id"], "--out", str(page)]) == 0
    assert first["question"] in page.read_text() and 'class="attempt"' in page.read_text()
    assert main(["trace", str(results), "--id", "nope", "--out", str(page)]) == 2
    report = tmp_path / "report"
    assert main(["report", str(results), "--out", str(report)]) == 0
    text = (report / "report.md").read_text()
    assert text.count("](traces/") == 3 and (report / "traces" / "00000.html").is_file()
    capsys.readouterr()
