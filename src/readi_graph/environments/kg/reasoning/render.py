"""How paths, diagnoses and triples are written into prompts and outputs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from readi_graph.core.base import Term, Triple
from readi_graph.environments.kg.explore import Explorer
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.relations.retrieval import words


def path_line(topic: str, relations: Sequence[str]) -> str:
    return " -> ".join((topic, *relations))


def labelled_triples(kg: KnowledgeGraph, triples: Iterable[Triple]) -> list[list[str]]:
    """Triples as [subject, relation, object] display strings. Compound nodes are numbered
    (`<compound 1>`, `<compound 2>`) consistently across the triples, so the answer model can
    tell two marriages of one person apart."""
    triples = list(triples)
    nodes: set[Term] = {t.subject for t in triples} | {t.object for t in triples}
    labels = kg.labels(nodes)
    numbers: dict[Term, int] = {}

    def show(term: Term) -> str:
        label = labels.get(term)
        if not label and kg.is_compound(term, label):
            return f"<compound {numbers.setdefault(term, len(numbers) + 1)}>"
        return kg.display(term, label)

    return [[show(t.subject), kg.relation_name(t.predicate), show(t.object)] for t in triples]


def compound_facts(
    kg: KnowledgeGraph, triples: Sequence[Triple], per_node: int = 6
) -> list[Triple]:
    """The other facts of the compound nodes in `triples` (a marriage's dates, a statement's
    qualifiers), not already shown: `Explorer.compound_facts` over the triples' nodes."""
    nodes = sorted({t.subject for t in triples} | {t.object for t in triples}, key=Term.sort_key)
    return Explorer(kg).compound_facts(nodes, per_node, exclude=triples)


def triples_text(triples: Sequence[Sequence[str]], cap: int) -> str:
    lines = [f"({s}, {p}, {o})" for s, p, o in triples[:cap]]
    if len(triples) > cap:
        lines.append(f"({len(triples) - cap} more triples not shown)")
    return "\n".join(lines) or "(none)"


def by_relevance(
    question: str, rows: Sequence[Sequence[str]], cap: int, anchors: Iterable[str] = ()
) -> list[Sequence[str]]:
    """At most `cap` rows for the prompt, whole chains at a time, most relevant first.

    A chain is the rows linked by a shared node other than the `anchors` (the topic
    entities, which every chain starts from). Chains are taken in order of their best row's
    word overlap with the question; one that would pass the cap is left out whole (unless
    nothing was kept yet), so the model never sees half a walk."""
    asked = set(words(question))
    skip = {a.casefold() for a in anchors}
    by_node: dict[str, list[int]] = {}
    for i, (subject, _, obj) in enumerate(rows):
        for node in (subject, obj):
            if node.casefold() not in skip:
                by_node.setdefault(node, []).append(i)

    def score(i: int) -> int:
        return len(asked & set(words(" ".join(rows[i]))))

    seen: set[int] = set()
    kept: list[Sequence[str]] = []
    for seed in sorted(range(len(rows)), key=lambda i: (-score(i), i)):
        if seed in seen:
            continue
        chain, todo = [], [seed]
        seen.add(seed)
        while todo:
            i = todo.pop()
            chain.append(i)
            for node in (rows[i][0], rows[i][2]):
                for j in by_node.get(node, []):
                    if j not in seen:
                        seen.add(j)
                        todo.append(j)
        if kept and len(kept) + len(chain) > cap:
            continue
        kept += [rows[i] for i in sorted(chain)]
        if len(kept) >= cap:
            break
    return kept[:cap]
