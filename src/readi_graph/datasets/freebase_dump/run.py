"""`readi kg freebase`: the public Freebase dump filtered to what KGQA walks, as a stream.

One pass over the dump (`filter.py` decides, `streams.py` decompresses and writes)
gives N-Triples parts that Virtuoso's bulk loader and the embedded store load; with `around`
the filtered parts are then walked for the neighbourhood of given entities (`hops.py`),
`hops` more passes over the (smaller) filtered files and one to write. `stats.json` in the
output directory records what was read, kept and dropped, the time and the peak memory.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from readi_graph.datasets.freebase_dump.filter import Counts, DumpFilter
from readi_graph.datasets.freebase_dump.hops import neighbourhood, seed_terms
from readi_graph.datasets.freebase_dump.streams import ChunkReader, PartWriter, peak_memory_mb

FULL_DUMP_LINES = 3_100_000_000  # freebase-rdf-latest.gz, the last public dump (~250 GB as text)
PROGRESS_EVERY = 10.0  # seconds between progress lines


def _say(line: str) -> None:
    print(f"readi kg freebase: {line}", file=sys.stderr, flush=True)


def filter_dump(
    dumps: Sequence[Path],
    out: Path,
    dump_filter: DumpFilter,
    *,
    part_lines: int = 100_000_000,
    level: int = 1,
    prefix: str = "part",
    quiet: bool = False,
) -> dict[str, Any]:
    """Stream the dump(s) through the filter into `out/<prefix>-NNNNN.nt.gz`."""
    started = last = time.perf_counter()
    reader = ChunkReader(dumps)
    writer = PartWriter(out, part_lines=part_lines, level=level, prefix=prefix)
    counts = Counts()
    try:
        for chunk in reader:
            kept, seen = dump_filter.chunk(chunk)
            counts.add(seen)
            writer.write(kept, seen.kept)
            now = time.perf_counter()
            if not quiet and now - last > PROGRESS_EVERY:
                last = now
                rate = counts.lines / (now - started)
                _say(f"{counts.lines:,} lines read, {counts.kept:,} kept, {rate:,.0f} lines/s")
    finally:
        parts = writer.close()
    seconds = time.perf_counter() - started
    rate = counts.lines / seconds if seconds else 0.0
    return {
        "input": [str(d) for d in dumps],
        "decompressor": reader.commands,
        "bytes_read": reader.bytes_read,
        "lines": counts.lines,
        "kept": counts.kept,
        "kept_names_and_aliases": counts.kept_text,
        "dropped_other_language": counts.other_language,
        "dropped_other_predicates": counts.lines - counts.kept - counts.other_language,
        "malformed_chunks": counts.malformed_chunks,
        "relations_kept": len(dump_filter.wanted) - len(dump_filter.texts),
        "output": _files(parts),
        "seconds": round(seconds, 2),
        "lines_per_second": round(rate),
        "full_dump_hours_at_this_rate": round(FULL_DUMP_LINES / rate / 3600, 2) if rate else None,
        "peak_memory_mb": peak_memory_mb(),
    }


def _files(parts: Sequence[tuple[Path, int]]) -> list[dict[str, Any]]:
    return [{"file": p.name, "lines": n, "bytes": p.stat().st_size} for p, n in parts]


def run(
    dumps: Sequence[Path],
    out: Path,
    dump_filter: DumpFilter,
    *,
    around: Path | None = None,
    hops: int = 2,
    hub_cap: int = 1000,
    part_lines: int = 100_000_000,
    level: int = 1,
    quiet: bool = False,
) -> dict[str, Any]:
    """The whole command: filter, then (with `around`) the neighbourhood; stats.json."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("part-*.nt*"):
        old.unlink()
    stats: dict[str, Any]
    if around is None:
        stats = {
            "filter": filter_dump(
                dumps, out, dump_filter, part_lines=part_lines, level=level, quiet=quiet
            )
        }
    else:
        seeds = seed_terms(around)
        filtered = out / "filtered"
        shutil.rmtree(filtered, ignore_errors=True)
        stats = {
            "filter": filter_dump(
                dumps,
                filtered,
                dump_filter,
                part_lines=part_lines,
                level=1,
                prefix="filtered",
                quiet=quiet,
            )
        }
        started = time.perf_counter()
        writer = PartWriter(out, part_lines=part_lines, level=level)
        try:
            files = sorted(filtered.glob("filtered-*.nt.gz"))
            around_stats = neighbourhood(
                files,
                seeds,
                hops,
                dump_filter,
                writer,
                hub_cap=hub_cap,
                progress=None if quiet else _say,
            )
        finally:
            parts = writer.close()
        stats["around"] = {
            "entities_file": str(around),
            **around_stats,
            "output": _files(parts),
            "seconds": round(time.perf_counter() - started, 2),
            "peak_memory_mb": peak_memory_mb(),
        }
    (out / "stats.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    return stats
