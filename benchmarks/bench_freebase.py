"""Gold paths, hub steps and a diagnosis on a Freebase-shaped KG of >= 10M triples in Virtuoso.

Run after `freebase_shaped.py` and `load_virtuoso.py --keep` (see benchmarks/README.md):
    python benchmarks/bench_freebase.py --data /tmp/fb10m [--per-hops 300] [--cold 3] [--warm 3]
Writes benchmarks/results/freebase.md. The endpoint and graph come from DIR/virtuoso.json.

- Per question, the gold path instantiated from its topic (an IRI) with the gold relations as
  the only candidates, as `readi eval --planner gold` does: wall time p50/p95 and per phase
  (resolve, hops, labels), queries, and whether the KG's answers are the generator's (hit,
  coverage, exact), for 1-, 2- and 3-hop paths, and separately through a hub or a CVT.
  Cold: a pass right after the server was restarted cold (`load_virtuoso.restart_kept`: its
  buffer pool empty, its database files evicted from the OS page cache, as after a reboot),
  `--cold` times. Warm: `--warm` more passes after the last cold one (the server has read
  every page and compiled every query of these questions). Each pass has a new KG client (no
  label cached client-side) and takes the questions in the same order, path lengths
  interleaved (1, 2, 3, 1, ...) so that no length pays the cold pages for the others. Figures
  are the median over passes, with their range. With `--endpoint` (a server this script
  cannot restart) the passes are all run as they come and the first is marked as such.
- CPU per question, client thread + server threads (/proc schedstat): the work done, which
  on a shared machine wall time does not show (it also counts waiting for a core).
- Reads before/after the rows stopped carrying their relation and direction (`read_shapes`),
  side by side on the warm server, `--shapes` passes.
- The slowest queries of the warm passes (per phase and hop), to see where the time goes.
- On each hub (stats.json): the walk over its big relation and the Path-RAG step, before/after
  the caps moved into the queries (`bench_hub.one`, each side a new client: first call, then
  the warm median), and the diagnosis of a path stuck there.
- Peak resident memory of this Python process (ru_maxrss).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import resource
import statistics
import sys
import time
from collections import defaultdict
from itertools import chain, zip_longest
from pathlib import Path
from typing import Any

from readi_graph.core.base import Term
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph, count_queries
from readi_graph.environments.kg.reasoning.diagnosis import diagnose
from readi_graph.environments.kg.reasoning.instantiation import connect, merge
from readi_graph.environments.kg.relations.paths import Candidate, KGPath

import read_shapes
from _report import write_report
from _timing import percentile, side_by_side, spread
from bench_hub import one
from load_virtuoso import restart_kept

HERE = Path(__file__).parent
PHASES = ("resolve", "hops", "labels")


class TimedQueries:
    """Wraps a backend's `select` and `ask`: (ms, rows, query) of each query since `take()`."""

    def __init__(self, backend: Any) -> None:
        self.log: list[tuple[float, int, str]] = []
        for name in ("select", "ask"):
            setattr(backend, name, self._timed(getattr(backend, name)))

    def _timed(self, call: Any) -> Any:
        def timed(query: str) -> Any:
            started = time.perf_counter()
            out = call(query)
            rows = len(out) if isinstance(out, list) else 1
            self.log.append(((time.perf_counter() - started) * 1000, rows, query))
            return out

        return timed

    def take(self) -> list[tuple[float, int, str]]:
        out, self.log = self.log, []
        return out


RELATIONS: list[str] = []  # listed once (main), then given to every client


class ServerCPU:
    """Milliseconds of CPU the server's threads have run (/proc/PID/task/*/schedstat): work
    done, however busy the machine (wall time on a shared machine also counts the waits)."""

    def __init__(self, pid: int | None) -> None:
        self.tasks = Path(f"/proc/{pid}/task") if pid else None

    def __call__(self) -> float:
        if self.tasks is None:
            return 0.0
        ns = 0
        for task in self.tasks.glob("*/schedstat"):
            with contextlib.suppress(OSError, ValueError, IndexError):  # a thread that ended
                ns += int(task.read_text().split()[0])
        return ns / 1e6


def client(endpoint: str, graph: str | None) -> tuple[KnowledgeGraph, TimedQueries]:
    """A new KG client (nothing cached), its queries timed."""
    kg = KnowledgeGraph.from_endpoint(
        endpoint, "freebase", default_graph=graph, relations=RELATIONS or None
    )
    return kg, TimedQueries(kg.backend)


