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
which nodes are kept.

Both sides run under the same conditions (`_timing.side_by_side`): each side of each
comparison (walk before, walk after, step before, step after) gets its own freshly loaded
store with identical data (embedded: the file loaded again; Virtuoso: a named graph of its
own, bulk-loaded just before) and a new KG client, its relation index built untimed. Cold =
the first call on that store; warm = the median (min-max) of `--runs` further calls, the two
sides alternating. Python peak memory (tracemalloc) from one more call; queries per call.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from readi_graph.bench.synthetic import EX, hub_ntriples
from readi_graph.core.base import Term
from readi_graph.environments.kg.explore import Similarity
from readi_graph.environments.kg.knowledge_graph import KGSettings, KnowledgeGraph
from readi_graph.environments.kg.reasoning.instantiation import connect
from readi_graph.environments.kg.relations.paths import Candidate, KGPath
from readi_graph.strategies.fidelis.pathrag import EDGES_PER_BEAM, candidates

from _report import write_report
from _timing import side_by_side

HERE = Path(__file__).parent
HUB = Term.iri(EX + "hub")
TOP_M, ALPHA, KEYWORDS = 10, 0.3, "born in town"


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
    similarity.names([kg.display(t, labels.get(t)) for _, _, t in out])
    return len(out)


def first_neighbours(
    kg: KnowledgeGraph, hub: Term, relation: str, forward: bool, n: int
) -> list[Term]:
    """The hub's first `n` neighbours over `relation` in the store's order (uncapped query)."""
    pattern = f"<{hub.value}> <{relation}> ?y" if forward else f"?y <{relation}> <{hub.value}>"
    rows = kg.backend.select(f"SELECT ?y WHERE {{ {pattern} }}")
    return [r["y"] for r in rows[:n]]


def widened(kg: KnowledgeGraph) -> KnowledgeGraph:
    """`kg` read as before the caps moved into the queries: up to the row limit per relation
    (`rows_per_relation` = `row_limit`), the frontier cap applied in Python."""
    wide = replace(kg.settings, rows_per_relation=kg.settings.row_limit)
    return KnowledgeGraph(kg.backend, wide, name=f"{kg.name} (before)")


def one(
    fresh: Callable[[str], KnowledgeGraph],
    hub: Term = HUB,
    relation: str = EX + "links",
    forward: bool = True,
    keywords: str = KEYWORDS,
    right: str = EX + "born_in",
    runs: int = 5,
) -> dict[str, Any]:
    """Before/after of the walk over `relation` and of the Path-RAG step, from `hub`.
    `fresh(role)` makes the KG of one side ("walk-before", ...), nothing read from it yet."""
    path = KGPath(f"<{hub.value}>", ("links",))
    bound = [(Candidate(relation, "forward" if forward else "backward"),)]

    def walk(kg: KnowledgeGraph) -> Any:
        return connect(kg, path, bound)

    def step(kg: KnowledgeGraph) -> Any:
        return candidates(kg, [hub], keywords, top_m=TOP_M, alpha=ALPHA)

    def step_before(kg: KnowledgeGraph) -> int:
        return pathrag_before(kg, hub, keywords)

    walks = side_by_side(
        {"before": widened(fresh("walk-before")), "after": fresh("walk-after")},
        {"before": walk, "after": walk},
        runs,
    )
    after = fresh("step-after")
    steps = side_by_side(
        {"before": widened(fresh("step-before")), "after": after},
        {"before": step_before, "after": step},
        runs,
    )
    cap, per = after.settings.frontier_cap, after.settings.rows_per_relation
    first = first_neighbours(after, hub, relation, forward, per)
    return {
        "walk": walks,
        "walk_same": list(walks["after"].result.frontier) == sorted(set(first))[:cap],
        "step": steps,
        "step_born_in": any(s.relation == right for s in steps["after"].result.ranked[0]),
    }


SETTINGS = KGSettings(label_predicates=(EX + "label",))


