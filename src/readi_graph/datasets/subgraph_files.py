"""Files of per-question records read as a stream, each record found again by its place.

A release of per-question subgraphs is large (RoG-cwq: 11 GB over 34,689 questions, a few
thousand triples each), so it is never held in memory: one pass reads every record once (the
caller keeps what it needs, e.g. the question and its answers), and each record's place (a
byte range of one JSON line) is kept to read its graph again when its question runs.

JSON lines (`.jsonl`, `.json` with one object a line) are read in place. Anything else is
first copied, record by record, into a JSON-lines spool in a temporary directory (removed by
`close`): Parquet (the form the release is published in; read by DuckDB, one row group at a
time), a JSON array, gzip'd JSON lines.
"""

from __future__ import annotations

import gzip
import json
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from readi_graph.datasets.metaqa import DatasetError

SUFFIXES = (".jsonl", ".json", ".parquet", ".jsonl.gz", ".json.gz")
SPLIT_ALIASES = {"dev": ("dev", "validation", "val"), "validation": ("validation", "val", "dev")}


@dataclass(frozen=True)
class Place:
    """Where one record is: a byte range of one line of a JSON-lines file."""

    path: Path
    offset: int
    length: int


def data_files(path: str | Path, split: str | None = None) -> list[Path]:
    """The files of `path`: itself, or the files of a directory (as a release lays them out,
    `data/test-00000-of-00002.parquet`) whose names start with the split, in name order."""
    root = Path(path)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise DatasetError(f"{root}: no such file or directory")
    found = sorted(p for p in root.rglob("*") if p.is_file() and p.name.endswith(SUFFIXES))
    if split:
        names = SPLIT_ALIASES.get(split, (split,))
        chosen = [p for p in found if p.name.split("-")[0].split(".")[0] in names]
        if not chosen:
            raise DatasetError(f"{root}: no {'/'.join(names)} file among {[p.name for p in found]}")
        return chosen
    if not found:
        raise DatasetError(f"{root}: no {', '.join(SUFFIXES)} file")
    return found


class RecordFile:
    """The records of one or more files, in order, each with its place (see the module
    docstring). Use as a context manager, or call `close` to remove the spool."""

    def __init__(self, files: list[Path]) -> None:
        self.files = files
        self._spool: Path | None = None

    def __enter__(self) -> RecordFile:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self._spool is not None:
            shutil.rmtree(self._spool, ignore_errors=True)
            self._spool = None

    def records(self) -> Iterator[tuple[dict[str, Any], Place]]:
        for file in self.files:
            yield from _json_lines(file if _is_json_lines(file) else self._spooled(file))

    def read(self, place: Place) -> dict[str, Any]:
        """The record at `place`, read again (one line)."""
        with place.path.open("rb") as f:
            f.seek(place.offset)
            line = f.read(place.length)
        record = _parse(line, place.path, place.offset)
        if not isinstance(record, dict):
            raise DatasetError(f"{place.path}: the line at byte {place.offset} is not a record")
        return record

    def _spooled(self, file: Path) -> Path:
        if self._spool is None:
            self._spool = Path(tempfile.mkdtemp(prefix="readi-subgraphs-"))
        target = self._spool / f"{len(list(self._spool.iterdir())):03d}-{file.stem}.jsonl"
        if file.name.endswith(".parquet"):
            _parquet_to_json_lines(file, target)
        elif file.name.endswith(".gz"):
            with gzip.open(file, "rb") as source, target.open("wb") as out:
                shutil.copyfileobj(source, out, 1 << 20)
            if not _is_json_lines(target):
                return self._spooled(target)
        else:  # a JSON array
            document = _parse(file.read_bytes(), file, 0)
            if not isinstance(document, list):
                raise DatasetError(f"{file}: neither JSON lines nor a JSON array of records")
            with target.open("w", encoding="utf-8") as out:
                for record in document:
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return target


def _is_json_lines(file: Path) -> bool:
    """A `.jsonl` file, or a `.json` file whose first line is a whole JSON object."""
    if file.name.endswith(".jsonl"):
        return True
    if not file.name.endswith(".json"):
        return False
    with file.open("rb") as f:
        first = f.readline().strip()
    if not first.startswith(b"{"):
        return False
    try:
        return isinstance(json.loads(first), dict)
    except json.JSONDecodeError:
        return False


def _parse(line: bytes, path: Path, offset: int) -> Any:
    try:
        return json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: the record at byte {offset} is not JSON: {exc}") from exc


def _json_lines(path: Path) -> Iterator[tuple[dict[str, Any], Place]]:
    offset = 0
    with path.open("rb") as f:
        for line in f:
            if line.strip():
                record = _parse(line, path, offset)
                if not isinstance(record, dict):
                    raise DatasetError(f"{path}: the line at byte {offset} is not a JSON object")
                yield record, Place(path, offset, len(line))
            offset += len(line)


def _parquet_to_json_lines(source: Path, target: Path) -> None:
    """DuckDB (already a dependency) copies the rows out as JSON lines, in file order, one
    row group at a time: its memory is bounded by the file's row groups, not by the file."""
    import duckdb

    with duckdb.connect(config={"threads": 1, "preserve_insertion_order": True}) as con:
        try:
            con.execute("SET enable_progress_bar = false")
            con.execute(
                "COPY (SELECT * FROM read_parquet(?)) TO ? (FORMAT json)",
                [str(source), str(target)],
            )
        except duckdb.Error as exc:
            raise DatasetError(f"{source}: cannot read it as Parquet: {exc}") from exc