def gold_run(
    kg: KnowledgeGraph, timed: TimedQueries, question: dict[str, Any], server: ServerCPU
) -> dict[str, Any]:
    """One gold path, timed and counted per phase (and per query); CPU of both processes."""
    names = tuple(r.rsplit("/", 1)[-1] for r, _ in question["relations"])
    bindings = [(Candidate(r, d),) for r, d in question["relations"]]
    path = KGPath(f"<{question['topic']}>", names)
    ms: dict[str, float] = {}
    queries: dict[str, list[tuple[float, int, str]]] = {}
    timed.take()
    server_before, client_before = server(), time.thread_time()
    started = time.perf_counter()
    with count_queries() as resolving:
        start = kg.resolve(path.topic)
    ms["resolve"], queries["resolve"] = (time.perf_counter() - started) * 1000, timed.take()
    with count_queries() as walking:
        instance = connect(kg, path, bindings, start)
        merged = merge([instance])
    ms["hops"] = (time.perf_counter() - started) * 1000 - ms["resolve"]
    queries["hops"] = timed.take()
    with count_queries() as labelling:
        kg.labels(merged.answers)
    total = (time.perf_counter() - started) * 1000
    ms["labels"], queries["labels"] = total - ms["resolve"] - ms["hops"], timed.take()
    client_cpu = (time.thread_time() - client_before) * 1000
    server_cpu = server() - server_before
    found = {str(t) for t in merged.answers}
    gold = set(question["answers"])
    return {
        "id": question.get("id"),
        "answers": sorted(found),
        "ms": total,
        "cpu_ms": client_cpu + server_cpu,
        "client_cpu_ms": client_cpu,
        "server_cpu_ms": server_cpu,
        "phase_ms": ms,
        "query_log": queries,
        "queries": (resolving.n, walking.n, labelling.n),
        "hit": bool(found & gold),
        "coverage": gold <= found,
        "exact": found == gold,
        "capped": any(h.capped or h.truncated for h in instance.hops),
    }


def interleaved(questions: list[dict[str, Any]], per_hops: int) -> list[dict[str, Any]]:
    """Up to `per_hops` questions of each path length, taken 1, 2, 3, 1, 2, 3, ..."""
    by_hops = [[q for q in questions if q["hops"] == h][:per_hops] for h in (1, 2, 3)]
    return [q for q in chain.from_iterable(zip_longest(*by_hops)) if q is not None]


def one_pass(
    endpoint: str, graph: str | None, chosen: list[dict[str, Any]], pid: int | None = None
) -> list[dict]:
    """Every chosen question once, on a new client (nothing cached client-side)."""
    kg, timed = client(endpoint, graph)
    server = ServerCPU(pid)
    runs = [gold_run(kg, timed, q, server) for q in chosen]
    kg.backend.close()  # type: ignore[attr-defined]
    return runs


