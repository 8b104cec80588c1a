"""The answer prompt's evidence, as whole chains: one renderer for every KG strategy.

Readi (its instances), FiDeLiS (its beams) and Think-on-Graph (its kept entities) each say
what they walked as `chains.Walk`s; `show` picks the chains that fit the cap
(`chains.select`) and writes them: first the paths walked (per hop the model's words and the
KG relations walked for them, and what each path reached), then one tree of triples per
topic entity and relations taken, in which an indented triple continues the chain of the
triple above it, so every triple shown is connected to its topic entity through triples
shown. A compound node's other facts (a marriage's dates) hang under it; chains that end at a
compound node with nothing beyond it are counted, not shown. What was left out is said in
numbers, in `notes`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from readi_graph.core.base import Term, Triple
from readi_graph.environments.kg.chains import (
    Chain,
    Group,
    Paths,
    Selection,
    Step,
    Walk,
    select,
)
from readi_graph.environments.kg.explore import Explorer
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.retrieval import tokens

INDENT = "  "
MAX_NAMES = 400  # names an answer may be constrained to (the bundled model's schema)
WORDED = "Paths walked (for each hop, the path's words and [the KG relations walked]):"
UNWORDED = "Paths walked (for each hop, [the KG relations walked]):"
LAYOUT = (
    "They are shown as whole chains from the topic entities: first the paths walked (for "
    "each hop, the path's words, if it has any, and [the KG relations walked]) and what each "
    "reached, "
    "then the chains grouped by the relations they took, where an indented triple continues "
    "the chain of the triple above it."
)


@dataclass
class Shown:
    """The evidence as the answer prompt shows it, and as the output reports it."""

    text: str  # the prompt's evidence section
    rows: list[list[str]]  # every evidence triple, shown or not: [subject, relation, object]
    names: list[str]  # the names shown, chain ends first (what an answer may be)
    notes: list[str] = field(default_factory=list)  # what was left out, in numbers
    selection: Selection = field(default_factory=Selection)


def show(
    kg: KnowledgeGraph, walks: Sequence[Walk], cap: int, question: str = "", *, per_node: int = 6
) -> Shown:
    """The chains of `walks` that fit in `cap` lines (module docstring); among equally ranked
    ends, those whose chains name more of the `question`'s words first."""
    walked = [t for w in walks for layer in w.links for link in layer for t in link.triples]
    nodes = list(dict.fromkeys(n for t in walked for n in (t.subject, t.object)))
    labels = kg.labels(nodes)
    compound = {n for n in nodes if n.kind != "literal" and kg.is_compound(n, labels.get(n))}
    found = Explorer(kg).compound_facts(
        sorted(compound, key=Term.sort_key), per_node, exclude=walked
    )
    facts: dict[Term, list[Triple]] = {}
    for t in found:
        facts.setdefault(t.subject if t.subject in compound else t.object, []).append(t)
    paths = [Paths(w, lambda n: n in compound and n not in facts) for w in walks]
    counts = {n: len(f) for n, f in facts.items()}
    selection = select(paths, cap, counts, _relevance(question, labels))
    lines, order = _trees(selection, facts, walks)
    names = _Names(kg, labels)
    shown_lines = [(depth, names.row(t)) for depth, t in lines]
    shown = {t for _, t in lines}
    main: set[Triple] = set()  # the triples of every chain not left out as a bare compound
    for p in paths:
        main |= p.triples(p.leaves)
    main |= {f for n in {x for t in main for x in (t.subject, t.object)} & set(facts)
             for f in facts[n]}  # fmt: skip
    bare = {t for p in paths for t in p.triples(p.hidden)} - main
    evidence = [t for _, t in lines]
    evidence += sorted(main - shown, key=Triple.sort_key) + sorted(bare, key=Triple.sort_key)
    text = "\n".join([*_walked(walks), *_text(shown_lines, order)]) or "(none)"
    return Shown(
        text=text,
        rows=[names.row(t) for t in dict.fromkeys(evidence)],
        names=_answer_names(selection, names, lines)[:MAX_NAMES],
        notes=_left_out(selection, cap, len(shown), len(main | shown)),
        selection=selection,
    )


def _relevance(question: str, labels: dict[Term, str | None]) -> Callable[[Chain], int]:
    """How many of the question's words (stemmed, stopwords apart) a chain's nodes name."""
    asked = set(tokens(question)) if question else set()
    named: dict[Term, set[str]] = {}

    def relevance(chain: Chain) -> int:
        found: set[str] = set()
        for link in chain:
            if link.target not in named:
                named[link.target] = set(tokens(labels.get(link.target) or ""))
            found |= named[link.target]
        return len(asked & found)

    return relevance


