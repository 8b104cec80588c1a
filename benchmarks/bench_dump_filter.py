"""`readi kg freebase` on a Freebase-shaped dump, side by side with what it is made of.

Run (the dump from `freebase_shaped.py --format dump`; measure under the CPU lock):
    flock /work/notes/cpu.lock .venv/bin/python benchmarks/bench_dump_filter.py \\
        --dump /tmp/fb10m-dump/freebase-rdf-shaped.gz

Each row is one run of the real command (a subprocess: its startup is not in the rate, which
the command measures from its first chunk to its last write), in the same session:

* decompression alone (`pigz -dc` / `gzip -dc` to /dev/null): the floor;
* the filter with pigz, gzip'd parts (the default when pigz is installed);
* the filter with gzip (Debian's default tools only), gzip'd parts;
* the filter with pigz, plain `.nt` parts (`--no-gzip`);
* a plain Python filter (`gzip.open`, one `split` and one set lookup a line, the usual way
  such filters are written), on the same input and keeping the same lines.

Reported: lines/s, CPU seconds of every process per million lines (user + sys of the
command and its decompressor), peak resident memory of the filter process, and the hours this
rate implies for the full dump (~3.1 billion lines). Writes benchmarks/results/dump_filter.md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import write_report

ROOT = Path(__file__).resolve().parents[1]
READI = [str(Path(sys.executable).parent / "readi")]
FULL_DUMP = 3.1e9
INVENTORY = ROOT.parent / "shared" / "data" / "freebase" / "fb_relations_domain_range_label.json"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def only_gzip_path() -> str:
    """A PATH with Debian's gzip and no pigz: how the command runs without pigz."""
    tools = Path(tempfile.mkdtemp(prefix="bench-gzip-"))
    os.symlink(shutil.which("gzip") or "/usr/bin/gzip", tools / "gzip")
    return str(tools)


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds and CPU seconds (all processes) of one command."""
    before, started = _children_cpu(), time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, _children_cpu() - before


def run_filter(dump: Path, out: Path, *extra: str, env: dict[str, str] | None = None) -> dict:
    command = [*READI, "kg", "freebase", "--dump", str(dump), "--out", str(out),
               "--relations", str(INVENTORY), "--quiet", *extra]  # fmt: skip
    wall, cpu = timed(command, env)
    stats = json.loads((out / "stats.json").read_text())["filter"]
    return {**stats, "wall": wall, "cpu": cpu}


def plain_python(dump: Path, out: Path) -> dict:
    """The usual filter: a line at a time in Python (decompression in-process)."""
    from readi_graph.datasets.freebase_dump.filter import DumpFilter

    wanted = DumpFilter.from_inventory(INVENTORY)
    tagged = b'"@en'
    started, cpu = time.perf_counter(), time.process_time()
    lines = kept = 0
    with gzip.open(dump, "rb") as source, gzip.open(out / "plain.nt.gz", "wb", 1) as sink:
        for line in source:
            lines += 1
            parts = line.split(b"\t")
            if len(parts) == 4 and parts[1] in wanted.wanted:
                obj = parts[2]
                if obj[-1:] in (b">", b'"') or obj.endswith(tagged):
                    sink.write(line)
                    kept += 1
    seconds = time.perf_counter() - started
    return {"lines": lines, "kept": kept, "seconds": seconds, "wall": seconds,
            "cpu": time.process_time() - cpu, "lines_per_second": lines / seconds,
            "peak_memory_mb": None}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dump", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "bench-dump")
    parser.add_argument("--skip-plain", action="store_true", help="no plain-Python row")
    args = parser.parse_args()
    env_gzip = {**os.environ, "PATH": only_gzip_path()}
    empty = args.out.parent / "empty-dump.gz"
    empty.write_bytes(gzip.compress(b""))
    startup = run_filter(empty, args.out)["cpu"]  # imports and the inventory's keys
    rows: list[tuple[str, dict]] = []
    if shutil.which("pigz"):
        wall, cpu = timed(["pigz", "-dc", str(args.dump)])
        rows.append(("pigz -dc > /dev/null", {"wall": wall, "cpu": cpu, "seconds": wall}))
    wall, cpu = timed(["gzip", "-dc", str(args.dump)])
    rows.append(("gzip -dc > /dev/null", {"wall": wall, "cpu": cpu, "seconds": wall}))
    if shutil.which("pigz"):
        rows.append(("readi kg freebase (pigz, .nt.gz parts)", run_filter(args.dump, args.out)))
    rows.append(("readi kg freebase (gzip, .nt.gz parts)",
                 run_filter(args.dump, args.out, env=env_gzip)))  # fmt: skip
    if shutil.which("pigz"):
        rows.append(("readi kg freebase (pigz, .nt parts)",
                     run_filter(args.dump, args.out, "--no-gzip")))  # fmt: skip
    if not args.skip_plain:
        rows.append(("plain Python, a line at a time", plain_python(args.dump, args.out)))
    lines = next(r["lines"] for _, r in rows if "lines" in r)
    table = [
        f"# Freebase dump filter: {args.dump.name}, {lines:,} lines",
        "",
        "| run | wall s | lines/s | CPU s per 1M lines | peak MiB (filter) | kept | full dump (3.1B lines) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in rows:
        rate = lines / r["seconds"]
        cpu = r["cpu"] - (startup if name.startswith("readi") else 0.0)
        kept = f"{r['kept']:,}" if "kept" in r else ""
        peak = r.get("peak_memory_mb") or ""
        table.append(f"| {name} | {r['wall']:.1f} | {rate:,.0f} | {cpu / lines * 1e6:.2f} "
                     f"| {peak} | {kept} | {FULL_DUMP / rate / 3600:.1f} h |")  # fmt: skip
    table += ["", "lines/s: the command's own clock (first chunk to last write); wall includes "
              f"its startup (imports, the inventory's keys: {startup:.1f} CPU s, left out of the CPU "
              "column)."]  # fmt: skip
    write_report(ROOT / "benchmarks" / "results" / "dump_filter.md", table)


if __name__ == "__main__":
    main()
