"""Every Python block of README.md and docs/ runs as written, and prints what its page says.

The blocks run in this process, each from a fresh namespace in a scratch directory, with no
model configured (scripts/check_examples.py runs them in fresh interpreters instead, for a
check from outside the suite). A block not meant to run says why, and such blocks are few.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from check_examples import MODEL_VARIABLES, fenced_blocks, pages, python_blocks

BLOCKS = [block for page in pages() for block in python_blocks(page)]
MOST_NOT_RUN = 5  # blocks that show an endpoint or a key cannot run here; keep them rare


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.not_run is None], ids=lambda b: b.name)
def test_block_runs_as_written(
    block: object, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from check_examples import Block

    assert isinstance(block, Block)
    for name in MODEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block.code, block.name, "exec"), {"__name__": "__main__"})
    if block.output is not None:
        assert printed.getvalue() == block.output


def test_the_pages_have_python_blocks_and_few_are_not_run() -> None:
    not_run = [b.name for b in BLOCKS if b.not_run is not None]
    assert len(BLOCKS) - len(not_run) >= 10, "the docs lost their examples"
    assert len(not_run) <= MOST_NOT_RUN, not_run
    assert all(b.not_run.strip() for b in BLOCKS if b.not_run is not None)


def test_the_readme_starts_with_a_block_that_runs() -> None:
    readme = [
        b for b in BLOCKS if b.path.name == "README.md" and b.path.parent == pages()[0].parent
    ]
    assert readme and readme[0].not_run is None and readme[0].output is not None


def test_python_is_only_written_in_python_blocks() -> None:
    """Code in a block without a language would escape the check: name every block's language."""
    unnamed = [b.name for page in pages() for b in fenced_blocks(page) if not b.language]
    assert unnamed == []


def test_the_extractor_reads_markers_and_outputs(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        'Intro\n\n```python\nprint(1)\n```\n\n```text title="Output"\n1\n```\n\n'
        "<!-- not run: needs an endpoint -->\n```python\nconnect()\n```\n\n"
        "- item\n\n    ```python\n    x = 2\n    ```\n",
        encoding="utf-8",
    )
    first, second, third = python_blocks(page)
    assert (first.code, first.output, first.not_run) == ("print(1)\n", "1\n", None)
    assert (second.not_run, second.output) == ("needs an endpoint", None)
    assert third.code == "x = 2\n" and third.line == 18
