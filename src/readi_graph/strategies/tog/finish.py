"""ToG's last steps: the sufficiency call after each depth, and the final answer.

`reason` asks whether the triples found so far are enough; its "yes" carries the answers and
ends the run (no call while the relation step said more hops are needed: `ending.MORE_HOPS`).
When the frontier empties, or the depth is spent, `answer` makes one call from the triples so
far. The official code answers from the model's own knowledge alone after the last depth;
here the triples stay in that prompt and `RunContext.answer_from` decides whether the model
may add its own knowledge. With no triples at all the official code asks the model alone;
here that is `TogContext.no_evidence="model_knowledge"` (default: say so, no call).
`answer_source` is read from the answers (`ending.source_of`): "graph" when every answer names
an entity of the evidence, "model_knowledge" when one does not, "none" without answers.
"""

from __future__ import annotations

from typing import Any, Literal

from readi_graph.core.adapter import ANSWER_SCHEMA, answer_schema
from readi_graph.core.answer import failed_answer, grounded, triple_names
from readi_graph.core.context import run_settings
from readi_graph.core.models.llm import ModelRef
from readi_graph.core.parsing import parse_answer
from readi_graph.core.prompts import instruction, notes_text, render
from readi_graph.core.run.nodes import Meter, ModelNode, Steps, guarded, model_node
from readi_graph.environments.kg.explore import Explorer
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.render import labelled_triples
from readi_graph.strategies.tog import ending, search
from readi_graph.strategies.tog.context import TogContext
from readi_graph.strategies.tog.evidence import shown_triples
from readi_graph.strategies.tog.parsing import parse_verdict
from readi_graph.strategies.tog.state import Candidate, TogState

