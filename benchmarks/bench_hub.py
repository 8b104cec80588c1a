"""A hub node with 1k / 10k / 100k / 1M edges: caps inside the queries vs after the rows arrive.

Run:  python benchmarks/bench_hub.py [--sizes 1000,10000,100000,1000000] [--no-virtuoso]
(~5 min with Virtuoso). Writes benchmarks/results/hub.md. For each hub size and store
(embedded pyoxigraph; Debian Virtuoso over HTTP when installed), side by side in one run:

- Readi's walk from the hub over its big relation. *Before*: the hop read up to the row limit
  (50,000 rows) and applied the frontier cap in Python (`rows_per_relation` = `row_limit`
  gives that read). *After*: each relation and direction reads at most `rows_per_relation`
  rows, capped inside the query.
- FiDeLiS's Path-RAG step from the hub. *Before*: every edge read (up to the row limit), ranked
  by relation in Python, 200 labelled and scored. *After*: relations counted first, edges read
  only for the best relations (`pathrag.plan_reads`), then the full step (look-ahead included).

"same kept" checks that the capped read keeps the nodes an uncapped query returns first (same
query without the LIMIT, same store order), then the same cut: the cap changes the cost, not
which nodes are kept. Wall time (median of 3 for the capped runs, without tracemalloc),
Python peak memory (tracemalloc, one more call) and queries per call.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from readi_graph.core.base import Term
from readi_graph.environments.kg.explore import Similarity
from readi_graph.environments.kg.instantiation import connect
from readi_graph.environments.kg.knowledge_graph import KGSettings, KnowledgeGraph, count_queries
from readi_graph.environments.kg.paths import Candidate, KGPath
from readi_graph.eval.synthetic import EX, hub_ntriples
from readi_graph.strategies.fidelis.pathrag import EDGES_PER_BEAM, candidates

from _report import write_report

HERE = Path(__file__).parent
HUB = Term.iri(EX + "hub")
TOP_M, ALPHA, KEYWORDS = 10, 0.3, "born in town"


def measure(work: Callable[[], Any], runs: int = 1) -> tuple[float, float, int, Any]:
    """(median seconds of `runs` calls, peak MiB, queries, result). Time is taken without
    tracemalloc (it slows Python code down 2x); one more call measures the peak memory."""
    times, queries, result = [], 0, None
    for _ in range(runs):
        started = time.perf_counter()
        with count_queries() as counted:
            result = work()
        times.append(time.perf_counter() - started)
        queries = counted.n
    tracemalloc.start()
    work()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return statistics.median(times), peak, queries, result


def pathrag_before(kg: KnowledgeGraph, hub: Term, keywords: str) -> int:
    """The Path-RAG read as it was: all edges of the hub (up to the row limit), ranked by
    relation in Python, `EDGES_PER_BEAM * TOP_M` labelled and scored. Returns edges kept."""
    similarity = Similarity(kg, keywords)
    around = kg.relations_by_node([hub])
    forward = sorted({r for pairs in around.values() for r, f in pairs if f})
    backward = sorted({r for pairs in around.values() for r, f in pairs if not f})
    by_source: dict[Term, list[tuple[str, bool, Term]]] = defaultdict(list)
    for e in kg.expand([hub], forward, backward).edges:
        by_source[e.source].append((e.relation, e.forward, e.target))
    out = by_source[hub]
    out.sort(key=lambda x: (-similarity.relation(x[0]), x[0], x[1], x[2]))
    out = out[: EDGES_PER_BEAM * TOP_M]
    labels = kg.labels(sorted({t for _, _, t in out}))
    similarity.entities([kg.display(t, labels.get(t)) for _, _, t in out])
    return len(out)


def first_neighbours(
    kg: KnowledgeGraph, hub: Term, relation: str, forward: bool, n: int
) -> list[Term]:
    """The hub's first `n` neighbours over `relation` in the store's order (uncapped query)."""
    pattern = f"<{hub.value}> <{relation}> ?y" if forward else f"?y <{relation}> <{hub.value}>"
    rows = kg.backend.select(f"SELECT ?y WHERE {{ {pattern} }}")
    return [r["y"] for r in rows[:n]]


def one(
    kg: KnowledgeGraph,
    hub: Term = HUB,
    relation: str = EX + "links",
    forward: bool = True,
    keywords: str = KEYWORDS,
    right: str = EX + "born_in",
) -> dict[str, Any]:
    """Before/after of the walk over `relation` and of the Path-RAG step, from `hub`."""
    kg.relation_index  # noqa: B018 - built once, outside the measured calls
    before = KnowledgeGraph(
        kg.backend, replace(kg.settings, rows_per_relation=kg.settings.row_limit), name="before"
    )
    before._index = kg.relation_index  # same index: only the reads differ
    path = KGPath(f"<{hub.value}>", ("links",))
    bound = [(Candidate(relation, "forward" if forward else "backward"),)]
    walk_before = measure(lambda: connect(before, path, bound))
    walk = measure(lambda: connect(kg, path, bound), runs=3)
    step_before = measure(lambda: pathrag_before(before, hub, keywords))
    step = measure(lambda: candidates(kg, [hub], keywords, top_m=TOP_M, alpha=ALPHA), runs=3)
    cap, per = kg.settings.frontier_cap, kg.settings.rows_per_relation
    first = first_neighbours(kg, hub, relation, forward, per)
    return {
        "walk_before": walk_before,
        "walk": walk,
        "walk_same": list(walk[3].frontier) == sorted(set(first))[:cap],
        "step_before": step_before,
        "step": step,
        "step_born_in": any(s.relation == right for s in step[3].ranked[0]),
    }


def embedded(edges: int) -> tuple[float, dict[str, Any]]:
    file = Path(tempfile.mkdtemp()) / "hub.nt"
    file.write_text(hub_ntriples(edges), encoding="utf-8")
    started = time.perf_counter()
    kg = KnowledgeGraph.from_file(file, KGSettings(label_predicates=(EX + "label",)))
    load = time.perf_counter() - started
    file.unlink()
    return load, one(kg)


def on_virtuoso(server: Any, edges: int) -> tuple[float, dict[str, Any]]:
    graph = f"urn:bench:hub{edges}"
    started = time.perf_counter()
    server.load_ntriples(hub_ntriples(edges).encode(), graph, name=f"hub{edges}.nt")
    load = time.perf_counter() - started
    kg = KnowledgeGraph.from_endpoint(
        server.endpoint, KGSettings(label_predicates=(EX + "label",)), default_graph=graph
    )
    return load, one(kg)


def rows_of(store: str, edges: int, load: float, r: dict[str, Any]) -> str:
    wb, wa, sb, sa = r["walk_before"], r["walk"], r["step_before"], r["step"]
    return (
        f"| {store} | {edges:,} | {load:.1f} | {wb[0]:.3f} | {wa[0]:.3f} | {wb[0] / wa[0]:.0f}x |"
        f" {wb[1]:.1f} / {wa[1]:.1f} | {wa[2]} | {'yes' if r['walk_same'] else 'NO'} |"
        f" {sb[0]:.3f} | {sa[0]:.3f} | {sb[0] / sa[0]:.0f}x | {sb[1]:.1f} / {sa[1]:.1f} |"
        f" {sa[2]} | {'yes' if r['step_born_in'] else 'NO'} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--no-virtuoso", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    from readi_graph.environments.kg.encoder import DenseEncoder, dense_available

    if dense_available():
        DenseEncoder.encode(["warm up"])  # load MiniLM before anything is timed
    lines = []
    for edges in sizes:
        load, result = embedded(edges)
        lines.append(rows_of("pyoxigraph", edges, load, result))
        print(lines[-1], file=sys.stderr)
    note = "Virtuoso not measured (not installed, or --no-virtuoso)."
    sys.path.insert(0, str(HERE.parent / "tests"))
    from servers import start_virtuoso, virtuoso_available

    if virtuoso_available() and not args.no_virtuoso:
        server = start_virtuoso()
        try:
            for edges in sizes:
                load, result = on_virtuoso(server, edges)
                lines.append(rows_of("Virtuoso (HTTP)", edges, load, result))
                print(lines[-1], file=sys.stderr)
            note = "Virtuoso: Debian virtuoso-opensource 7, throw-away database on loopback."
        finally:
            server.stop()
    settings = KGSettings()
    write_report(
        HERE / "results" / "hub.md",
        [
            "# A hub node: caps inside the queries (after) vs after the rows arrive (before)",
            "",
            f"Machine: {platform.machine()}, Python {platform.python_version()}. {note}",
            f"Frontier cap {settings.frontier_cap} nodes, `rows_per_relation` "
            f"{settings.rows_per_relation:,}, row limit {settings.row_limit:,} (9,999 on "
            f"endpoints); Path-RAG scores {EDGES_PER_BEAM * TOP_M} edges of a beam end.",
            "",
            "| store | hub edges | load s | walk before s | walk after s | speed-up |"
            " walk peak MiB before / after | walk queries | same kept |"
            " Path-RAG before s | Path-RAG after s | speed-up | peak MiB before / after |"
            " step queries | right edge kept |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
            *lines,
            "",
            "same kept: the capped walk keeps exactly the nodes an uncapped query returns first"
            " (store order), then the frontier cap. right edge kept: the one `born_in` edge"
            " among the hub's edges is among the Path-RAG step's candidates. Load = building the"
            " store (embedded) or bulk-loading the N-Triples (Virtuoso).",
            "",
        ],
    )


if __name__ == "__main__":
    main()
