"""What Readi costs besides the LLM: per-question time of bind + connect + diagnose, and
whole-dev-set throughput of gold-path instantiation (MetaQA 3-hop, embedded pyoxigraph).

Run:  python benchmarks/bench_overhead.py [--data ../shared/data/metaqa] [--n 1000]
Writes benchmarks/results/overhead.md.

1. The whole graph runs with the offline `corrupt` planner and the oracle editor (no LLM: the
   offline model answers in microseconds), so the per-node wall times in `usage.ms` are the
   environment's own cost, including edit rounds. Reported: median and p95 per question of
   bind + connect + diagnose, and of the whole graph run.
2. The gold planner instantiates every 3-hop dev question's gold path (no graph, no binding):
   questions per second over the full set.

One side only (no ratio inside the run), measured warm: one untimed question first (the
store loaded, the relation index built, MiniLM loaded), then every question once, the
caches (phrase embeddings, labels) filling as they would in a long run. The gold pass runs
on the same KG after the graph runs. Compare code versions by running this script on each.
"""

from __future__ import annotations

import argparse
import itertools
import platform
import statistics
import time
from pathlib import Path

from readi_graph.datasets.metaqa import load_questions
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.relations.encoder import dense_available
from readi_graph.graph import build_graph
from readi_graph.offline import gold
from readi_graph.offline.readi import OfflineModel

from _report import write_report

HERE = Path(__file__).parent


def _quantiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data" / "metaqa"))
    parser.add_argument("--n", type=int, default=1000, help="questions through the graph")
    parser.add_argument("--out", default=str(HERE / "results" / "overhead.md"))
    args = parser.parse_args()

    started = time.perf_counter()
    kg = KnowledgeGraph.from_metaqa(Path(args.data) / "kb.txt")
    load_s = time.perf_counter() - started

    questions = list(itertools.islice(load_questions(args.data, 3, "dev"), args.n))
    model = OfflineModel.over(questions, planner="corrupt", editor="oracle")
    graph = build_graph(kg, model)
    graph.invoke({"question": questions[0].question, "topic_entities": [questions[0].topic]})
    environment, whole, edits = [], [], 0
    for q in questions:
        t0 = time.perf_counter()
        result = graph.invoke({"question": q.question, "topic_entities": [q.topic]})
        whole.append((time.perf_counter() - t0) * 1000)
        ms = result["usage"]["ms"]
        environment.append(sum(ms.get(node, 0.0) for node in ("bind", "connect", "diagnose")))
        edits += result["edits"]
    env_median, env_p95 = _quantiles(environment)
    run_median, run_p95 = _quantiles(whole)

    every = list(load_questions(args.data, 3, "dev"))
    t0 = time.perf_counter()
    summary = gold.evaluate(kg, every, label="gold 3-hop dev", progress=None)
    gold_s = time.perf_counter() - t0

    lines = [
        "# Non-LLM overhead per question (MetaQA 3-hop dev, embedded pyoxigraph)",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, dense binding "
        f"{'on (MiniLM)' if dense_available() else 'off'}. KB load {load_s:.1f} s.",
        "",
        f"Graph runs: {len(questions)} questions, corrupt planner + oracle editor "
        f"({edits / len(questions):.2f} edits per question), sequential, warm: after one"
        " untimed question (store loaded, relation index built, MiniLM loaded); caches fill as"
        " the questions go.",
        "",
        "| per question | median ms | p95 ms |",
        "|---|---|---|",
        f"| bind + connect + diagnose (all rounds) | {env_median:.1f} | {env_p95:.1f} |",
        f"| whole graph run (incl. LangGraph, prompts, parsing) | {run_median:.1f} |"
        f" {run_p95:.1f} |",
        "",
        f"Gold paths, whole 3-hop dev set: {summary['n']} questions in {gold_s:.1f} s = "
        f"{summary['n'] / gold_s:.0f} questions/s (reached {summary['reached']}, "
        f"{summary['queries_per_question']} queries/question).",
        "",
    ]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
