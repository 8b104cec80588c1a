"""How paths, diagnoses and triples are written into prompts and outputs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from readi_graph.diagnosis import CandidateRelation, Diagnosis
from readi_graph.envs.base import Term, Triple
from readi_graph.envs.kg import KnowledgeGraph


def path_line(topic: str, relations: Sequence[str]) -> str:
    return " -> ".join((topic, *relations))


def diagnosis_text(d: Diagnosis) -> tuple[str, str, str]:
    """(numbered errors, instantiated paths, candidate relations) for the edit prompt."""
    errors = "\n".join(f"{i}. {r.message}" for i, r in enumerate(d.reasons, 1))
    halfway = "\n".join(d.halfway) or "(none: the path did not get past its topic entity)"
    return errors, halfway, _names(d.candidates) or "(none)"


def _names(candidates: Sequence[CandidateRelation]) -> str:
    return ", ".join(c.name if c.forward else f"<- {c.name}" for c in candidates)


def earlier_text(d: Diagnosis) -> str:
    """The relations at the steps before the one that failed, for the edit prompt."""
    steps = [f"step {step} (from {where}): {_names(found)}" for step, where, found in d.earlier]
    return "; ".join(s for s in steps) or "(none)"


def labelled_triples(kg: KnowledgeGraph, triples: Iterable[Triple]) -> list[list[str]]:
    """Triples as [subject, relation, object] display strings (labels, `<compound>`)."""
    triples = list(triples)
    nodes: set[Term] = {t.subject for t in triples} | {t.object for t in triples}
    labels = kg.labels(nodes)
    return [
        [
            kg.display(t.subject, labels.get(t.subject)),
            kg.relation_name(t.predicate),
            kg.display(t.object, labels.get(t.object)),
        ]
        for t in triples
    ]


def triples_text(triples: Sequence[Sequence[str]], cap: int) -> str:
    lines = [f"({s}, {p}, {o})" for s, p, o in triples[:cap]]
    if len(triples) > cap:
        lines.append(f"({len(triples) - cap} more triples not shown)")
    return "\n".join(lines) or "(none)"
