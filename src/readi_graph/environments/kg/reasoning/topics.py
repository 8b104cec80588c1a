"""What the model is told about a topic entity that names several nodes.

A name such as "Paris" may match the capital of France and a town in Texas; the walk starts
from all of them (the question may mean either), but the model must be able to tell which
triples belong to which. Each node gets one distinguishing fact: its description when the KG
has one, else an outgoing edge to a named node that the other homonyms do not share.
"""

from __future__ import annotations

from readi_graph.core.base import Term
from readi_graph.core.text import local_name
from readi_graph.environments.kg.entities.names import Resolution
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.store import sparql

FACTS_PER_NODE = 50  # edges read per homonym to find a distinguishing one
DESCRIPTION_CHARS = 120


def ambiguity_notes(kg: KnowledgeGraph, resolution: Resolution) -> list[str]:
    """One note when `resolution` holds several nodes (none otherwise): which node is which."""
    nodes = list(resolution.nodes)
    if len(nodes) < 2:
        return []
    facts = distinguishing_facts(kg, nodes)
    shown = "; ".join(
        f"{local_name(n.value)} ({facts[n]})" if facts.get(n) else local_name(n.value)
        for n in nodes
    )
    total = max(resolution.matched, len(nodes))
    which = "each of them" if total == len(nodes) else f"the {len(nodes)} best connected"
    return [
        f'"{resolution.name}" names {total} nodes of the knowledge graph; '
        f"the walk starts from {which}: {shown}."
    ]


def distinguishing_facts(kg: KnowledgeGraph, nodes: list[Term]) -> dict[Term, str]:
    """A short text per node telling it apart from the others (missing when none is found)."""
    descriptions = kg.names.texts(nodes, kg.settings.description_predicates)
    facts = {n: _short(d) for n, d in descriptions.items()}
    rest = [n for n in nodes if n not in facts and n.kind == "iri"]
    if not rest:
        return facts
    edges: dict[Term, list[tuple[str, Term]]] = {n: [] for n in rest}
    query = sparql.facts_query(rest, FACTS_PER_NODE * len(rest))
    for row in kg._select(query):
        if {"x", "p", "y"} <= row.keys() and not kg.is_hidden(row["p"].value):
            edges.setdefault(row["x"], []).append((row["p"].value, row["y"]))
    labels = kg.labels(y for pairs in edges.values() for _, y in pairs)
    named = {
        n: [f"{kg.relation_name(p)}: {labels[y]}" for p, y in pairs if labels.get(y)]
        for n, pairs in edges.items()
    }
    for n in rest:
        others = {f for m, fs in named.items() if m != n for f in fs}
        unique = [f for f in named.get(n, []) if f not in others]
        if unique:
            facts[n] = unique[0]
    return facts


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1] + "…"
