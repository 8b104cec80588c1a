"""Shared by the benchmark scripts: write a markdown result file and echo it."""

from __future__ import annotations

from pathlib import Path


def write_report(path: str | Path, lines: list[str]) -> None:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