def groups_of(chosen: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Group name -> positions of its questions in `chosen`."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(chosen):
        groups[f"{q['hops']}-hop"].append(i)
        if q.get("through_hub"):
            groups[f"{q['hops']}-hop through a hub"].append(i)
        if q.get("through_cvt"):
            groups[f"{q['hops']}-hop through a CVT"].append(i)
    return dict(sorted(groups.items()))


def quantile_over(
    passes: list[list[dict]], at: list[int], q: float, phase: str = "", key: str = "ms"
) -> list[float]:
    """The `q` quantile of each pass over the questions `at`: of a phase's ms, or of `key`
    (the total ms, or "cpu_ms")."""
    return [
        percentile([p[i]["phase_ms"][phase] if phase else p[i][key] for i in at], q) for p in passes
    ]


def latency_table(chosen: list[dict[str, Any]], cold: list[list[dict]], warm: list[list[dict]]):
    lines = [
        "| paths | questions | p50 ms cold | p95 ms cold | p50 ms warm | p95 ms warm |"
        " warm p95 ms resolve / hops / labels | warm CPU ms p50 / p95 (client + server) |"
        " queries resolve + hops + labels (mean) | hit | coverage | exact | capped |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    some = (cold or warm)[0]
    for name, at in groups_of(chosen).items():
        runs = [some[i] for i in at]
        mean = [statistics.mean(r["queries"][k] for r in runs) for k in range(3)]
        share = {
            k: sum(r[k] for r in runs) / len(runs) for k in ("hit", "coverage", "exact", "capped")
        }
        phases = (
            " / ".join(f"{statistics.median(quantile_over(warm, at, 0.95, p)):.1f}" for p in PHASES)
            if warm
            else "-"
        )
        lines.append(
            f"| {name} | {len(at)} | {spread(quantile_over(cold, at, 0.5))} |"
            f" {spread(quantile_over(cold, at, 0.95))} | {spread(quantile_over(warm, at, 0.5))} |"
            f" {spread(quantile_over(warm, at, 0.95))} | {phases} |"
            f" {spread(quantile_over(warm, at, 0.5, key='cpu_ms'))} /"
            f" {spread(quantile_over(warm, at, 0.95, key='cpu_ms'))} |"
            f" {mean[0]:.2f} + {mean[1]:.2f} + {mean[2]:.2f} | {share['hit']:.3f} |"
            f" {share['coverage']:.3f} | {share['exact']:.3f} | {share['capped']:.3f} |"
        )
    return lines


def slowest_queries(
    chosen: list[dict[str, Any]], cold: list[list[dict]], warm: list[list[dict]], n: int = 12
) -> list[str]:
    """The `n` queries slowest warm (median over the warm passes), with their cold time."""

    def by_query(passes: list[list[dict]]) -> dict[tuple[int, str, int], list[float]]:
        out: dict[tuple[int, str, int], list[float]] = defaultdict(list)
        for p in passes:
            for i, run in enumerate(p):
                for phase in PHASES:
                    for k, (ms, _, _) in enumerate(run["query_log"][phase]):
                        out[i, phase, k].append(ms)
        return out

    warm_ms, cold_ms = by_query(warm), by_query(cold)
    ranked = sorted(warm_ms, key=lambda key: -statistics.median(warm_ms[key]))[:n]
    lines = [
        "| question | hops | phase | query # | rows | warm ms | cold ms | through |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, phase, k in ranked:
        q, (_, rows, _) = chosen[i], warm[-1][i]["query_log"][phase][k]
        through = ", ".join(w for w in ("hub", "cvt") if q.get(f"through_{w}")) or "-"
        lines.append(
            f"| {q.get('id')} | {q['hops']} | {phase} | {k + 1} | {rows} |"
            f" {spread(warm_ms[i, phase, k])} | {spread(cold_ms.get((i, phase, k), []))} | {through} |"
        )
    return lines


FREEBASE = "http://rdf.freebase.com/ns/"


def hub_walks(stats: dict[str, Any], least: int = 100_000) -> list[dict[str, Any]]:
    """(hub, relation, direction) with at least `least` edges, from the generator's stats."""
    walks = []
    for name, hub in (stats.get("hubs") or {}).items():
        for relation, counts in hub.get("big_relations", {}).items():
            for direction, edges in counts.items():
                if edges >= least:
                    walks.append({"name": name, "iri": hub["iri"], "relation": FREEBASE + relation,
                                  "forward": direction == "out", "edges": edges,
                                  "degree": hub.get("degree", 0)})  # fmt: skip
    return walks


def hub_rows(endpoint: str, graph: str | None, walks: list[dict[str, Any]], runs: int) -> list[str]:
    lines = [
        "| hub (degree) | relation | edges | walk before s | walk after s | same kept |"
        " Path-RAG before s | Path-RAG after s | step queries | relation among the step's"
        " candidates | diagnosis s | diagnosis queries | candidate relations |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for walk in walks:
        node, relation = Term.iri(walk["iri"]), walk["relation"]
        keywords = " ".join(relation.rsplit(".", 2)[-2:]).replace("_", " ")
        r = one(
            lambda _: client(endpoint, graph)[0],
            node,
            relation,
            walk["forward"],
            keywords,
            relation,
            runs,
        )
        stuck = KGPath(f"<{walk['iri']}>", ("no such relation here",))
        question = f"what is {walk['name']} linked to by {keywords}"
        kg = client(endpoint, graph)[0]
        instance = connect(kg, stuck, [(Candidate(relation + "_missing", "both"),)])
        d = side_by_side(
            {"diagnosis": kg},
            {"diagnosis": lambda kg, q=question, i=instance: diagnose(kg, q, [i])},
            runs,
            memory=False,
        )["diagnosis"]
        wb, wa, sb, sa = (
            r["walk"]["before"],
            r["walk"]["after"],
            r["step"]["before"],
            r["step"]["after"],
        )
        lines.append(
            f"| {walk['name']} ({walk['degree']:,}) | {relation.rsplit('/', 1)[-1]}"
            f" ({'out' if walk['forward'] else 'in'}) | {walk['edges']:,} |"
            f" {wb.cold:.3f} / {wb.warm_text()} | {wa.cold:.3f} / {wa.warm_text()} |"
            f" {'yes' if r['walk_same'] else 'NO'} | {sb.cold:.3f} / {sb.warm_text()} |"
            f" {sa.cold:.3f} / {sa.warm_text()} | {sa.queries} |"
            f" {'yes' if r['step_born_in'] else 'no'} | {d.cold:.3f} / {d.warm_text()} | {d.queries} |"
            f" {len(d.result.candidates)} |"
        )
        print(lines[-1], file=sys.stderr)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="the generator's output directory")
    parser.add_argument("--per-hops", type=int, default=300, help="questions per path length")
    parser.add_argument("--cold", type=int, default=3, help="passes, each after a cold restart")
    parser.add_argument("--warm", type=int, default=3, help="passes after the last cold one")
    parser.add_argument("--runs", type=int, default=3, help="warm calls per hub measurement")
    parser.add_argument(
        "--shapes", type=int, default=2, help="passes of the read-shape comparison (0: none)"
    )
    parser.add_argument("--endpoint", help="a server of your own (no cold restarts)")
    parser.add_argument("--graph")
    args = parser.parse_args()
    data = Path(args.data)
    server = json.loads((data / "virtuoso.json").read_text()) if not args.endpoint else {}
    endpoint = args.endpoint or server["endpoint"]
    graph = args.graph or server.get("graph")
    stats = json.loads((data / "stats.json").read_text())
    questions = [json.loads(line) for line in (data / "questions.jsonl").open()]
    chosen = interleaved(questions, args.per_hops)
    cold, restarts = [], []

    def pid() -> int | None:  # the kept server's, as a restart left it
        return json.loads((data / "virtuoso.json").read_text())["pid"] if server else None

    for k in range(args.cold if server else 0):
        restarts.append(restart_kept(data))
        cold.append(one_pass(endpoint, graph, chosen, pid()))
        print(
            f"cold pass {k + 1}: p95 {percentile([r['ms'] for r in cold[-1]], 0.95):.1f} ms",
            file=sys.stderr,
        )
    if not server:
        cold.append(one_pass(endpoint, graph, chosen, pid()))  # the first pass, as found
    warm = []
    for k in range(args.warm):
        warm.append(one_pass(endpoint, graph, chosen, pid()))
        print(
            f"warm pass {k + 1}: p95 {percentile([r['ms'] for r in warm[-1]], 0.95):.1f} ms",
            file=sys.stderr,
        )
    kg, _ = client(endpoint, graph)
    started = time.perf_counter()
    RELATIONS[:] = kg.relations()
    relations, listing = len(RELATIONS), time.perf_counter() - started

    def fresh(side: str) -> tuple[KnowledgeGraph, TimedQueries, ServerCPU]:
        kg, timed = client(endpoint, graph)
        return (read_shapes.before(kg) if side == "before" else kg), timed, ServerCPU(pid())

    shapes = read_shapes.compare(
        fresh, lambda c, q: gold_run(c[0], c[1], q, c[2]), chosen, args.shapes
    )
    hubs = hub_rows(endpoint, graph, hub_walks(stats), args.runs)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cold_note = (
        f"Cold: {len(cold)} passes, each right after a cold restart of the server (buffer pool"
        " empty, database files evicted from the OS page cache; it answered again after"
        f" {spread(restarts)} s)."
        if server
        else "First pass: as the server was found (`--endpoint`: no cold restart)."
    )
    lines = [
        f"# Freebase-shaped KG in Virtuoso: {stats.get('triples', 0):,} triples",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}; Debian Virtuoso 7 on"
        f" loopback, graph `{graph}`; {relations:,} relations listed in {listing:.1f} s.",
        "",
        "## Gold paths (no model): time per question and queries",
        "",
        f"{cold_note} Warm: {len(warm)} passes after the last cold one. Each pass: a new KG"
        " client, the questions in one order (path lengths interleaved). ms: median over the"
        " passes (min-max) of each pass's p50 / p95.",
        "",
        *latency_table(chosen, cold, warm),
        "",
        "## Reads before/after the rows stopped carrying their relation and direction",
        "",
        f"The same gold paths on the warm server, {args.shapes} passes, each question by both"
        " sides in turn (first side alternating), each side a new client per pass; before ="
        " rows `?x ?p ?y ?dir`, after = only the nodes (and the branch when several)."
        " ms: median (min-max) over the passes; CPU = client thread + server threads.",
        "",
        *(read_shapes.table(chosen, shapes) if args.shapes else ["(not run: --shapes 0)"]),
        "",
        "## The slowest queries warm (median over the warm passes), with their cold time",
        "",
        *slowest_queries(chosen, cold, warm),
        "",
        "## Hubs: walk and Path-RAG step before/after the caps moved into the queries;"
        " diagnosis of a path stuck on the hub",
        "",
        f"Each side a new KG client on the warm server: first call / median (min-max) of"
        f" {args.runs} further calls, sides alternating.",
        "",
        *hubs,
        "",
        f"Peak resident memory of the benchmark process: {peak:.0f} MiB.",
        "",
    ]
    write_report(HERE / "results" / "freebase.md", lines)


if __name__ == "__main__":
    main()
