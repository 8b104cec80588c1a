"""The results file of a run: one JSON line per question, and beside it the questions that
were requested (`requested_path`), so a report of a killed run knows which never ran."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from readi_graph.core.base import ReadiError

Record = dict[str, Any]


class ResultsFileError(ReadiError):
    """The results file exists and --resume was not given, or it is not JSON lines."""


def read_results(path: Path) -> list[Record]:
    """The complete lines of a results file; a torn last line (a killed write) is cut off."""
    if not path.exists():
        return []
    raw = path.read_bytes()
    records: list[Record] = []
    keep = 0
    for line in raw.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break  # the write of this line was interrupted
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ResultsFileError(f"{path}: line {len(records) + 1} is not JSON") from exc
        keep += len(line)
    if keep != len(raw):
        with path.open("r+b") as f:
            f.truncate(keep)
    return records


def requested_path(results: str | Path) -> Path:
    """`results.jsonl` -> `results.jsonl.requested.json`: the questions a run was asked."""
    path = Path(results)
    return path.with_name(path.name + ".requested.json")


def write_requested(results: str | Path, label: str, requested: list[Record]) -> None:
    """The requested questions (`{"id", ...meta}`, e.g. hops and type), written atomically."""
    target = requested_path(results)
    scratch = target.with_name(target.name + ".tmp")
    scratch.write_text(json.dumps({"run": label, "requested": requested}), encoding="utf-8")
    scratch.replace(target)


def read_requested(results: str | Path) -> list[Record] | None:
    """What `write_requested` wrote beside `results`, or None (an older run, or none)."""
    target = requested_path(results)
    if not target.is_file():
        return None
    try:
        requested = json.loads(target.read_text(encoding="utf-8"))["requested"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ResultsFileError(f"{target}: not a list of requested questions") from exc
    return [dict(r) for r in requested]


def without_failures(path: Path, records: list[Record]) -> list[Record]:
    """Resume reruns failed questions: their lines are removed first (atomically), so every
    id ends up in the file exactly once."""
    kept = [r for r in records if not r.get("error")]
    if len(kept) != len(records):
        scratch = path.with_suffix(path.suffix + ".tmp")
        scratch.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept), encoding="utf-8"
        )
        scratch.replace(path)
    return kept
