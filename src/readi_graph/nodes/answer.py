"""answer: one LLM call answers from the merged instances (paper §4.5), citing triples.

When no path instantiated fully (budget spent), the longest instantiated prefixes are the
evidence. When there is no evidence at all, no call is made: the answer says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from readi_graph.context import ReadiContext, settings
from readi_graph.envs.base import Term
from readi_graph.envs.kg import KnowledgeGraph
from readi_graph.envs.names import normalize_name
from readi_graph.instantiation import Instance, merge
from readi_graph.llm import ModelRef, call
from readi_graph.nodes import Meter
from readi_graph.nodes.render import labelled_triples, path_line, triples_text
from readi_graph.parsing import parse_answer
from readi_graph.prompts import render
from readi_graph.records import diagnosis_from, instance_from
from readi_graph.state import ReadiState


def _evidence(instances: list[Instance]) -> tuple[tuple[Term, ...], list[Any]]:
    """(answer nodes, triples): the merge of complete instances, else the deepest prefixes."""
    merged = merge(instances)
    if merged.answers:
        return merged.answers, merged.evidence
    deepest = max((i.depth for i in instances), default=0)
    partial = [i for i in instances if i.depth == deepest and deepest > 0]
    nodes = tuple(sorted({t for i in partial for t in i.frontier}))
    return nodes, sorted({t for i in partial for t in i.triples()})


def make_answer(
    kg: KnowledgeGraph, model: ModelRef
) -> Callable[[ReadiState, Runtime[ReadiContext]], dict[str, Any]]:
    def answer(state: ReadiState, runtime: Runtime[ReadiContext] | None = None) -> dict[str, Any]:
        ctx = settings(runtime)
        instances = [instance_from(r) for r in state.get("instances") or []]
        path = [path_line(i.path.topic, i.path.relations) for i in instances]
        with Meter("answer") as meter:
            nodes, triples = _evidence(instances)
            evidence = labelled_triples(kg, triples)
            labels = kg.labels(nodes)
            fallback = sorted({kg.display(t, labels.get(t)) for t in nodes})
            if not evidence:
                reasons = diagnosis_from(
                    state.get("diagnosis") or {"reasons": [], "halfway": [], "candidates": []}
                ).reasons
                why = "; ".join(r.message for r in reasons) or "no path was instantiated"
                text, answers = f"The knowledge graph gave no evidence: {why}.", []
            else:
                prompt = render(
                    "kg_answer",
                    question=state["question"],
                    triples=triples_text(evidence, ctx.evidence_cap),
                )
                text = meter.llm(call(model.get(), prompt)).text
                parsed = parse_answer(text)
                answers = fallback if parsed is None else parsed
        known = {normalize_name(x) for triple in evidence for x in (triple[0], triple[2])}
        grounded = bool(answers) and all(normalize_name(a) in known for a in answers)
        return {
            "answer": text,
            "answers": answers,
            "evidence": evidence,
            "grounded": grounded,
            "path": path,
            "edits": state.get("edits_used", 0),
            "usage": meter.usage,
        }

    return answer
