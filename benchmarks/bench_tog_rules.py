"""What each of ToG's departures from the published code costs or saves, side by side on the
same MetaQA dev questions, driven by the offline gold-chain oracle (no LLM).

Run:  python benchmarks/bench_tog_rules.py [--data ../shared/data/metaqa] [--n 300]
Writes benchmarks/results/tog_rules.md.

Settings, each over the first N dev questions of 2 and 3 hops: `TogContext.paper()` (the
published behaviour), the defaults, and the defaults with one departure turned back
(`skip_needless_calls`, `candidate_relations`, `keep_ties`, `entity_scores`); the paper and
default settings also with the oracle that keeps W relations per entity (`keep="width"`, the
calls a model keeping W makes). Reported per run: hit@1, F1, LLM calls per question by kind,
the calls each "no call" rule skipped (`entity_scores_skipped`: scoring calls for at most W
candidates where they are the answers' candidates; `verdicts_skipped`: sufficiency calls while
the relation step said more hops were needed), the most calls of one question, prompt tokens and queries per question.
The oracle plays the prompts it is shown (it reads the relations listed per candidate when
they are shown), so a setting changes what the oracle can see as well as the loop.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import platform
import time
from collections import Counter
from pathlib import Path
from typing import Any

from readi_graph.datasets.metaqa import load_questions
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.relations.encoder import phrases
from readi_graph.eval.metrics import kgqa_scores
from readi_graph.graph import build_graph
from readi_graph.offline.tog import TogOracle
from readi_graph.strategies.tog.context import TogContext, call_bound

from _report import write_report

HERE = Path(__file__).parent
DEFAULT = TogContext()
SETTINGS: list[tuple[str, str, TogContext]] = [
    ("paper", "gold", TogContext.paper()),
    ("default", "gold", DEFAULT),
    ("default, skip_needless_calls=False", "gold",
     dataclasses.replace(DEFAULT, skip_needless_calls=False)),
    ("default, candidate_relations=0", "gold", dataclasses.replace(DEFAULT, candidate_relations=0)),
    ("default, keep_ties=False", "gold", dataclasses.replace(DEFAULT, keep_ties=False)),
    ("default, entity_scores=share", "gold", dataclasses.replace(DEFAULT, entity_scores="share")),
    ("paper", "width", TogContext.paper()),
    ("default", "width", DEFAULT),
]  # fmt: skip
KINDS = ("relation_choices", "entity_scores", "verdicts", "answers")
SKIPPED = ("entity_scores_skipped", "verdicts_skipped")


def run(kg: KnowledgeGraph, questions: list[Any], keep: str, context: TogContext) -> dict[str, Any]:
    """One setting over the questions, on a cold twin of `kg` (its own caches): the queries
    and seconds of each run compare alike."""
    phrases.cache_clear()
    graph = build_graph(kg.cold(), TogOracle.over(questions, keep=keep), strategy="tog")
    totals: Counter[str] = Counter()
    scores: Counter[str] = Counter()
    most, over = 0, 0
    started = time.perf_counter()
    for q in questions:
        out = graph.invoke({"question": q.question, "topic_entities": [q.topic]}, context=context)
        usage = out["usage"]
        totals.update({k: v for k, v in usage.items() if isinstance(v, int | float)})
        scores.update(kgqa_scores(list(q.answers), out["answers"]))
        most = max(most, usage["llm_calls"])
        over += usage["llm_calls"] > call_bound(context.width, context.depth, 1)
    n = len(questions)
    return {
        "hit1": scores["hit1"] / n,
        "f1": scores["f1"] / n,
        "calls": totals["llm_calls"] / n,
        **{k: totals[k] / n for k in (*KINDS, *SKIPPED)},
        "max": most,
        "over": over,
        "prompt": totals["prompt_tokens"] / n,
        "queries": totals["queries"] / n,
        "seconds": (time.perf_counter() - started) / n,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/metaqa")
    parser.add_argument("--n", type=int, default=300)
    args = parser.parse_args()
    kg = KnowledgeGraph.from_metaqa(Path(args.data) / "kb.txt")
    lines = [
        "# ToG: each departure from the published code, MetaQA dev, offline oracle",
        "",
        f"{platform.machine()}, {platform.python_version()}; first {args.n} dev questions per "
        "hop count; calls per question by kind (relations / entity scores / sufficiency / "
        "answer), then the calls each rule skipped.",
        "",
        "| hops | setting | oracle keeps | hit@1 | F1 | calls/q | rel / ent / suff / ans | "
        "skipped: entity scoring / sufficiency | max calls | over bound | prompt tokens/q | "
        "queries/q |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for hops in (2, 3):
        questions = list(itertools.islice(load_questions(args.data, hops, "dev"), args.n))
        for name, keep, context in SETTINGS:
            r = run(kg, questions, keep, context)
            kinds = " / ".join(f"{r[k]:.2f}" for k in KINDS)
            skipped = " / ".join(f"{r[k]:.2f}" for k in SKIPPED)
            lines.append(
                f"| {hops} | {name} | {keep} | {r['hit1']:.3f} | {r['f1']:.3f} | "
                f"{r['calls']:.2f} | {kinds} | {skipped} | {r['max']} | {r['over']} | "
                f"{r['prompt']:,.0f} | {r['queries']:.1f} |"
            )
            print(lines[-1], flush=True)
    write_report(HERE / "results" / "tog_rules.md", lines)


if __name__ == "__main__":
    main()
