"""ToG's answer evidence as whole chains (`environments/kg/answer_evidence/show.py`): per
topic entity, one tree of the entities kept at each depth linked to the one they were reached
from, so a triple kept at depth 3 is shown under the chain that leads to it from the topic
entity."""

from __future__ import annotations

from typing import Any

from readi_graph.core.context import RunContext
from readi_graph.environments.kg.answer_evidence.chains import Link, Step, Walk
from readi_graph.environments.kg.answer_evidence.show import LAYOUT, show
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.records import term_from
from readi_graph.strategies.tog import search
from readi_graph.strategies.tog.state import Candidate, TogState

DEEPEST = " Under each node, the chains that reach the deepest depth searched come first."


def _link(kept: Candidate) -> Link:
    via = kept.get("via")
    relation = str(kept["relation_name"]) + (f" -> {via['name']}" if via else "")
    return Link(
        term_from(kept["source"]), term_from(kept["node"]), tuple(search.triples(kept)), relation
    )


def walks(state: TogState) -> list[Walk]:
    """One walk per topic entity the search started from: the relations kept at each depth
    (best scored first) and the entities they reached."""
    explored: list[list[Candidate]] = state.get("explored") or []
    out = []
    for start in state.get("topics") or []:
        topic = start.get("topic") or start["name"]
        per_depth = [[k for k in kept if (k.get("topic") or topic) == topic] for kept in explored]
        while per_depth and not per_depth[-1]:
            per_depth.pop()
        steps = [Step("", tuple(dict.fromkeys(_link(k).relation for k in d))) for d in per_depth]
        out.append(
            Walk(
                topic=topic,
                starts=frozenset({term_from(start["node"])}),
                steps=steps,
                links=[[_link(k) for k in d] for d in per_depth],
                status=f"searched to depth {len(steps)}",
            )
        )
    return out


def shown_triples(kg: KnowledgeGraph, state: TogState, run: RunContext) -> dict[str, Any]:
    """The answer prompt's triples as chains, its layout sentence, the notes on what was left
    out, and the names an answer may take."""
    shown = show(kg, walks(state), run.evidence_cap, state.get("question") or "")
    return {
        "text": shown.text,
        "layout": LAYOUT + DEEPEST,
        "notes": shown.notes,
        "names": shown.names,
    }
