"""Bulk-load the Freebase-shaped KG into a throw-away Virtuoso, and measure the load (issue 15).

Run:  python benchmarks/load_virtuoso.py --data /tmp/fb10m [--keep]
Starts Debian's Virtuoso on loopback (free ports, `tests/servers.py`), loads DIR/kb-*.nt.gz with
ld_dir / rdf_loader_run / checkpoint into one named graph, and reports the load time, the
triples the graph holds and the database size on disk in benchmarks/results/freebase_load.md.
Then it stops the server and deletes its database, or with --keep leaves it running for later
benchmarks: endpoint, ports, workdir and how to stop it go to DIR/virtuoso.json. Stop a kept
server with `python benchmarks/load_virtuoso.py --data DIR --stop`; `--restart` shuts it down
and starts it again on the same database, cold: its buffer pool empty and the database files
evicted from the OS page cache (as after a reboot; `bench_freebase.py` uses it for its cold
runs). On any error, or when interrupted, the server is stopped: no process is left behind.

The ini is the packaged one with more buffers for a load of millions of triples (Virtuoso's
guide: 8 KiB each, about 2/3 of the memory given to the database; `--buffers` sets it), and
any other packaged line changed with --set KEY=VALUE (e.g. --set ResultSetMaxRows=100000:
Virtuoso silently stops a SPARQL result at 10,000 rows by default).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from _report import write_report

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from servers import Virtuoso, start_virtuoso, virtuoso_available  # noqa: E402

GRAPH = "urn:readi:freebase-shaped"


def bulk_load(server: Virtuoso, data: Path, graph: str, loaders: int) -> dict[str, float]:
    """ld_dir, then `loaders` rdf_loader_run() in parallel, then checkpoint; seconds of each."""
    seconds = {}
    started = time.perf_counter()
    server.isql(f"ld_dir('{data}', 'kb-*.nt.gz', '{graph}');")
    with ThreadPoolExecutor(loaders) as pool:
        runs = [pool.submit(server.isql, "rdf_loader_run();", 4 * 3600) for _ in range(loaders)]
        for run in runs:
            run.result()
    seconds["rdf_loader_run"] = time.perf_counter() - started
    server.isql("checkpoint;", timeout=3600)
    seconds["checkpoint"] = time.perf_counter() - started - seconds["rdf_loader_run"]
    failed = server.isql(
        "SELECT ll_file, ll_error FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL;"
    )
    if ".nt.gz" in failed:
        raise RuntimeError(f"files failed to load:\n{failed}")
    return seconds


def sparql_count(server: Virtuoso, graph: str) -> int:
    query = f"SELECT (COUNT(*) AS ?n) FROM <{graph}> WHERE {{ ?s ?p ?o }}"
    r = httpx.post(
        server.endpoint,
        data={"query": query},
        headers={"Accept": "application/sparql-results+json"},
        timeout=600,
    )
    r.raise_for_status()
    return int(r.json()["results"]["bindings"][0]["n"]["value"])


def disk_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def report(
    data: Path, stats: dict, load: dict[str, float], count: int, db: int, loaders: int
) -> None:
    files = sum(f["bytes"] for f in stats["files"])
    total = sum(load.values())
    hubs = ", ".join(f"{name} {hub['degree']:,}" for name, hub in stats["hubs"].items())
    lines = [
        "# Loading the Freebase-shaped KG into Virtuoso",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}; Virtuoso 7 (Debian),"
        f" {loaders} loader thread(s). Data: `{data}` (seed {stats['seed']}).",
        "",
        "| what | value |",
        "|---|---|",
        f"| triples generated | {stats['triples']:,} in {len(stats['files'])} files |",
        f"| generation | {stats['seconds']['total']:.0f} s |",
        f"| files (gzip) | {files / 2**20:,.0f} MiB |",
        f"| entities / CVT nodes | {stats['entities']:,} / {stats['cvts']:,} |",
        f"| hub degrees | {hubs} |",
        f"| load (rdf_loader_run + checkpoint) | {total:.0f} s ({load['rdf_loader_run']:.0f} + {load['checkpoint']:.0f}),"
        f" {stats['triples'] / total:,.0f} triples/s |",
        f"| triples in the graph (`COUNT(*)`) | {count:,}"
        f" ({'all' if count == stats['triples'] else 'NOT all'} of those written) |",
        f"| database on disk | {db / 2**20:,.0f} MiB |",
    ]
    write_report(HERE / "results" / "freebase_load.md", lines)


def keep(server: Virtuoso, data: Path, graph: str) -> None:
    info = {
        "endpoint": server.endpoint,
        "graph": graph,
        "http_port": server.http_port,
        "isql_port": server.isql_port,
        "pid": server.process.pid,
        "workdir": str(server.workdir),
        "stop": f'isql-vt {server.isql_port} dba dba exec="shutdown;" && rm -rf {server.workdir}',
    }
    (data / "virtuoso.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(info, indent=2))


_STARTED: dict[int, subprocess.Popen[bytes]] = {}  # servers this process restarted, by pid


def _running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie nobody has reaped yet is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def _shutdown(info: dict[str, Any]) -> None:
    """Shut the kept server down (it checkpoints first); killed if it lingers."""
    shutdown = ["isql-vt", str(info["isql_port"]), "dba", "dba", "exec=shutdown;"]
    subprocess.run(shutdown, capture_output=True, check=False, timeout=300)
    pid, deadline = info["pid"], time.monotonic() + 120
    child = _STARTED.pop(pid, None)
    while time.monotonic() < deadline:
        if child is not None and child.poll() is not None:
            break  # reaped: no zombie left behind by a restart in this process
        if child is None and not _running(pid):
            break
        time.sleep(0.2)
    else:
        os.kill(pid, signal.SIGKILL)
        if child is not None:
            child.wait(timeout=30)


def evict(directory: Path) -> None:
    """Drop the files of `directory` from the OS page cache (their clean pages)."""
    for file in directory.iterdir():
        if file.is_file():
            fd = os.open(file, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def restart_kept(data: Path, timeout: float = 300) -> float:
    """Stop the kept server and start it again on its database, cold (see the module
    docstring). Returns the seconds until it answered a query again."""
    info = json.loads((data / "virtuoso.json").read_text(encoding="utf-8"))
    _shutdown(info)
    workdir = Path(info["workdir"])
    os.sync()
    evict(workdir / "db")
    started = time.perf_counter()
    log = (workdir / "virtuoso.out").open("ab")
    process = subprocess.Popen(
        ["virtuoso-t", "-c", "virtuoso.ini", "+foreground"],
        cwd=workdir,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # outlives this process, as --keep's server does
    )
    _STARTED[process.pid] = process
    info["pid"] = process.pid
    (data / "virtuoso.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    while time.perf_counter() - started < timeout:
        if process.poll() is not None:
            raise RuntimeError(f"Virtuoso exited on restart; see {workdir / 'virtuoso.out'}")
        try:
            if httpx.post(info["endpoint"], data={"query": "ASK {}"}, timeout=5).is_success:
                return time.perf_counter() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"Virtuoso did not answer within {timeout:.0f} s of its restart")


def stop_kept(data: Path) -> None:
    """Shut down the server --keep left (killed if it lingers), and delete its database."""
    info = json.loads((data / "virtuoso.json").read_text(encoding="utf-8"))
    _shutdown(info)
    shutil.rmtree(info["workdir"], ignore_errors=True)
    (data / "virtuoso.json").unlink()
    print(f"stopped the server on port {info['isql_port']}, deleted {info['workdir']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="freebase_shaped.py's --out")
    parser.add_argument("--keep", action="store_true", help="leave the server running")
    parser.add_argument("--stop", action="store_true", help="stop the server --keep left")
    parser.add_argument(
        "--restart", action="store_true", help="restart the kept server cold (same database)"
    )
    parser.add_argument(
        "--workdir", type=Path, help="database directory (default: a temporary one)"
    )
    parser.add_argument("--graph", default=GRAPH)
    parser.add_argument("--loaders", type=int, default=1, help="rdf_loader_run() threads")
    parser.add_argument("--buffers", type=int, default=340_000, help="NumberOfBuffers (8 KiB each)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    data = args.data.resolve()
    if args.stop:
        return stop_kept(data)
    if args.restart:
        return print(f"restarted cold, answering after {restart_kept(data):.1f} s")
    if args.workdir and args.workdir.exists() and any(args.workdir.iterdir()):
        sys.exit(f"{args.workdir} is not empty (it is deleted with the server)")
    if not virtuoso_available():
        sys.exit("virtuoso-t / isql-vt are not installed (apt-get install virtuoso-opensource)")
    stats = json.loads((data / "stats.json").read_text(encoding="utf-8"))
    settings = {"NumberOfBuffers": str(args.buffers), "MaxDirtyBuffers": str(args.buffers * 3 // 4)}
    settings |= dict(kv.split("=", 1) for kv in args.set)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so `finally` runs on kill too
    server = start_virtuoso(
        workdir=args.workdir, dirs_allowed=[data], settings=settings, detach=args.keep
    )
    kept = False
    try:
        load = bulk_load(server, data, args.graph, args.loaders)
        count = sparql_count(server, args.graph)
        report(data, stats, load, count, disk_bytes(server.workdir / "db"), args.loaders)
        if args.keep:
            keep(server, data, args.graph)
            kept = True
    finally:
        if not kept:
            server.stop()


if __name__ == "__main__":
    main()