def embedded(edges: int, runs: int) -> tuple[float, dict[str, Any]]:
    file = Path(tempfile.mkdtemp()) / "hub.nt"
    file.write_text(hub_ntriples(edges), encoding="utf-8")
    loads: list[float] = []

    def fresh(role: str) -> KnowledgeGraph:
        started = time.perf_counter()
        kg = KnowledgeGraph.from_file(file, SETTINGS)
        loads.append(time.perf_counter() - started)
        return kg

    result = one(fresh, runs=runs)
    file.unlink()
    return statistics.median(loads), result


def on_virtuoso(server: Any, edges: int, runs: int) -> tuple[float, dict[str, Any]]:
    data, loads = hub_ntriples(edges).encode(), []

    def fresh(role: str) -> KnowledgeGraph:
        graph = f"urn:bench:hub{edges}:{role}"
        started = time.perf_counter()
        server.load_ntriples(data, graph, name=f"hub{edges}-{role}.nt")  # a name per load
        loads.append(time.perf_counter() - started)
        return KnowledgeGraph.from_endpoint(server.endpoint, SETTINGS, default_graph=graph)

    result = one(fresh, runs=runs)
    return statistics.median(loads), result


def rows_of(store: str, edges: int, load: float, r: dict[str, Any]) -> str:
    wb, wa, sb, sa = (
        r["walk"]["before"],
        r["walk"]["after"],
        r["step"]["before"],
        r["step"]["after"],
    )
    return (
        f"| {store} | {edges:,} | {load:.1f} | {wb.cold:.3f} / {wb.warm_text()} |"
        f" {wa.cold:.3f} / {wa.warm_text()} | {wb.cold / wa.cold:.0f}x / {wb.median / wa.median:.0f}x |"
        f" {wb.peak_mib:.1f} / {wa.peak_mib:.1f} | {wa.queries} | {'yes' if r['walk_same'] else 'NO'} |"
        f" {sb.cold:.3f} / {sb.warm_text()} | {sa.cold:.3f} / {sa.warm_text()} |"
        f" {sb.cold / sa.cold:.0f}x / {sb.median / sa.median:.0f}x | {sb.peak_mib:.1f} / {sa.peak_mib:.1f} |"
        f" {sa.queries} | {'yes' if r['step_born_in'] else 'NO'} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--no-virtuoso", action="store_true")
    parser.add_argument("--runs", type=int, default=5, help="warm calls per side")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    from readi_graph.environments.kg.relations.encoder import DenseEncoder, dense_available

    if dense_available():
        DenseEncoder.encode(["warm up"])  # load MiniLM before anything is timed
    embedded(100, runs=1)  # the code paths once, untimed: neither side pays the first import
    lines = []
    for edges in sizes:
        load, result = embedded(edges, args.runs)
        lines.append(rows_of("pyoxigraph", edges, load, result))
        print(lines[-1], file=sys.stderr)
    note = "Virtuoso not measured (not installed, or --no-virtuoso)."
    sys.path.insert(0, str(HERE.parent / "tests"))
    from servers import start_virtuoso, virtuoso_available

    if virtuoso_available() and not args.no_virtuoso:
        server = start_virtuoso()
        try:
            for edges in sizes:
                load, result = on_virtuoso(server, edges, args.runs)
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
            f"Each side on its own freshly loaded store; cold = first call / warm = median"
            f" (min-max) of {args.runs} further calls, sides alternating. Speed-ups: cold / warm.",
            "",
            "| store | hub edges | load s (median) | walk before s, cold / warm |"
            " walk after s, cold / warm | speed-up |"
            " walk peak MiB before / after | walk queries | same kept |"
            " Path-RAG before s, cold / warm | Path-RAG after s, cold / warm | speed-up |"
            " peak MiB before / after | step queries | right edge kept |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
            *lines,
            "",
            "same kept: the capped walk keeps exactly the nodes an uncapped query returns first"
            " (store order), then the frontier cap. right edge kept: the one `born_in` edge"
            " among the hub's edges is among the Path-RAG step's candidates. Load = building the"
            " store (embedded) or bulk-loading the N-Triples into a graph (Virtuoso), median of"
            " the four loads (one per side and step).",
            "",
        ],
    )


if __name__ == "__main__":
    main()