Record = dict[str, Any]
SUFFICIENCY_SCHEMA: Record = {
    "type": "object",
    "properties": {
        "sufficient": {"type": "string", "enum": ["yes", "no"]},
        "thought": {"type": "string", "maxLength": 400},
        "answers": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["sufficient", "thought", "answers"],
}
POLICY = {
    "evidence": "Judge from the triples only.",
    "evidence_and_knowledge": "You may use your own knowledge where the triples do not settle "
    "the question; say which answers come from it.",
}


def evidence(explorer: Explorer, explored: list[list[Candidate]]) -> tuple[list[list[str]], str]:
    """The kept triples as [subject, relation, object] rows (compound nodes numbered, their
    other facts added), and as the prompts show them: by depth, then the compound facts."""
    by_depth = [[t for c in kept for t in search.triples(c)] for kept in explored]
    found = [t for depth in by_depth for t in depth]
    nodes = sorted({x for t in found for x in (t.subject, t.object)}, key=lambda t: t.sort_key())
    facts = explorer.compound_facts(nodes, exclude=found)
    unique = list(dict.fromkeys([*found, *facts]))
    rows = labelled_triples(explorer.kg, unique)
    shown = dict(zip(unique, rows, strict=True))
    lines: list[str] = []
    for d, triples in enumerate(by_depth, 1):
        if triples:  # a triple walked back over is shown again: it is what this depth kept
            lines.append(f"Depth {d}:")
            lines += [_line(shown[t]) for t in dict.fromkeys(triples)]
    if facts:
        lines.append("Facts of the compound nodes:")
        lines += [_line(shown[t]) for t in dict.fromkeys(facts)]
    return rows, "\n".join(lines)


def _line(row: list[str]) -> str:
    return "(" + ", ".join(row) + ")"


def _facts(explorer: Explorer, state: TogState) -> dict[str, Any]:
    rows, text = evidence(explorer, state.get("explored") or [])
    return {"rows": rows, "text": text}


def _answer_facts(explorer: Explorer, state: TogState, run: TogContext) -> dict[str, Any]:
    """The final prompt (its file) and its evidence: whole chains from the topic entities
    (the default), or the triples by depth (`evidence_layout="flat"`, the published form)."""
    got = _facts(explorer, state)
    if run.evidence_layout == "flat":
        names = [x for s, _, o in got["rows"] for x in (s, o) if not x.startswith("<compound")]
        return {**got, "prompt": "tog_answer_flat", "layout": "", "notes": [], "names": names}
    return {**got, "prompt": "tog_answer", **shown_triples(explorer.kg, state, run)}


def _final(state: TogState, rows: list[list[str]], answers: list[str], text: str) -> Record:
    known = triple_names(rows)
    last: list[Candidate] = next((k for k in reversed(state.get("explored") or []) if k), [])
    return {
        "answer": text,
        "answers": answers,
        "evidence": rows,
        "grounded": grounded(answers, known),
        "answer_source": ending.source_of(answers, known),
        "path": [search.path_text(c) for c in last],
        "notes": list(state.get("notes") or []),
        "edits": 0,
    }


def make_reason(kg: KnowledgeGraph, model: ModelRef) -> ModelNode:
    explorer = Explorer(kg)

    def reason(state: TogState) -> Steps:
        run = run_settings(TogContext)
        left = int(state.get("calls_left", 0))
        current = state.get("current") or {}
        if run.skip_needless_calls and (current.get("hops_left") or 0) >= 1:
            # the relation step said these triples cannot answer yet: no call, no query
            with Meter("reason") as meter:
                meter.count("verdicts_skipped")
            record = {**current, "verdict": ending.MORE_HOPS}
            return {"calls_left": left, "current": record, "attempts": [record],
                    "usage": meter.usage}  # fmt: skip
        verdict: bool | None = None
        answers: list[str] | None = None
        text = ""
        with Meter("reason") as meter:
            got = guarded(meter, lambda: _facts(explorer, state))
            if "failure" in got:
                return {"failure": got["failure"], "usage": meter.usage}
            if left > 0:
                prompt = render(
                    "tog_reason",
                    run.prompt_budget,
                    question=state["question"],
                    triples=got["text"],
                    notes=notes_text(list(state.get("notes") or [])),
                    policy=POLICY[run.answer_from],
                )
                text = meter.llm((yield prompt, SUFFICIENCY_SCHEMA)).text
                left -= 1
                verdict, answers = parse_verdict(text)
                meter.count("verdicts")
                meter.count("verdicts_unreadable", verdict is None)
        said = {True: "yes", False: "no", None: "unreadable"}[verdict]
        record = {**current, "verdict": said}
        update: Record = {"calls_left": left, "current": record, "attempts": [record]}
        if verdict and answers:
            update.update(_final(state, got["rows"], answers, text))
            update["sufficient"] = True
        return {**update, "usage": meter.usage}

    return model_node(model, reason, native=kg.native_async)


def route_after_reason(state: TogState) -> Literal["relations", "answer", "__end__"]:
    if state.get("sufficient"):
        return "__end__"
    more = state.get("depth", 0) < run_settings(TogContext).depth
    return "relations" if more and state.get("frontier") and not state.get("failure") else "answer"


def make_answer(kg: KnowledgeGraph, model: ModelRef) -> ModelNode:
    explorer = Explorer(kg)

    def answer(state: TogState) -> Steps:
        current = state.get("current") or {}
        # the depth whose frontier emptied was not judged: its record is written here
        unjudged = current and "verdict" not in current
        pending = [{**current, "verdict": "nothing new"}] if unjudged else []
        if state.get("failure"):
            return {**failed_answer(state), "answer_source": "none", "attempts": pending}
        run = run_settings(TogContext)
        left = int(state.get("calls_left", 0))
        with Meter("answer") as meter:
            got = guarded(meter, lambda: _answer_facts(explorer, state, run))
            if "failure" in got:
                failed = failed_answer({**state, "failure": got["failure"]})
                return {**failed, "answer_source": "none", "attempts": pending,
                        "usage": meter.usage}  # fmt: skip
            last = next((k for k in reversed(state.get("explored") or []) if k), [])
            if not got["rows"]:
                why = ending.no_evidence(state)
                text, answers = f"The knowledge graph gave no evidence: {why}.", []
                if run.no_evidence == "model_knowledge" and left > 0:  # the official fallback
                    prompt = render(
                        "tog_knowledge",
                        run.prompt_budget,
                        question=state["question"],
                        why=why,
                        notes=notes_text(list(state.get("notes") or [])),
                    )
                    text = meter.llm((yield prompt, ANSWER_SCHEMA)).text
                    left -= 1
                    answers = parse_answer(text) or []
                    meter.count("answers_from_knowledge")
            elif left <= 0:  # never reached: the bound keeps a call for the answer
                meter.count("budget_spent")
                text, answers = "", [c["name"] for c in last]
            else:
                prompt = render(
                    got["prompt"],
                    run.prompt_budget,
                    question=state["question"],
                    triples=got["text"],
                    layout=got["layout"],
                    notes=notes_text([*(state.get("notes") or []), *got["notes"]]),
                    why=ending.why(state, run.depth, bool(pending)),
                    instruction=instruction(run.answer_from, "the knowledge triples below"),
                )
                schema = answer_schema(got["names"], run.answer_from)
                text = meter.llm((yield prompt, schema)).text
                left -= 1
                parsed = parse_answer(text)
                meter.count("answers")
                meter.count("answers_unreadable", parsed is None)
                answers = [c["name"] for c in last] if parsed is None else parsed
        return {
            **_final(state, got["rows"], answers, text),
            "notes": [*(state.get("notes") or []), *got.get("notes", [])],
            "calls_left": left,
            "attempts": pending,
            "usage": meter.usage,
        }

    return model_node(model, answer, native=kg.native_async)
