"""A Freebase-shaped knowledge graph of any size, with gold paths, for benchmarks (issue 15).

Run:  python benchmarks/freebase_shaped.py --triples 10000000 --seed 0 --out /tmp/fb10m
Writes DIR/kb-000.nt.gz, kb-001.nt.gz, ... (about 1M triples each; Virtuoso's ld_dir reads gzip),
or with `--format dump` one DIR/freebase-rdf-shaped.gz in the public dump's line format, with
its noise (fbshape/dump.py: what `readi kg freebase` filters),
DIR/questions.jsonl (gold paths with their answers) and DIR/stats.json. The same seed gives the
same bytes. How the graph is shaped, and why, is in the docstrings of `fbshape/`: relations and
their counts from the real Freebase inventory (`schema`), populations and hubs (`plan`), random
edges (`edges`), mids, names and literals (`render`), questions (`questions`).

questions.jsonl, one question a line:
  {"id", "hops", "topic": mid IRI, "topic_name", "relations": [[relation IRI, "forward" |
   "backward"], ...], "answers": [N-Triples terms: <IRI> or "literal"^^<datatype> / @en],
   "through_hub", "through_cvt"}
The answers are the set walk of the relations from the topic over the written triples (what a
SPARQL path query returns; the topic itself can be among them, e.g. over a marriage CVT).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from fbshape.dump import DumpWriter
from fbshape.edges import Edges, all_edges
from fbshape.plan import DEFAULT_HUBS, HubSpec, Plan, entity_triples, plan_for
from fbshape.questions import Graph, Question, make_questions
from fbshape.render import (
    NAME,
    NS,
    TYPE,
    ShardWriter,
    entity_name,
    iri_lines,
    literal,
    mids,
    text_lines,
)
from fbshape.schema import load_schema

ROOT = Path(__file__).resolve().parents[1]
FREEBASE = Path(os.environ.get("READI_SHARED_DATA", ROOT.parent / "shared" / "data")) / "freebase"
CHUNK = 100_000


def node_name(plan: Plan, node: int) -> str:
    for name, hub in plan.hub_nodes.items():
        if hub == node:
            return name
    for pool in plan.pools.values():
        if pool.base is None and not pool.cvt and pool.start <= node < pool.start + pool.size:
            return entity_name(pool.type, node - pool.start)
    raise ValueError(f"node {node} has no name (a CVT?)")


def write_entities(writer: ShardWriter, plan: Plan, node_mids: np.ndarray) -> dict[str, int]:
    """A type triple for every node and each subtype range it lies in; a name for entities.
    Returns how many names are distinct and how many entities share theirs."""
    hub_names = {node: name for name, node in plan.hub_nodes.items()}
    hashes = []
    for pool in sorted(plan.pools.values(), key=lambda p: (p.start, p.type)):
        for lo in range(pool.start, pool.start + pool.size, CHUNK):
            ids = np.arange(lo, min(lo + CHUNK, pool.start + pool.size))
            writer.write(iri_lines(node_mids[ids], TYPE, pool.type), len(ids))
            if pool.cvt or pool.base is not None:
                continue
            names = [
                hub_names.get(i) or entity_name(pool.type, i - pool.start) for i in ids.tolist()
            ]
            writer.write(text_lines(node_mids[ids], NAME, [f'"{n}"@en' for n in names]), len(ids))
            writer.entity_noise(node_mids[ids], names, pool.type, lo - pool.start)
            hashes.append(np.array([hash(n) for n in names], dtype=np.int64))
    _, counts = np.unique(np.concatenate(hashes), return_counts=True)
    return {"distinct": len(counts), "entities_sharing_a_name": int(counts[counts > 1].sum())}


def degree_stats(plan: Plan, edges: list[Edges], cvt: np.ndarray) -> dict[str, int]:
    """Percentiles of the entities' degrees (triples they are in, names and types left out)."""
    ends = [e.s for e in edges] + [e.o for e in edges if e.kind == "entity"]
    degree = np.bincount(np.concatenate(ends), minlength=plan.nodes)[~cvt]
    cuts = {"p50": 50, "p90": 90, "p99": 99, "p99.9": 99.9, "p99.99": 99.99}
    out = {name: int(np.percentile(degree, q)) for name, q in cuts.items()}
    return out | {"max": int(degree.max()), "over_1000": int((degree > 1000).sum())}


def write_edges(writer: ShardWriter, edges: list[Edges], node_mids: np.ndarray) -> None:
    for e in edges:
        for lo in range(0, len(e.s), CHUNK):
            s, o = e.s[lo : lo + CHUNK], e.o[lo : lo + CHUNK]
            if e.kind == "entity":
                writer.write(iri_lines(node_mids[s], e.relation, node_mids[o]), len(s))
            else:
                objects = [literal(e.kind, c) for c in o.tolist()]
                writer.write(text_lines(node_mids[s], e.relation, objects), len(s))


def question_record(q: Question, n: int, plan: Plan, g: Graph, node_mids: np.ndarray) -> dict:
    if q.last_kind == "entity":
        answers = [f"<{NS}{m}>" for m in node_mids[q.answers].astype(str)]
    else:
        answers = [literal(q.last_kind, c) for c in q.answers.tolist()]
    return {
        "id": f"fb-{len(q.steps)}hop-{n:04d}",
        "hops": len(q.steps),
        "topic": NS + node_mids[q.topic].decode(),
        "topic_name": node_name(plan, q.topic),
        "relations": [[NS + g.rels[r], "forward" if f else "backward"] for r, f in q.steps],
        "answers": sorted(set(answers)),  # two dates of one year are one gYear
        "through_hub": q.through_hub,
        "through_cvt": q.through_cvt,
    }


