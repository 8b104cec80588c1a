"""FiDeLiS nodes: plan -> expand -> select -> verify -> (expand | reason).

LLM calls: plan 1, per step one selection (skipped when the candidates fit the beam) and one
verification per kept candidate (a path, or a chain of paths: `grouping.py`; none for a path
shorter than the plan unless `verify_from="first_step"`), reason 1 -- at most N·D + D + 2
(paper, App. C: N·D + D + C).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from readi_graph.core.adapter import answer_schema
from readi_graph.core.answer import failed_answer, grounded, triple_names
from readi_graph.core.context import run_settings
from readi_graph.core.inputs import checked_input
from readi_graph.core.models.llm import ModelRef
from readi_graph.core.parsing import OutputParseError, parse_answer
from readi_graph.core.prompts import instruction, notes_text, render
from readi_graph.core.run.nodes import Meter, ModelNode, Steps, guarded, model_node
from readi_graph.environments.kg.entities.linking import (
    linking_notes,
    no_topic_reason,
    topic_entities_for,
)
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.strategies.fidelis import beams, grouping
from readi_graph.strategies.fidelis.context import FidelisContext
from readi_graph.strategies.fidelis.evidence import shown_paths
from readi_graph.strategies.fidelis.parsing import parse_choice, parse_plan, parse_verdict
from readi_graph.strategies.fidelis.pathrag import candidates

Node = Callable[..., dict[str, Any]]
State = dict[str, Any]


def make_plan(kg: KnowledgeGraph, model: ModelRef) -> ModelNode:
    def plan(state: State) -> Steps:
        checked = checked_input(state)
        question, given = checked["question"], checked["topic_entities"]
        with Meter("plan") as meter:
            # the given topic entities (resolved), else those found in the question
            found = guarded(meter, lambda: topic_entities_for(kg, question, given))
            topics: list[str] = found.get("topic_entities") or []
            planned = {"keywords": [question], "steps": [], "statement": ""}
            if topics:  # none found: nothing to search from, no call
                prompt = render(
                    "fidelis_plan",
                    question=question,
                    topic_entities=json.dumps(topics, ensure_ascii=False),
                )
                reply = meter.llm((yield prompt, None))
                meter.count("plans")
                try:
                    planned = parse_plan(reply.text)
                except OutputParseError:  # search on with the question itself as the keywords
                    meter.count("plans_unreadable")
            starts: list[beams.Beam] = []

            def resolve() -> dict[str, Any]:
                for topic in topics:
                    nodes = kg.resolve(topic).nodes
                    labels = kg.labels(nodes)
                    shown = {n: kg.display(n, labels.get(n)) for n in nodes}
                    starts.extend(beams.start(topic, n, shown[n]) for n in nodes)
                return {"failure": None, "error": None}  # a new run starts clean

            failed = (
                {"failure": found["failure"]} if "failure" in found else guarded(meter, resolve)
            )
        return {
            **failed,
            "topic_entities": topics,
            "linking": found.get("linking"),
            "plan": planned,
            "beams": starts,
            "finished": [],
            "depth": 0,
            "attempts": [],
            "usage": meter.usage,
        }

    return model_node(model, plan, native=kg.native_async)


def make_expand(kg: KnowledgeGraph) -> Node:
    def expand(state: State) -> dict[str, Any]:
        ctx = run_settings(FidelisContext)
        active = [b for b in state.get("beams") or [] if not b.get("closed")]
        if state.get("failure") or not active:  # no topic entity found: nothing to expand
            return {"candidates": []}
        chains_kept = ctx.selection == "chains"
        with Meter("expand") as meter:
            plan = state.get("plan") or {}
            keywords = " ".join(plan.get("keywords") or []) or state["question"]
            failed = guarded(meter, lambda: {"ranked": candidates(
                kg, [beams.end(b) for b in active], keywords, top_m=ctx.top_m, alpha=ctx.alpha,
                walked=[beams.walked(b) for b in active], revisit=ctx.revisit == "end",
                copies_last=ctx.copies == "last",
                per_relation=ctx.chain_cap if chains_kept else None)})  # fmt: skip
        if "failure" in failed:
            return {"failure": failed["failure"], "candidates": [], "usage": meter.usage}
        found = failed["ranked"]
        ranked = found.ranked
        pool = [beams.extend(active[s.beam], s) for steps in ranked for s in steps]
        pool.sort(key=lambda b: (b["copy"], -b["score"]))
        cut = 0
        if chains_kept:
            pool, cut = grouping.gather(pool, ctx.chain_cap)
        dead = sum(1 for steps in ranked if not steps)
        step = {
            "step": state.get("depth", 0) + 1,
            "beams": len(active),  # paths walked on
            "kept": len(grouping.groups(active, ctx.selection)),  # as chosen: chains or paths
            "candidates": len(pool),  # paths
            "choices": len(grouping.groups(pool, ctx.selection)),  # as offered: chains or paths
            "dead_beams": dead,
            "capped": found.capped or bool(cut),
        }
        return {
            "candidates": pool,
            "depth": state.get("depth", 0) + 1,
            "attempts": [step],
            "usage": meter.usage,
        }

    return expand


def route_after_expand(state: State) -> Literal["select", "reason"]:
    return "select" if state.get("candidates") else "reason"


def make_select(model: ModelRef) -> ModelNode:
    def select(state: State) -> Steps:
        run = run_settings(FidelisContext)
        width = run.beam_width
        pool: list[beams.Beam] = state.get("candidates") or []
        options = grouping.groups(pool, run.selection)
        with Meter("select") as meter:
            # nothing to choose: no call (chains: a chain kept costs a verification per step,
            # so the model chooses among any two; paths: when they fit the beam)
            if len(options) <= (1 if run.selection == "chains" else width):
                chosen = list(range(len(options)))
            else:
                listing = "\n".join(f"{i}. {grouping.text(g)}" for i, g in enumerate(options, 1))
                plan = "; ".join((state.get("plan") or {}).get("steps") or []) or "(none)"
                prompt = render(
                    "fidelis_select",
                    run.prompt_budget,
                    question=state["question"],
                    plan=plan,
                    candidates=listing,
                    width=str(width),
                )
                chosen = parse_choice(meter.llm((yield prompt, None)).text, len(options), width)
                meter.count("selections")
                if not chosen:  # unreadable: keep the best by Path-RAG score
                    meter.count("selections_unreadable")
                    chosen = list(range(min(width, len(options))))
        kept = [path for i in chosen for path in options[i]]
        return {"beams": kept, "candidates": [], "usage": meter.usage}

    return model_node(model, select)


def make_verify(model: ModelRef) -> ModelNode:
    def verify(state: State) -> Steps:
        run = run_settings(FidelisContext)
        plan = state.get("plan") or {}
        statement = plan.get("statement") or state["question"]
        active: list[beams.Beam] = []
        finished: list[beams.Beam] = list(state.get("finished") or [])
        depth = state.get("depth", 0)
        with Meter("verify") as meter:
            for group in grouping.groups(state.get("beams") or [], run.selection):
                closed = all(b.get("closed") for b in group)  # it cannot walk on: now or never
                if depth < verified_from(run, plan) and not closed:  # too short: walk on
                    meter.count("verifications_skipped")
                    active += group
                    continue
                prompt = render("fidelis_verify", statement=statement, path=grouping.text(group))
                verdict = parse_verdict(meter.llm((yield prompt, None)).text)
                meter.count("verifications")
                meter.count("verifications_unreadable", verdict is None)
                (finished if verdict else active).extend(group)
        return {"beams": active, "finished": finished, "usage": meter.usage}

    return model_node(model, verify)


def verified_from(run: FidelisContext, plan: State) -> int:
    """The first depth at which a path is verified: 1 (the paper), or the plan's number of
    steps (one per relation, as the plan prompt asks), at most the last depth."""
    steps = len(plan.get("steps") or [])
    return min(max(steps, 1), run.beam_depth) if run.verify_from == "plan" else 1


def route_after_verify(
    state: State,
) -> Literal["expand", "reason"]:
    more = state.get("depth", 0) < run_settings(FidelisContext).beam_depth
    return "expand" if state.get("beams") and more else "reason"


def make_reason(kg: KnowledgeGraph, model: ModelRef) -> ModelNode:
    def reason(state: State) -> Steps:
        if state.get("failure"):
            return failed_answer(state)
        finished = state.get("finished") or []
        kept = finished or [b for b in state.get("beams") or [] if b["steps"]]
        evidence = [t for b in kept for t in beams.triples(b)]
        ends = sorted({b["steps"][-1]["label"] for b in kept})
        run = run_settings(FidelisContext)
        told: list[str] = []  # what the answer prompt said was left out
        with Meter("reason") as meter:
            if not kept:
                steps = state.get("attempts") or [{}]
                topics = ", ".join(state.get("topic_entities") or [])
                why = ("the search found no path" if steps[0].get("beams")
                       else f"no topic entity was found ({topics})" if topics
                       else no_topic_reason(state))  # fmt: skip
                text, answers = f"The knowledge graph gave no evidence: {why}.", list[str]()
            else:
                shown = guarded(
                    meter, lambda: shown_paths(kg, kept, bool(finished), state["question"], run)
                )
                if "failure" in shown:
                    return {**failed_answer(shown), "usage": meter.usage}
                told = shown["notes"]
                prompt = render(
                    shown["prompt"],
                    run.prompt_budget,
                    question=state["question"],
                    paths=shown["text"],
                    layout=shown.get("layout", ""),
                    notes=notes_text(shown["notes"]),
                    instruction=instruction(
                        run.answer_from,
                        "the reasoning paths below, found in a knowledge graph",
                    ),
                )
                schema = answer_schema(shown["names"], run.answer_from)
                text = meter.llm((yield prompt, schema)).text
                parsed = parse_answer(text)
                meter.count("answers")
                meter.count("answers_unreadable", parsed is None)
                answers = ends if parsed is None else parsed
        known = triple_names(evidence)
        return {
            "answer": text,
            "answers": answers,
            "evidence": evidence,
            "grounded": grounded(answers, known),
            "path": [beams.text(b) for b in kept],
            "notes": linking_notes(state) + told,
            "edits": 0,
            "usage": meter.usage,
        }

    return model_node(model, reason, native=kg.native_async)
