"""Gold paths, hub steps and a diagnosis on a Freebase-shaped KG of >= 10M triples in Virtuoso.

Run after `freebase_shaped.py` and `load_virtuoso.py --keep` (see benchmarks/README.md):
    python benchmarks/bench_freebase.py --data /tmp/fb10m [--per-hops 300]
Writes benchmarks/results/freebase.md. The endpoint and graph come from DIR/virtuoso.json.

- Per question, the gold path instantiated from its topic (an IRI) with the gold relations as
  the only candidates, as `readi eval --planner gold` does: wall time p50/p95, queries (resolve,
  hops, labels), and whether the KG's answers are the generator's (hit, coverage, exact), for
  1-, 2- and 3-hop paths, and separately for paths through a hub or a CVT.
- On each hub (stats.json): the walk over its big relation and the Path-RAG step, before/after
  the caps moved into the queries (`bench_hub.one`), and the diagnosis of a path stuck there.
- Peak resident memory of this Python process (ru_maxrss).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from readi_graph.core.base import Term
from readi_graph.environments.kg.diagnosis import diagnose
from readi_graph.environments.kg.instantiation import connect, merge
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph, count_queries
from readi_graph.environments.kg.paths import Candidate, KGPath

from _report import write_report
from bench_hub import measure, one

HERE = Path(__file__).parent


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def gold_run(kg: KnowledgeGraph, question: dict[str, Any]) -> dict[str, Any]:
    """One gold path, timed and counted per phase."""
    names = tuple(r.rsplit("/", 1)[-1] for r, _ in question["relations"])
    bindings = [(Candidate(r, d),) for r, d in question["relations"]]
    path = KGPath(f"<{question['topic']}>", names)
    started = time.perf_counter()
    with count_queries() as resolving:
        start = kg.resolve(path.topic)
    with count_queries() as walking:
        instance = connect(kg, path, bindings, start)
        merged = merge([instance])
    with count_queries() as labelling:
        kg.labels(merged.answers)
    ms = (time.perf_counter() - started) * 1000
    found = {str(t) for t in merged.answers}
    gold = set(question["answers"])
    return {
        "ms": ms,
        "queries": (resolving.n, walking.n, labelling.n),
        "hit": bool(found & gold),
        "coverage": gold <= found,
        "exact": found == gold,
        "capped": any(h.capped or h.truncated for h in instance.hops),
    }


def gold_table(kg: KnowledgeGraph, questions: list[dict[str, Any]]) -> list[str]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        run = gold_run(kg, q)
        groups[f"{q['hops']}-hop"].append(run)
        if q.get("through_hub"):
            groups[f"{q['hops']}-hop through a hub"].append(run)
        if q.get("through_cvt"):
            groups[f"{q['hops']}-hop through a CVT"].append(run)
    lines = [
        "| paths | questions | p50 ms | p95 ms | max ms | queries resolve + hops + labels (mean)"
        " | max hop queries per hop | hit | coverage | exact | capped |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in sorted(groups):
        runs, hops = groups[name], int(name[0])
        ms = [r["ms"] for r in runs]
        mean = [statistics.mean(r["queries"][i] for r in runs) for i in range(3)]
        per_hop = max(r["queries"][1] for r in runs) / hops
        share = {
            k: sum(r[k] for r in runs) / len(runs) for k in ("hit", "coverage", "exact", "capped")
        }
        lines.append(
            f"| {name} | {len(runs)} | {percentile(ms, 0.5):.1f} | {percentile(ms, 0.95):.1f} |"
            f" {max(ms):.1f} | {mean[0]:.2f} + {mean[1]:.2f} + {mean[2]:.2f} | {per_hop:.1f} |"
            f" {share['hit']:.3f} | {share['coverage']:.3f} | {share['exact']:.3f} |"
            f" {share['capped']:.3f} |"
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


def hub_rows(kg: KnowledgeGraph, walks: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| hub (degree) | relation | edges | walk before s | walk after s | same kept |"
        " Path-RAG before s | Path-RAG after s | step queries | relation among the step's"
        " candidates | diagnosis s | diagnosis queries | candidate relations |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for walk in walks:
        node, relation = Term.iri(walk["iri"]), walk["relation"]
        keywords = " ".join(relation.rsplit(".", 2)[-2:]).replace("_", " ")
        r = one(kg, node, relation, walk["forward"], keywords, relation)
        stuck = KGPath(f"<{walk['iri']}>", ("no such relation here",))
        instance = connect(kg, stuck, [(Candidate(relation + "_missing", "both"),)])
        question = f"what is {walk['name']} linked to by {keywords}"
        d = measure(lambda i=instance, q=question: diagnose(kg, q, [i]), runs=3)
        lines.append(
            f"| {walk['name']} ({walk['degree']:,}) | {relation.rsplit('/', 1)[-1]}"
            f" ({'out' if walk['forward'] else 'in'}) | {walk['edges']:,} |"
            f" {r['walk_before'][0]:.3f} | {r['walk'][0]:.3f} | {'yes' if r['walk_same'] else 'NO'} |"
            f" {r['step_before'][0]:.3f} | {r['step'][0]:.3f} | {r['step'][2]} |"
            f" {'yes' if r['step_born_in'] else 'no'} | {d[0]:.3f} | {d[2]} |"
            f" {len(d[3].candidates)} |"
        )
        print(lines[-1], file=sys.stderr)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="the generator's output directory")
    parser.add_argument("--per-hops", type=int, default=300, help="questions per path length")
    parser.add_argument("--endpoint")
    parser.add_argument("--graph")
    args = parser.parse_args()
    data = Path(args.data)
    server = json.loads((data / "virtuoso.json").read_text()) if not args.endpoint else {}
    endpoint = args.endpoint or server["endpoint"]
    graph = args.graph or server.get("graph")
    stats = json.loads((data / "stats.json").read_text())
    questions = [json.loads(line) for line in (data / "questions.jsonl").open()]
    chosen = [
        q for h in (1, 2, 3) for q in [q for q in questions if q["hops"] == h][: args.per_hops]
    ]
    kg = KnowledgeGraph.from_endpoint(endpoint, "freebase", default_graph=graph)
    started = time.perf_counter()
    relations = len(kg.relations())
    listing = time.perf_counter() - started
    gold_run(kg, chosen[0])  # one warm-up question (connection pool, Virtuoso's caches)
    gold = gold_table(kg, chosen)
    hubs = hub_rows(kg, hub_walks(stats))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines = [
        f"# Freebase-shaped KG in Virtuoso: {stats.get('triples', 0):,} triples",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}; Debian Virtuoso 7 on"
        f" loopback, graph `{graph}`; {relations:,} relations listed in {listing:.1f} s.",
        "",
        "## Gold paths (no model): time per question and queries",
        "",
        *gold,
        "",
        "## Hubs: walk and Path-RAG step before/after the caps moved into the queries;"
        " diagnosis of a path stuck on the hub",
        "",
        *hubs,
        "",
        f"Peak resident memory of the benchmark process: {peak:.0f} MiB.",
        "",
    ]
    write_report(HERE / "results" / "freebase.md", lines)


if __name__ == "__main__":
    main()
