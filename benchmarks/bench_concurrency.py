"""Many questions at once: questions/s at N = 1, 4, 16, 64 with a model that takes 300 ms.

Run:  python benchmarks/bench_concurrency.py [--latency 0.3] [--endpoint-latency 0.05]
      [--endpoint URL --graph G]
(~5 min). Writes benchmarks/results/concurrency.md (concurrency_remote.md with an endpoint
latency). The KG is MetaQA in a throw-away Debian Virtuoso on loopback (or the endpoint given);
`--endpoint-latency` adds that many seconds to every query's round trip, as a distant endpoint
would. The model is the offline corrupt planner with the oracle editor (eval/instance_ends.py), each
reply delayed by `--latency` seconds (eval/latency.py), standing in for an API.

The same questions run, side by side in one run, three ways: the eval runner with N worker
threads (`readi eval --concurrency N`); N asyncio tasks (`--async`, `ainvoke`) with the KG
steps in asyncio's worker threads (how every environment ran before `core/run/bridge.py`, and how
local stores still run); and N asyncio tasks with the endpoint's queries awaited on the event
loop (the default for an endpoint). Reported: questions/s, the speed-up over N = 1, the peak
number of OS threads of the process (from /proc/self/task, sampled every 5 ms; the count
before the run in brackets), and whether every question's answers match the N = 1 run.

Every (mode, N) runs under the same conditions: the same `--questions` questions at every N;
one untimed warm-up pass over them first (a KG client of its own, thread pool), so the
server has read their data and compiled their queries before anything is timed; then each
(mode, N) gets a fresh KG client (empty label cache, relations listed and indexed again
inside the run). N is the outer loop and the modes inner, so the modes compared at one N run
back to back; with `--repeats R` each (mode, N) is measured R times (interleaved) and the
median is reported with its range.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import platform
import statistics
import sys
import threading
import time
from itertools import product
from pathlib import Path
from typing import Any

import httpx

from readi_graph.cli.evaluate_metaqa import answer_among
from readi_graph.core.context import ReadiContext
from readi_graph.datasets.metaqa import load_questions
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.store.local import metaqa_ntriples
from readi_graph.eval import runner
from readi_graph.eval.latency import Delayed
from readi_graph.graph import build_graph
from readi_graph.offline.readi import OfflineModel

from _report import write_report

HERE = Path(__file__).parent
DATA = HERE.parent.parent / "shared" / "data" / "metaqa"
LEVELS = (1, 4, 16, 64)
LIMITS = httpx.Limits(max_connections=64, max_keepalive_connections=64)


def os_threads() -> int:
    return len(os.listdir("/proc/self/task"))


class PeakThreads:
    """The most OS threads the process had while the block ran."""

    def __enter__(self) -> PeakThreads:
        self.before = self.peak = os_threads()
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, os_threads() - 1)  # not counting the sampler

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._sampler.join()


class SlowTransport(httpx.HTTPTransport):
    """A real HTTP transport whose round trips take `delay` seconds longer (a distant endpoint)."""

    def __init__(self, delay: float) -> None:
        super().__init__(limits=LIMITS)
        self.delay = delay

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        time.sleep(self.delay)
        return super().handle_request(request)


class AsyncSlowTransport(httpx.AsyncHTTPTransport):
    def __init__(self, delay: float) -> None:
        super().__init__(limits=LIMITS)
        self.delay = delay

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(self.delay)
        return await super().handle_async_request(request)


def endpoint_kg(url: str, graph: str | None, delay: float, native: bool) -> KnowledgeGraph:
    kg = KnowledgeGraph.from_endpoint(
        url,
        "metaqa",
        default_graph=graph,
        max_connections=LIMITS.max_connections,
        transport=SlowTransport(delay),
        async_transport=AsyncSlowTransport(delay),
    )
    if not native:  # the KG steps then run in asyncio's worker threads, as before the bridge
        kg.backend.native_async = False  # type: ignore[attr-defined]
    return kg


def run(graph: Any, items: list[runner.Item], n: int, asynchronous: bool) -> dict[str, Any]:
    records: dict[str, list[str]] = {}

    def keep(item: runner.Item, record: runner.Record) -> None:
        records[item.id] = sorted(record.get("prediction") or [])

    with PeakThreads() as threads:
        started = time.perf_counter()
        summary = runner.run(
            items, lambda _: graph, answer_among, context=ReadiContext(), label=f"N={n}",
            concurrency=n, asynchronous=asynchronous, progress=io.StringIO(), annotate=keep,
        )  # fmt: skip
        seconds = time.perf_counter() - started
    return {
        "qps": len(items) / seconds,
        "threads": threads.peak,
        "before": threads.before,
        "answers": records,
        "accuracy": summary.get("accuracy"),
        "errors": summary.get("errors", 0),
    }


def warm_up(endpoint: str, graph: str | None, model: Any, items: list[runner.Item]) -> float:
    """One untimed pass over `items` on a KG client of its own: the server reads their data
    and compiles their queries before any (mode, N) is timed. Returns its seconds."""
    started = time.perf_counter()
    run(build_graph(endpoint_kg(endpoint, graph, 0.0, True), model), items, 16, False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--hops", type=int, default=2)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--endpoint-latency", type=float, default=0.0)
    parser.add_argument("--questions", type=int, default=128, help="the same ones at every N")
    parser.add_argument("--repeats", type=int, default=1, help="measurements per (mode, N)")
    parser.add_argument("--endpoint")
    parser.add_argument("--graph")
    args = parser.parse_args()
    questions = list(load_questions(args.data, args.hops, "dev"))[: args.questions]
    items = [
        runner.Item(q.id, {"question": q.question, "topic_entities": [q.topic]}, list(q.answers))
        for q in questions
    ]
    model = Delayed(inner=OfflineModel.over(questions), seconds=args.latency)
    server = None
    if not args.endpoint:
        sys.path.insert(0, str(HERE.parent / "tests"))
        from servers import start_virtuoso

        server = start_virtuoso()
        args.graph = "urn:bench:metaqa"
        server.load_ntriples(metaqa_ntriples(Path(args.data) / "kb.txt"), args.graph)
        args.endpoint = server.endpoint
    delay = args.endpoint_latency
    modes = {"threads": False, "async, KG in threads": False, "async, KG awaited": True}
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {k: [] for k in product(modes, LEVELS)}
    try:
        warm = warm_up(args.endpoint, args.graph, Delayed(inner=model.inner, seconds=0), items)
        print(f"warm-up pass: {warm:.1f} s", file=sys.stderr)
        for _, n, mode in product(range(args.repeats), LEVELS, modes):
            # A fresh KG client per (mode, N): its label cache starts as cold as the others'.
            graph = build_graph(endpoint_kg(args.endpoint, args.graph, delay, modes[mode]), model)
            r = run(graph, items, n, mode.startswith("async"))
            runs[mode, n].append(r)
            print(f"{mode} N={n}: {r['qps']:.2f} q/s, {r['threads']} threads", file=sys.stderr)
    finally:
        if server is not None:
            server.stop()
    write_report(HERE / "results" / report_name(delay), report(args, runs, warm))


def report_name(delay: float) -> str:
    return "concurrency_remote.md" if delay else "concurrency.md"


def report(
    args: argparse.Namespace, runs: dict[tuple[str, int], list[dict[str, Any]]], warm: float
) -> list[str]:
    delay = args.endpoint_latency
    lines = [
        "# Many questions at once (MetaQA 2-hop, Virtuoso over HTTP"
        + (f" + {delay * 1000:.0f} ms per query" if delay else "")
        + f", model replies after {args.latency * 1000:.0f} ms)",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}. Planner: offline corrupt path + oracle editor."
        f" The same {args.questions} questions at every N. Conditions, equal for every (mode, N):"
        f" one untimed warm-up pass over these questions first ({warm:.0f} s, its own KG"
        " client), then a fresh KG client per (mode, N); N outer, modes inner"
        f"; {args.repeats} measurement(s) per (mode, N)"
        + (", median (min-max)." if args.repeats > 1 else "."),
        "",
        "| mode | N | questions | questions/s | speed-up vs N=1 | peak OS threads (before) |"
        " same answers as threads, N=1 | accuracy | errors |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    reference = runs["threads", 1][0]["answers"]
    for (mode, n), measured in runs.items():
        qps = [r["qps"] for r in measured]
        base = statistics.median(r["qps"] for r in runs[mode, 1])
        spread = f" ({min(qps):.2f}-{max(qps):.2f})" if len(qps) > 1 else ""
        same = all(reference == r["answers"] for r in measured)
        last = measured[-1]
        lines.append(
            f"| {mode} | {n} | {len(last['answers'])} | {statistics.median(qps):.2f}{spread} |"
            f" {statistics.median(qps) / base:.1f}x | {max(r['threads'] for r in measured)}"
            f" ({last['before']}) | {'yes' if same else 'NO'} | {last['accuracy']} |"
            f" {sum(r['errors'] for r in measured)} |"
        )
    return [*lines, ""]


if __name__ == "__main__":
    main()