def _trees(
    selection: Selection, facts: dict[Term, list[Triple]], walks: Sequence[Walk]
) -> tuple[list[tuple[int, Triple]], list[tuple[Group, int, int]]]:
    """The triples of each group's tree, depth-first (children in the order chosen), each
    compound node's facts under its first line; and (group, first line, line count)."""
    topics = list(dict.fromkeys(w.topic for w in walks))
    groups = sorted(
        selection.groups,
        key=lambda g: (topics.index(g[0]), not selection.complete[g], selection.rank[g]),
    )
    lines: list[tuple[int, Triple]] = []
    order: list[tuple[Group, int, int]] = []
    for group in groups:
        start = len(lines)
        tree: dict[tuple[Triple, ...], list[Triple]] = {}
        for chain in selection.groups[group]:
            flat = _flat(chain)
            for i, t in enumerate(flat):
                children = tree.setdefault(flat[:i], [])
                if t not in children:
                    children.append(t)
        _visit(tree, facts, (), 0, set(), lines)
        order.append((group, start, len(lines) - start))
    return lines, order


def _visit(
    tree: dict[tuple[Triple, ...], list[Triple]],
    facts: dict[Term, list[Triple]],
    prefix: tuple[Triple, ...],
    depth: int,
    faceted: set[Term],
    lines: list[tuple[int, Triple]],
) -> None:
    """Depth-first: each triple, the facts of a compound node it shows first, its children."""
    for t in tree.get(prefix, []):
        lines.append((depth, t))
        for node in (t.subject, t.object):
            if node in facts and node not in faceted:
                faceted.add(node)
                lines.extend((depth + 1, f) for f in facts[node])
        _visit(tree, facts, (*prefix, t), depth + 1, faceted, lines)


def _flat(chain: Chain) -> tuple[Triple, ...]:
    return tuple(t for link in chain for t in link.triples)


def _walked(walks: Sequence[Walk]) -> list[str]:
    if not walks:
        return []
    worded = any(s.words for w in walks for s in w.steps)
    out = [WORDED if worded else UNWORDED]
    for w in walks:
        hops = [_hop(s) for s in w.steps]
        out.append(f'- from "{w.topic}": {" -> ".join(hops) or "(no relations)"}: {w.status}')
    return list(dict.fromkeys(out))


def _hop(step: Step) -> str:
    relations = f"[{', '.join(step.relations) or 'nothing walked'}]"
    return f'"{step.words}" {relations}' if step.words else relations


def _text(lines: list[tuple[int, list[str]]], order: list[tuple[Group, int, int]]) -> list[str]:
    out: list[str] = []
    for (topic, relations), start, count in order:
        out.append(f'Chains from "{topic}" via {" -> ".join(relations)}:')
        for depth, (s, p, o) in lines[start : start + count]:
            out.append(f"{INDENT * depth}({s}, {p}, {o})")
    return out


class _Names:
    """How nodes are shown: labels, compound nodes numbered in the order they appear."""

    def __init__(self, kg: KnowledgeGraph, labels: dict[Term, str | None]) -> None:
        self.kg, self.labels, self.numbers = kg, dict(labels), dict[Term, int]()

    def name(self, term: Term) -> str:
        if term not in self.labels:
            self.labels.update(self.kg.labels([term]))
        label = self.labels.get(term)
        if not label and self.kg.is_compound(term, label):
            return f"<compound {self.numbers.setdefault(term, len(self.numbers) + 1)}>"
        return self.kg.display(term, label)

    def row(self, t: Triple) -> list[str]:
        return [self.name(t.subject), self.kg.relation_name(t.predicate), self.name(t.object)]

    def named(self, terms: Iterable[Term]) -> list[str]:
        return [n for t in terms if not (n := self.name(t)).startswith("<compound")]


def _answer_names(
    selection: Selection, names: _Names, lines: list[tuple[int, Triple]]
) -> list[str]:
    ends = [c[-1].target for chains in selection.groups.values() for c in chains]
    nodes = [n for _, t in lines for n in (t.subject, t.object)]
    return list(dict.fromkeys(names.named([*ends, *nodes])))


def _left_out(selection: Selection, cap: int, shown: int, total: int) -> list[str]:
    notes = []
    chains = sum(len(c) for c in selection.groups.values())
    if chains < selection.chains or shown < total or selection.ends_shown < selection.ends:
        notes.append(
            f"Left out to keep the evidence within {cap} lines, whole chains at a time: "
            f"{selection.chains - chains} of {selection.chains} chains, {total - shown} of "
            f"{total} triples; {selection.ends - selection.ends_shown} of {selection.ends} "
            "end nodes are the end of no chain shown."
        )
    if selection.hidden:
        via = ", ".join(selection.hidden_via)
        notes.append(
            f"Not shown: {selection.hidden} chains that end at a compound node with nothing "
            f"beyond it (last relation: {via})."
        )
    return notes