def hub_stats(plan: Plan, edges: list[Edges], node_mids: np.ndarray) -> dict:
    out = {}
    for name, node in plan.hub_nodes.items():
        types = [p.type for p in plan.pools.values() if p.start <= node < p.start + p.size]
        by_relation = {}
        for e in edges:
            n_out = int(np.count_nonzero(e.s == node))
            n_in = int(np.count_nonzero(e.o == node)) if e.kind == "entity" else 0
            if n_out or n_in:
                by_relation[e.relation] = {"out": n_out, "in": n_in}
        degree = 1 + len(types) + sum(v["out"] + v["in"] for v in by_relation.values())
        big = {r: v for r, v in by_relation.items() if v["out"] + v["in"] >= 1000}
        out[name] = {
            "iri": NS + node_mids[node].decode(),
            "types": types,
            "degree": degree,
            "relations": len(by_relation),
            "big_relations": big,
        }
    return out


def plan_and_edges(schema, triples: int, hubs, seed: int) -> tuple[Plan, list[Edges]]:
    """A plan and its edges with at least `triples` triples: a relation between small, Zipf-
    skewed populations can fall a few distinct edges short of its plan, so plan that much more."""
    extra = 0
    for _ in range(5):
        plan = plan_for(schema, triples, hubs, seed, extra)
        edges = all_edges(plan, seed)
        got = entity_triples(plan) + sum(len(e.s) for e in edges)
        if got >= triples:
            return plan, edges
        extra += triples - got
    raise RuntimeError(f"could not plan {triples:,} triples")


def generate(
    out: Path,
    triples: int,
    seed: int = 0,
    questions_per_hop: int = 300,
    max_answers: int = 100,
    per_file: int = 1_000_000,
    hubs: tuple[HubSpec, ...] = DEFAULT_HUBS,
    level: int = 1,
    fmt: str = "nt",
) -> dict:
    """Write the graph, questions.jsonl and stats.json into `out`; return the stats."""
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob("kb-*.nt.gz"), *out.glob("freebase-rdf-*.gz")]:
        old.unlink()
    schema = load_schema(
        FREEBASE / "fb_relations_domain_range_label.json", FREEBASE / "relation_freq.json"
    )
    plan, edges = plan_and_edges(schema, triples, hubs, seed)
    node_mids = mids(plan.nodes)
    timings = {"plan_and_edges": time.perf_counter() - started}

    writer: ShardWriter | DumpWriter
    if fmt == "dump":
        writer = DumpWriter(out / "freebase-rdf-shaped.gz", level)
    else:
        writer = ShardWriter(out, per_file, level)
    names = write_entities(writer, plan, node_mids)
    write_edges(writer, edges, node_mids)
    writer.close()
    timings["write"] = time.perf_counter() - started - sum(timings.values())

    cvt = np.zeros(plan.nodes, dtype=bool)
    for pool in plan.pools.values():
        cvt[pool.start : pool.start + pool.size] |= pool.cvt
    reverse = {r.id: r.reverse for r in schema.relations.values() if r.reverse}
    g = Graph(edges, cvt, set(plan.hub_nodes.values()), reverse, {h.relation for h in hubs})
    questions = make_questions(g, seed, questions_per_hop, max_answers)
    with (out / "questions.jsonl").open("w", encoding="utf-8") as f:
        for n, q in enumerate(questions):
            f.write(json.dumps(question_record(q, n, plan, g, node_mids)) + "\n")
    timings["questions"] = time.perf_counter() - started - sum(timings.values())

    stats = {
        "triples": writer.knowledge if isinstance(writer, DumpWriter) else writer.lines,
        "requested": triples,
        "seed": seed,
        "files": [{"name": p.name, "bytes": p.stat().st_size} for p in writer.files],
        "bytes": sum(p.stat().st_size for p in writer.files),
        "nodes": plan.nodes,
        "entities": int(plan.nodes - cvt.sum()),
        "cvts": int(cvt.sum()),
        "types": len(plan.pools),
        "relations": len({e.relation for e in edges if len(e.s)}),
        "literal_triples": sum(len(e.s) for e in edges if e.kind != "entity"),
        "names": names,
        "degrees": degree_stats(plan, edges, cvt),
        "scale": plan.scale,
        "hubs": hub_stats(plan, edges, node_mids),
        "questions": _question_counts(questions),
        **({"dump": writer.stats()} if isinstance(writer, DumpWriter) else {}),
        "seconds": {k: round(v, 2) for k, v in timings.items()}
        | {"total": round(time.perf_counter() - started, 2)},
    }
    (out / "stats.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    return stats


def _question_counts(questions: list[Question]) -> dict:
    counts: dict[str, dict[str, int]] = {}
    for q in questions:
        c = counts.setdefault(f"{len(q.steps)}-hop", {"all": 0, "through_hub": 0, "through_cvt": 0})
        c["all"] += 1
        c["through_hub"] += q.through_hub
        c["through_cvt"] += q.through_cvt
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--triples", type=int, default=10_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--questions-per-hop", type=int, default=300)
    parser.add_argument("--max-answers", type=int, default=100)
    parser.add_argument("--per-file", type=int, default=1_000_000, help="triples per .nt.gz")
    parser.add_argument(
        "--format", choices=("nt", "dump"), default="nt",
        help="dump: one gzip file in the public Freebase dump's format, with its noise",
    )  # fmt: skip
    args = parser.parse_args()
    stats = generate(
        args.out, args.triples, args.seed, args.questions_per_hop, args.max_answers, args.per_file,
        fmt=args.format,
    )  # fmt: skip
    summary = {
        k: stats[k]
        for k in ("triples", "dump", "bytes", "entities", "cvts", "questions", "seconds")
        if k in stats
    }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
