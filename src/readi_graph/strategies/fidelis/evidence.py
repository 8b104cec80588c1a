"""FiDeLiS's answer evidence: its kept beams as whole chains
(`environments/kg/answer_evidence/show.py`), or, with `evidence_layout="flat"`, its paths one
per line as the paper shows them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from readi_graph.core.base import Triple
from readi_graph.core.context import RunContext
from readi_graph.core.text import local_name
from readi_graph.environments.kg.answer_evidence.chains import Link, Step, Walk
from readi_graph.environments.kg.answer_evidence.show import LAYOUT, Shown, show
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.records import term_from
from readi_graph.strategies.fidelis import beams

Beam = dict[str, Any]
VERIFIED = "verified: the search checked that it entails the answer"
UNVERIFIED = "unverified: one of the search's best guesses"


def walk(beam: Beam, verified: bool) -> Walk:
    """One beam as a walk of one chain: each step a hop of the relation it took."""
    source = term_from(beam["start"])
    steps, links = [], []
    for s in beam["steps"]:
        name = s.get("name") or local_name(s["relation"])
        shown = name if s["forward"] else f"<- {name}"
        node = term_from(s["node"])
        triple = (
            Triple(source, s["relation"], node)
            if s["forward"]
            else Triple(node, s["relation"], source)
        )
        steps.append(Step("", (shown,)))
        links.append([Link(source, node, (triple,), shown)])
        source = node
    return Walk(
        topic=beam["start_label"],
        starts=frozenset({term_from(beam["start"])}),
        steps=steps,
        links=links,
        status=VERIFIED if verified else UNVERIFIED,
    )


def shown_paths(
    kg: KnowledgeGraph, kept: Sequence[Beam], verified: bool, question: str, run: RunContext
) -> dict[str, Any]:
    """The answer prompt (its file, `paths`, layout sentence and notes) and the names an
    answer may take: whole chains (default), or the paper's form, each path on one line
    marked verified or not (`evidence_layout="flat"`, its own prompt file)."""
    if run.evidence_layout == "flat":
        mark = "verified" if verified else "unverified"
        text = "\n".join(f"({mark}) {beams.text(b)}" for b in kept)
        names = [x for b in kept for s, _, o in beams.triples(b) for x in (s, o)]
        return {"prompt": "fidelis_reason_flat", "text": text, "notes": [], "names": names}
    shown: Shown = show(kg, [walk(b, verified) for b in kept], run.evidence_cap, question)
    return {
        "prompt": "fidelis_reason",
        "text": shown.text,
        "layout": LAYOUT,
        "notes": shown.notes,
        "names": shown.names,
    }
