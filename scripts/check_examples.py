"""Run the Python blocks of markdown pages as written, each in a fresh interpreter.

    .venv/bin/python scripts/check_examples.py               # README.md
    .venv/bin/python scripts/check_examples.py docs/guides/tables.md README.md

Rules the test suite applies too (tests/test_examples.py runs every page's blocks in-process):

- every ```python block runs on its own, from a fresh namespace: no block depends on another;
- a ```text title="Output" block right after it must equal what the block printed;
- a block not meant to run (it needs a server, a key or data you may not have) has the line
  `<!-- not run: why -->` just above its fence, and says why.

Exit status: 0 when every block ran (and printed its output), 1 otherwise. Model variables
(`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `READI_MODEL`) are removed from each block's
environment: a block must not need a configured model.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^(?P<indent> *)(?P<ticks>`{3,})(?P<info>[^`]*)$")
NOT_RUN = re.compile(r"^\s*<!-- not run: (?P<why>.+?) -->\s*$")
MODEL_VARIABLES = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "READI_MODEL")


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: where it is, its language and info string, its text."""

    path: Path
    line: int  # of the opening fence, 1-based
    info: str
    code: str
    not_run: str | None = None  # the reason given, when marked not to run
    output: str | None = None  # the Output block that follows it, if any

    @property
    def language(self) -> str:
        return self.info.split()[0] if self.info.split() else ""

    @property
    def name(self) -> str:
        shown = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{shown}:{self.line}"


def fenced_blocks(path: Path) -> list[Block]:
    """Every fenced block of a markdown file, in order (indented fences included)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, ticks = len(opening["indent"]), opening["ticks"]
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != ticks:
            body.append(lines[j][indent:] if not lines[j][:indent].strip() else lines[j].lstrip())
            j += 1
        above = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        marked = NOT_RUN.match(above)
        blocks.append(Block(path, i + 1, opening["info"].strip(), "\n".join(body) + "\n",
                            marked["why"] if marked else None))  # fmt: skip
        i = j + 1
    return blocks


def python_blocks(path: Path) -> list[Block]:
    """The page's ```python blocks, each with the Output block that follows it."""
    blocks = fenced_blocks(path)
    found = []
    for n, block in enumerate(blocks):
        if block.language not in ("python", "py"):
            continue
        after = blocks[n + 1] if n + 1 < len(blocks) else None
        output = None
        if after is not None and re.search(r'title="Output"', after.info):
            between = path.read_text(encoding="utf-8").splitlines()[
                block.line + block.code.count("\n") + 1 : after.line - 1
            ]
            if not any(line.strip() for line in between):
                output = after.code
        found.append(Block(block.path, block.line, block.info, block.code, block.not_run, output))
    return found


def pages() -> list[Path]:
    """Every page whose blocks the test suite checks: README.md and docs/**/*.md."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def clean_environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in MODEL_VARIABLES}
    src = str(ROOT / "src")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    return env


def run_fresh(block: Block, timeout: float = 600) -> tuple[bool, str]:
    """Run one block in a new interpreter (in a scratch directory); (ok, what went wrong)."""
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [sys.executable, "-c", block.code], cwd=scratch, env=clean_environment(),
            capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip
    if done.returncode != 0:
        return False, done.stderr[-3000:]
    if block.output is not None and done.stdout != block.output:
        return False, f"printed:\n{done.stdout}\nthe page says:\n{block.output}"
    return True, ""


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or [ROOT / "README.md"]
    failed = 0
    for path in paths:
        for block in python_blocks(path):
            if block.not_run is not None:
                print(f"skip  {block.name}  (not run: {block.not_run})")
                continue
            started = time.monotonic()
            ok, why = run_fresh(block)
            print(f"{'ok  ' if ok else 'FAIL'}  {block.name}  {time.monotonic() - started:.1f}s")
            if not ok:
                failed += 1
                print("      " + why.replace("\n", "\n      "))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
