"""Readi's edit loop on the Readi authors' CWQ subgraphs, with scripted editors.

    .venv/bin/python benchmarks/bench_edit_loop.py --editor gold [--keep-editing] [--paper]

Each of the 100 CWQ test questions of `../shared/data/readi_cwq/` runs on its own subgraph:
the Freebase triples the authors' GPT-3.5 run retrieved for it (compound nodes by mid, edges
in the one direction the run read them; `readi_cwq_subgraphs.py`), from the paths GPT-3.5
wrote first (the 0103 run), with a scripted model:

- plan: the published paths;
- edit: `repeat` writes the published paths again (an editor that cannot fix anything);
  `gold` reads the edit prompt and, for each stuck topic entity, writes a gold relation of
  the question's SPARQL where the prompt offers one: among Candidate Relations for the stuck
  step (or after compound nodes), else among Earlier Relations for an earlier step (backing
  up to it), else the same path. It knows the gold relations, no KG id it was not shown,
  like the MetaQA shown-only oracle: what the prompt offers bounds what it can repair;
- answer: the scripted answer (`offline/scripted_answer.py`) from the triples shown.

It runs against whichever `readi_graph` is first on the path, so the same command measures
the code before and after a change (options the older code lacks are left out). Prints one
JSON line: LLM calls, edits, edit stops and the edits they spared, hit@1, a gold answer among
the answers, final instantiation, queries; per question.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from readi_cwq_subgraphs import DATA, records

from readi_graph.bench.binding_real import gold_relations
from readi_graph.core.context import ReadiContext
from readi_graph.environments.kg.name_triples import name_triples_kg
from readi_graph.environments.kg.relations.schema import RelationSchema
from readi_graph.eval.metrics import hit1, normalize
from readi_graph.graph import build_graph
from readi_graph.offline.scripted_answer import reply, scripted_answers

FREEBASE = Path(__file__).resolve().parents[2] / "shared" / "data" / "freebase"
STEP = re.compile(r'\(step (\d+) from "(.*?)"\)')
COMPOUND = re.compile(r'the path from "(.*?)" ends in compound nodes')
EARLIER = re.compile(r"step (\d+) \(from .*?\): ([^;]*)")


def _after(text: str, label: str) -> str:
    return text.rsplit(label, 1)[-1].split("\n", 1)[0].strip() if label in text else ""


def _names(line: str) -> list[str]:
    return [n.strip().removeprefix("<- ").strip() for n in line.split(",") if n.strip()]


def _kept(own: str, topic: str, written: list[str]) -> list[str]:
    """The relations of the topic's kept path: the line marked "(kept)", else the first."""
    for line in written:
        if f"- {line}: " in own and own.split(f"- {line}: ", 1)[1].split("\n", 1)[0].endswith(
            "(kept)"
        ):
            return [r.strip() for r in line.split(" -> ")[1:]]
    first = written[0] if written else topic
    return [r.strip() for r in first.split(" -> ")[1:]]


def gold_edit(prompt: str, gold: set[str]) -> dict[str, list[str]] | None:
    """The gold oracle's corrected paths for the stuck topics (None: nothing to repair)."""
    own = prompt.rsplit("Question: ", 1)[-1]
    previous = json.loads(_after(own, "Previous Path: ") or "{}")
    errors = own.split(">>>> Error Message", 1)[-1].split(">>>> Instantiation Context", 1)[0]
    candidates = _names(_after(own, "Candidate Relations: "))
    earlier = {
        int(s): _names(found) for s, found in EARLIER.findall(_after(own, "Earlier Relations: "))
    }
    out: dict[str, list[str]] = {}
    for line in errors.splitlines():
        if not re.match(r"\d+\. ", line):
            continue
        step, compound = STEP.search(line), COMPOUND.search(line)
        topic = step.group(2) if step else compound.group(1) if compound else None
        if topic is None or topic not in previous:
            continue
        kept = _kept(own, topic, previous[topic] or [])
        at = int(step.group(1)) if step else len(kept) + 1  # the step to write
        offered = [c for c in candidates if c in gold]
        if offered:
            out[topic] = [*kept[: at - 1], offered[0]]
            continue
        for j in range(min(at - 1, len(kept)), 0, -1):  # back up, nearest step first
            other = [g for g in earlier.get(j, []) if g in gold and g != kept[j - 1]]
            if other:
                out[topic] = [*kept[: j - 1], other[0]]
                break
    return out or None


