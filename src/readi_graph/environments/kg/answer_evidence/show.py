"""The answer prompt's evidence, as whole chains: one renderer for every KG strategy.

Readi (its instances), FiDeLiS (its beams) and Think-on-Graph (its kept entities) each say
what they walked as `chains.Walk`s; `show` picks the chains that fit the cap
(`selection.select`) and writes them: first the paths walked (per hop the model's words and
the KG relations walked for them, and what each path reached), then one tree of triples per
topic entity and path, whatever relations each hop took (each triple names its relation; the
walked path names every relation of each hop), in which an indented triple continues the
chain of the triple above it, so every triple shown is connected to its topic entity through
triples shown; a node reached again at the same hop says "[X continues as above]" instead of
repeating what follows it. A compound node's other facts (a marriage's dates) hang under it;
chains that end at a compound node with nothing beyond it are counted, not shown. What was
left out is said in numbers, in `notes`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from readi_graph.core.base import Term, Triple
from readi_graph.environments.kg.answer_evidence.chains import Chain, Group, Paths, Step, Walk
from readi_graph.environments.kg.answer_evidence.selection import Selection, select
from readi_graph.environments.kg.explore import Explorer
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.relations.retrieval import tokens

INDENT = "  "
AS_ABOVE = "continues as above"
FIRST_WHOLE = " Every complete chain that takes the first relation listed for each hop is shown."
MAX_NAMES = 400  # names an answer may be constrained to (the bundled model's schema)
WORDED = "Paths walked (for each hop, the path's words and [the KG relations walked]):"
UNWORDED = "Paths walked (for each hop, [the KG relations walked]):"
LAYOUT = (
    "They are shown as whole chains: the paths walked, then one tree per path; an indented "
    f'triple continues the chain of the triple above it, and "[X {AS_ABOVE}]" means X\'s '
    "chains are shown above."
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
    text = "\n".join([*_walked(walks), *_text(lines, order, names)]) or "(none)"
    shown_lines = [t for _, t in lines if isinstance(t, Triple)]
    shown = set(shown_lines)
    main: set[Triple] = set()  # the triples of every chain not left out as a bare compound
    for p in paths:
        main |= p.triples(p.leaves)
    main |= {f for n in {x for t in main for x in (t.subject, t.object)} & set(facts)
             for f in facts[n]}  # fmt: skip
    bare = {t for p in paths for t in p.triples(p.hidden)} - main
    evidence = shown_lines + sorted(main - shown, key=Triple.sort_key)
    evidence += sorted(bare, key=Triple.sort_key)
    return Shown(
        text=text,
        rows=[names.row(t) for t in dict.fromkeys(evidence)],
        names=_answer_names(selection, names, shown_lines)[:MAX_NAMES],
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
) -> tuple[list[tuple[int, Triple | Term]], list[tuple[Group, int, int]]]:
    """Every tree's lines (`Tree.layout`), one topic entity after another, complete chains
    and the best bound relations first; and (group, first line, line count)."""
    topics = list(dict.fromkeys(w.topic for w in walks))
    trees = selection.trees
    groups = sorted(trees, key=lambda g: (topics.index(g[0]), not trees[g].complete, trees[g].rank))
    lines: list[tuple[int, Triple | Term]] = []
    order: list[tuple[Group, int, int]] = []
    for group in groups:
        start = len(lines)
        lines += trees[group].layout(facts)
        order.append((group, start, len(lines) - start))
    return lines, order


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


def _named_hop(step: Step) -> str:
    """A hop in a tree's header: the path's words, else its relation (several: in brackets)."""
    if step.words:
        return f'"{step.words}"'
    if len(step.relations) == 1:
        return step.relations[0]
    return f"[{', '.join(step.relations) or 'nothing walked'}]"


def _text(
    lines: list[tuple[int, Triple | Term]], order: list[tuple[Group, int, int]], names: _Names
) -> list[str]:
    out: list[str] = []
    for (topic, steps), start, count in order:
        out.append(f'Chains from "{topic}" via {" -> ".join(_named_hop(s) for s in steps)}:')
        for depth, item in lines[start : start + count]:
            if isinstance(item, Triple):
                s, p, o = names.row(item)
                out.append(f"{INDENT * depth}({s}, {p}, {o})")
            else:
                out.append(f"{INDENT * depth}[{names.name(item)} {AS_ABOVE}]")
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


def _answer_names(selection: Selection, names: _Names, lines: list[Triple]) -> list[str]:
    ends = [link.target for tree in selection.trees.values() for _, link in tree.leaves()]
    nodes = [n for t in lines for n in (t.subject, t.object)]
    return list(dict.fromkeys(names.named([*ends, *nodes])))


def _left_out(selection: Selection, cap: int, shown: int, total: int) -> list[str]:
    notes = []
    chains, ends = selection.chains, selection.ends
    if selection.chains_shown < chains or shown < total or selection.ends_shown < ends:
        notes.append(
            f"Left out to keep the evidence within {cap} lines, whole chains at a time: "
            f"{chains - selection.chains_shown} of {chains} chains, {total - shown} of "
            f"{total} triples; {ends - selection.ends_shown} of {ends} end nodes are the end "
            "of no chain shown." + (FIRST_WHOLE if selection.first_whole else "")
        )
    if selection.hidden:
        via = ", ".join(selection.hidden_via)
        notes.append(
            f"Not shown: {selection.hidden} chains that end at a compound node with nothing "
            f"beyond it (last relation: {via})."
        )
    return notes
