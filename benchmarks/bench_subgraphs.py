"""Per-question subgraphs: memory stays flat however many questions run (issue 23).

Run (measure under the CPU lock):
    flock /work/notes/cpu.lock .venv/bin/python benchmarks/bench_subgraphs.py

Writes synthetic questions in RoG's release format (JSON lines, and Parquet with row groups of
100 questions, as `datasets` writes 1,000), each with a subgraph of `--triples` triples about
real Freebase relations (RoG-cwq averages ~4,300 triples a question: 11.3 GB of Arrow data over
34,689 questions) around a 2-hop gold chain through a CVT; one question in ten has its answer
left out. Then `readi bench replay --subgraphs` (the published-path replay machinery: a
scripted model writes each question's gold chain, every question builds its own KG and
relation index) runs on the first N and on all of them: the same peak memory for 10x the
questions is what "built when the question starts, dropped after" means. Writes
benchmarks/results/subgraphs.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import write_report

ROOT = Path(__file__).resolve().parents[1]
INVENTORY = ROOT.parent / "shared" / "data" / "freebase" / "fb_relations_domain_range_label.json"
READI = str(Path(sys.executable).parent / "readi")


def questions(n: int, triples: int, seed: int = 0) -> tuple[list[dict], list[dict]]:
    """RoG records and the matching paths file (readi_cwq's format)."""
    rng = random.Random(seed)
    relations = sorted(r for r in json.loads(INVENTORY.read_text()) if not r.startswith(
        ("user.", "base.", "common.", "type.", "freebase.", "kg.")))  # fmt: skip
    records, paths = [], []
    for i in range(n):
        topic, cvt, answer = f"Topic {i}", f"m.0q{i:06d}", f"Answer {i}"
        first, second = rng.sample(relations, 2)
        names = [f"Entity {i}-{k}" for k in range(triples // 4)] + [topic]
        mids = [f"m.0n{i:05d}{k:03d}" for k in range(triples // 20)]
        graph = [[topic, first, cvt], [cvt, second, answer]] if i % 10 else [[topic, first, cvt]]
        for _ in range(triples - len(graph)):
            head = rng.choice(names)
            tail = rng.choice(mids) if rng.random() < 0.2 else rng.choice(names)
            graph.append([head, rng.choice(relations[:400]), tail])
        ident = f"synthetic-{i:05d}"
        records.append({"id": ident, "question": f"What is the answer of {topic}?",
                        "answer": [answer], "q_entity": [topic], "a_entity": [answer],
                        "graph": graph, "choices": []})  # fmt: skip
        paths.append({"ID": ident, "question": records[-1]["question"], "answer": answer,
                      "relation_path_candidates": {topic: [f"{topic} -> {first} -> {second}"]}})  # fmt: skip
    return records, paths


def write(records: list[dict], paths: list[dict], out: Path) -> None:
    import duckdb

    with (out / "subgraphs.jsonl").open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    (out / "paths.json").write_text(json.dumps(paths))
    parquet = out / "subgraphs.parquet"
    with duckdb.connect() as con:
        con.execute(f"COPY (SELECT * FROM read_json('{out / 'subgraphs.jsonl'}')) TO "
                    f"'{parquet}' (FORMAT parquet, ROW_GROUP_SIZE 100)")  # fmt: skip


def replay(source: Path, paths: Path, limit: int | None) -> dict:
    """One `readi bench replay --subgraphs` run: its result, wall time and peak memory."""
    if limit is not None:
        subset = json.loads(paths.read_text())[:limit]
        paths = paths.with_name(f"paths-{limit}.json")
        paths.write_text(json.dumps(subset))
    command = [READI, "bench", "replay", "--real", str(paths), "--subgraphs", str(source),
               "--freebase", str(INVENTORY.parent)]  # fmt: skip
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as stdout:
        process = subprocess.Popen(command, stdout=stdout, stderr=subprocess.DEVNULL, text=True)
        _, status, usage = os.wait4(process.pid, 0)  # this child's own peak memory
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            raise RuntimeError(f"{' '.join(command)} failed ({process.returncode})")
        stdout.seek(0)
        result = json.loads(stdout.read().strip().splitlines()[-1])
    wall = time.perf_counter() - started
    peak = usage.ru_maxrss / 1024
    return {"wall": wall, "peak_mb": peak, **next(iter(result.values()))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--triples", type=int, default=4000)
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="bench-sub-")))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    records, paths = questions(args.questions, args.triples)
    write(records, paths, args.out)
    lines = [f"# Per-question subgraphs: {args.questions} synthetic questions, "
             f"{args.triples} triples each", "",
             "| source | questions | wall s | s/question | peak MiB (whole process) | answer in subgraph | gold among instances |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for source in ("subgraphs.jsonl", "subgraphs.parquet"):
        for limit in (args.questions // 10, args.questions):
            r = replay(args.out / source, args.out / "paths.json", limit)
            run = r["subgraph index, readi-graph binding"]
            lines.append(f"| {source} | {limit} | {r['wall']:.0f} | {r['wall'] / limit / 3:.3f} "
                         f"| {r['peak_mb']:.0f} | {run['answer_in_subgraph']} "
                         f"| {run['gold_among_instances']} |")  # fmt: skip
    lines += ["", "s/question: wall time over the three bindings the replay runs side by side; "
              "peak: the resident memory of that `readi` process at its highest."]  # fmt: skip
    write_report(ROOT / "benchmarks" / "results" / "subgraphs.md", lines)


if __name__ == "__main__":
    main()
