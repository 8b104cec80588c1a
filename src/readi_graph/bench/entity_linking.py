"""Entity linking on MetaQA: how often the topic entity found in a question is the gold one.

MetaQA marks each question's topic entity in [brackets]; the brackets are removed and the
bare question is linked on the MetaQA KB (`KnowledgeGraph.link_topic_entities`), as a user's
question without `--entity` would be. Over every question asked (no question is skipped):

- `exact`: exactly one entity was linked and it is the gold one (same KG name);
- `gold_linked`: the gold entity is among those linked (others may come with it);
- `extra`: more than one entity was linked;
- `ambiguous`: a linked mention had another reading (another spelling, an overlapping
  name, homonyms), which the output's notes report;
- `none`: no entity was found.

Run: `readi bench linking --data ../shared/data/metaqa` (add `--as-endpoint` for the bounded
look-ups an endpoint gets instead of the embedded store's label scan).
"""

from __future__ import annotations

import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from readi_graph.core.run.counting import count_queries
from readi_graph.datasets.metaqa import MetaQAQuestion, load_questions
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.store.local import load_metaqa

_BRACKETS = re.compile(r"\[([^\]]+)\]")
MISSES_SHOWN = 12


def bare(question: str) -> str:
    """The question as a user would write it: `[Robert Zemeckis]` -> `Robert Zemeckis`."""
    return _BRACKETS.sub(r"\1", question)


def link_questions(kg: KnowledgeGraph, questions: Iterable[MetaQAQuestion]) -> dict[str, Any]:
    """The rates above for `questions`, with the time and queries per question and a few
    misses."""
    counts: Counter[str] = Counter()
    misses: list[dict[str, Any]] = []
    started = time.perf_counter()
    with count_queries() as queries:
        for q in questions:
            found = kg.link_topic_entities(bare(q.question))
            entities = found.entities
            counts["n"] += 1
            counts["exact"] += entities == [q.topic]
            counts["gold_linked"] += q.topic in entities
            counts["extra"] += len(entities) > 1
            counts["ambiguous"] += found.ambiguous
            counts["none"] += not entities
            if entities != [q.topic] and len(misses) < MISSES_SHOWN:
                misses.append({"question": bare(q.question), "gold": q.topic, "linked": entities})
    n = counts["n"] or 1
    seconds = time.perf_counter() - started
    rates = {k: round(counts[k] / n, 4) for k in ("exact", "gold_linked", "extra", "ambiguous")}
    return {
        "n": counts["n"],
        **rates,
        "none": round(counts["none"] / n, 4),
        "ms_per_question": round(1000 * seconds / n, 3),
        "queries_per_question": round(queries.n / n, 3),
        "misses": misses,
    }


def bench_linking(
    data: str | Path,
    hops: Sequence[int],
    split: str = "dev",
    limit: int | None = None,
    *,
    as_endpoint: bool = False,
) -> dict[str, Any]:
    """Per hop count, on one MetaQA KB loaded once. Embedded, its one scan of every label is
    timed apart; `as_endpoint` reads no label scan but looks spans up as on an endpoint."""
    kb = Path(data) / "kb.txt"
    kg = KnowledgeGraph(load_metaqa(kb), "metaqa", name="metaqa", scan_labels=not as_endpoint)
    started = time.perf_counter()
    kg.names.named(["warm-up"])  # loads the store (and scans the labels when embedded)
    mode = "endpoint look-ups" if as_endpoint else "embedded (label scan)"
    results: dict[str, Any] = {"mode": mode, "load_s": round(time.perf_counter() - started, 3)}
    for h in hops:
        questions = load_questions(data, h, split)
        chosen = (q for i, q in enumerate(questions) if limit is None or i < limit)
        results[f"{h}-hop"] = row = link_questions(kg, chosen)
        print(f"readi bench linking: {h}-hop, {row['n']} questions, exact {row['exact']:.4f}",
              file=sys.stderr, flush=True)  # fmt: skip
    return results
