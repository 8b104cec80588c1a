"""What Readi's answer prompt shows of its evidence (issue 31): whole chains under the walked
path (`evidence_layout="chains"`, the default) against the paper's flat set of triples cut to
the cap (`"flat"`, as before issue 31), on MetaQA dev questions, no LLM.

Run:  python benchmarks/bench_evidence.py [--data ../shared/data/metaqa] [--n 300]
Writes benchmarks/results/evidence.md.

Each question's path is walked once, two ways: `gold` (its gold relations, exact bindings:
what `readi eval metaqa --planner gold` instantiates) and `words` (the gold path in a model's
words, bound as Readi binds: neighbours such as `written_by` for "directed by" come along).
Then the answer prompt is written with each layout from the same instances, and read back:
- broken: prompts showing a triple that no chain of shown triples links to the topic entity;
- gold dropped: prompts whose evidence holds a gold answer that the shown triples do not;
- path shown: prompts that show the walked path (words and relations per hop);
- tokens: the prompt's tokens (cl100k), mean and max, and the evidence section's (the
  triples and the notes) alone;
- scripted hit@1: the offline answer rule (`offline/scripted_answer.py`) reading the prompt.
Run it with another checkout first on PYTHONPATH to measure that code (a checkout without
`evidence_layout` is measured as "before").
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import fields
from itertools import islice
from pathlib import Path
from typing import Any

from readi_graph.core.context import ReadiContext
from readi_graph.core.models.tokens import count
from readi_graph.core.prompts import render
from readi_graph.datasets.metaqa import MetaQAQuestion, gold_path, load_questions
from readi_graph.environments.kg.answer_evidence.read import unlinked
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.adapter import KGAdapter
from readi_graph.environments.kg.reasoning.instantiation import connect
from readi_graph.environments.kg.reasoning.records import instance_record
from readi_graph.offline.scripted_answer import scripted_answers, shown_triples
from readi_graph.offline.wording import RELATIONS, model_words

from _report import write_report

HERE = Path(__file__).parent
LAYOUTED = "evidence_layout" in {f.name for f in fields(ReadiContext)}


def instances(kg: KnowledgeGraph, q: MetaQAQuestion, planner: str) -> list[Any]:
    if planner == "gold":
        path, bindings = gold_path(q)
        return [instance_record(connect(kg, path, bindings))]
    said = model_words(q)
    adapter = KGAdapter(kg)
    state: Any = {"question": q.question, "plan": {q.topic: [said]}}
    state["bindings"] = adapter.bind(state, ReadiContext())
    return adapter.connect(state)[0]


def measure(
    kg: KnowledgeGraph, q: MetaQAQuestion, records: list[Any], layout: str
) -> dict[str, Any]:
    context = ReadiContext(evidence_layout=layout) if LAYOUTED else ReadiContext()  # type: ignore[call-arg]
    state: Any = {"question": q.question, "topic_entities": [q.topic], "instances": records}
    material = KGAdapter(kg).material(state, context)
    name = getattr(material, "prompt", None) or "kg_answer"  # the flat layout has its own
    prompt = render(name, context.prompt_budget, question=q.question, **material.prompt_values)
    shown = shown_triples(prompt, RELATIONS)
    names = {x for s, _, o in shown for x in (s, o)}
    held = {x for s, _, o in material.evidence for x in (s, o)} & set(q.answers)
    picked = scripted_answers(prompt, [q.topic], RELATIONS)
    return {
        "broken": bool(unlinked(shown, [q.topic])),
        "dropped": bool(held - names),
        "path": "Paths walked" in prompt.rsplit("### Your turn", 1)[-1],
        "tokens": count(prompt),
        "evidence": count(material.prompt_values["triples"] + material.prompt_values["notes"]),
        "over": len(material.evidence) > context.evidence_cap,
        "hit1": bool(picked) and picked[0] in q.answers,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(HERE.parent.parent / "shared" / "data" / "metaqa"))
    parser.add_argument("--n", type=int, default=300, help="dev questions per hop count")
    parser.add_argument("--hops", default="2,3")
    parser.add_argument("--out", default=str(HERE / "results" / "evidence.md"))
    args = parser.parse_args()
    kg = KnowledgeGraph.from_metaqa(Path(args.data) / "kb.txt")
    layouts = ["flat", "chains"] if LAYOUTED else ["before"]
    lines = [
        f"# Answer-prompt evidence, MetaQA dev, first {args.n} questions per hop count",
        "",
        "| hops | planner | layout | over cap | broken | gold dropped | path shown | tokens mean "
        "| tokens max | evidence tokens mean | scripted hit@1 |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for hops in (int(h) for h in args.hops.split(",")):
        questions = list(islice(load_questions(args.data, hops), args.n))
        for planner in ("gold", "words"):
            walked = [(q, instances(kg, q, planner)) for q in questions]
            for layout in layouts:
                rows = [measure(kg, q, r, layout) for q, r in walked]
                tokens = [r["tokens"] for r in rows]

                def rate(key: str, rows: list[dict[str, Any]] = rows) -> str:
                    return f"{sum(r[key] for r in rows)}/{len(rows)}"

                lines.append(
                    f"| {hops} | {planner} | {layout} | {rate('over')} | {rate('broken')} | "
                    f"{rate('dropped')} | {rate('path')} | {statistics.mean(tokens):.0f} | "
                    f"{max(tokens)} | {statistics.mean(r['evidence'] for r in rows):.0f} | "
                    f"{rate('hit1')} |"
                )
                print(lines[-1], flush=True)
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