class ScriptedEditor(BaseChatModel):
    """Plans the published paths, edits as `editor` says, answers by the scripted rule."""

    paths: dict[str, dict[str, list[str]]]
    gold: dict[str, set[str]]
    editor: str = "gold"

    @property
    def _llm_type(self) -> str:
        return f"bench-edit-{self.editor}"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **_: Any
    ) -> ChatResult:
        prompt = str(messages[-1].content)
        question = _after(prompt, "Question: ")
        if "Knowledge Triples:" in prompt:
            topics = list(self.paths.get(question, {}))
            text = reply(scripted_answers(prompt, topics))
        elif "could not be instantiated" in prompt and self.editor == "gold":
            edit = gold_edit(prompt, self.gold.get(question, set()))
            written = {t: [" -> ".join([t, *rs])] for t, rs in (edit or {}).items()}
            text = "Path: " + json.dumps(written or self.paths.get(question, {}))
        else:
            text = "Path: " + json.dumps(self.paths.get(question, {}))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])


def run(args: argparse.Namespace) -> dict[str, Any]:
    questions = {
        q["question"]: q for q in json.loads((DATA / "cwq_test_gpt35_0103.json").read_text())
    }
    rows = records(DATA)[: args.limit]
    model = ScriptedEditor(
        paths={q: v.get("relation_path_candidates") or {} for q, v in questions.items()},
        gold={q: set(gold_relations(v.get("sparql") or "")) for q, v in questions.items()},
        editor=args.editor,
    )
    known = {f.name for f in dataclasses.fields(ReadiContext)}
    wanted = {
        "stop_hopeless": not args.keep_editing,
        "edit_feedback": "paper" if args.paper else "steerable",
    }
    context = ReadiContext(
        max_edits=args.max_edits, **{k: v for k, v in wanted.items() if k in known}
    )
    schema = RelationSchema.from_freebase(FREEBASE)
    totals: dict[str, float] = {}
    started = time.perf_counter()
    for row in rows:
        topics = list(questions[row["question"]].get("relation_path_candidates") or {})
        kg = name_triples_kg([tuple(t) for t in row["graph"]], schema=schema)  # type: ignore[misc]
        try:
            out = build_graph(kg, model).invoke(
                {"question": row["question"], "topic_entities": topics},
                {"recursion_limit": 80},
                context=context,
            )
        except Exception as exc:  # counted, the run goes on
            print(f"error on {row['id']}: {exc!r}", file=sys.stderr)
            totals["errors"] = totals.get("errors", 0) + 1
            continue
        for key, value in _scores(out, [str(a) for a in row["answer"]]).items():
            totals[key] = totals.get(key, 0) + value
    n = max(len(rows), 1)
    return {
        "questions": len(rows),
        "editor": args.editor,
        "context": {k: v for k, v in wanted.items() if k in known},
        **{f"{k}_per_question": round(totals.get(k, 0) / n, 3) for k in PER_QUESTION},
        **{k: round(totals.get(k, 0) / n, 3) for k in RATES},
        **{k: int(totals.get(k, 0)) for k in COUNTS},
        "seconds": round(time.perf_counter() - started, 1),
    }


PER_QUESTION = ("llm_calls", "edits", "queries")
RATES = ("hit1", "gold_in_answers", "final_complete")
COUNTS = ("edit_stops", "edits_spared", "errors")


def _scores(out: dict[str, Any], gold: list[str]) -> dict[str, float]:
    """One question's counts: calls, edits, stops, hit@1, a gold answer among the answers,
    every topic's last path complete."""
    usage = out.get("usage") or {}
    answers = out.get("answers") or []
    edits = int(out.get("edits") or 0)
    source = f"edit {edits}" if edits else "generate"
    last = [a for a in out.get("attempts") or [] if a.get("source") == source]
    return {
        "llm_calls": usage.get("llm_calls", 0),
        "queries": usage.get("queries", 0),
        "edits": edits,
        "edit_stops": usage.get("edit_stops", 0),
        "edits_spared": usage.get("edits_spared", 0),
        "hit1": float(hit1(gold, answers)),
        "gold_in_answers": float(bool({normalize(a) for a in gold} & set(map(normalize, answers)))),
        "final_complete": float(bool(last) and all(a.get("complete") for a in last)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--editor", choices=("gold", "repeat"), default="gold")
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--max-edits", type=int, default=4)
    parser.add_argument("--keep-editing", action="store_true", help="stop_hopeless=False")
    parser.add_argument("--paper", action="store_true", help='edit_feedback="paper"')
    print(json.dumps(run(parser.parse_args())))


if __name__ == "__main__":
    main()
