"""Evidence as chains: the chains a walk holds, counted and listed (`selection.py` picks
those an answer prompt shows).

A `Walk` is what one path from a topic entity reached: per hop the model's words and the KG
relations walked (`Step`), and the links that connected (`Link`: a stored triple, or two
through a compound node). A chain is a sequence of links from the topic entity to where the
walk ends: the end of the path (complete) or a node nothing went on from (partial).

Chains are counted exactly (a product of fan-outs can be large) and listed lazily, per end,
the best ranked first: the relations each hop bound first for its words before the others.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from readi_graph.core.base import Term, Triple


@dataclass(frozen=True)
class Link:
    """One hop of a walk, from `source` to `target`, as stored (`triples`)."""

    source: Term
    target: Term
    triples: tuple[Triple, ...]  # one, or two through a compound node
    relation: str  # as the prompt names it: `name`, or `<- name` walked backwards


@dataclass(frozen=True)
class Step:
    """One hop of a path: the model's words for it and the KG relations it walked."""

    words: str  # "" when the model chose KG relations itself (ToG, FiDeLiS)
    relations: tuple[str, ...]  # walked, as the prompt names them, best bound first


@dataclass
class Walk:
    """A path from one topic entity and what it reached."""

    topic: str
    starts: frozenset[Term]
    steps: list[Step]  # the path, one per hop
    links: list[list[Link]]  # per hop, what connected (shorter than `steps` if it stopped)
    status: str  # what the path reached, in words (the prompt says it)
    answers: bool = True  # its complete chains end at answers (it reached its end)
    ends: frozenset[Term] | None = None  # complete chains must end here (merged answers)


Chain = tuple[Link, ...]
Group = tuple[str, tuple[str, ...]]  # (topic, the relation of each link): one tree shown


def tie(term: Term) -> str:
    """A fixed order for equal chains that is not the alphabet."""
    return hashlib.sha256(f"{term.kind}\x00{term.value}".encode()).hexdigest()


class Paths:
    """The chains of one walk: counted, and listed per end, best ranked first."""

    def __init__(self, walk: Walk, hidden: Callable[[Term], bool]) -> None:
        self.walk = walk
        self.layers: list[list[Link]] = []
        reach = set(walk.starts)
        for links in walk.links:
            layer = [link for link in dict.fromkeys(links) if link.source in reach]
            if not layer:
                break
            self.layers.append(layer)
            reach = {link.target for link in layer}
        # per hop: the links by the node they reach (best ranked first), the chains that
        # end with each link, and the chains that reach each node
        self.into: list[dict[Term, list[Link]]] = []
        self.count: list[dict[Link, int]] = []
        self.at: list[dict[Term, int]] = []
        for h, layer in enumerate(self.layers):
            into: dict[Term, list[Link]] = {}
            count: dict[Link, int] = {}
            at: dict[Term, int] = {}
            for link in layer:
                count[link] = 1 if h == 0 else self.at[h - 1][link.source]
                at[link.target] = at.get(link.target, 0) + count[link]
                into.setdefault(link.target, []).append(link)
            for links in into.values():
                links.sort(key=self._order(h))
            self.into.append(into)
            self.count.append(count)
            self.at.append(at)
        self.leaves: dict[Term, list[tuple[int, Link]]] = {}  # shown ends -> (hop, last link)
        self.hidden: dict[Term, list[tuple[int, Link]]] = {}  # bare compound ends
        last = len(walk.steps) - 1
        for h, layer in enumerate(self.layers):
            onward = (
                {link.source for link in self.layers[h + 1]} if h < len(self.layers) - 1 else set()
            )
            for link in layer:
                if link.target in onward:
                    continue
                if h == last and walk.ends is not None and link.target not in walk.ends:
                    continue
                where = self.hidden if hidden(link.target) else self.leaves
                where.setdefault(link.target, []).append((h, link))

    def _order(self, hop: int) -> Callable[[Link], tuple[int, str]]:
        return lambda link: (self.rank_at(hop, link), tie(link.source))

    def rank_at(self, hop: int, link: Link) -> int:
        """The link's relation's place among those its hop walked (its binding order)."""
        named = self.walk.steps[hop].relations if hop < len(self.walk.steps) else ()
        return named.index(link.relation) if link.relation in named else len(named)

    def rank(self, chain: Chain) -> tuple[int, tuple[int, ...]]:
        ranks = tuple(self.rank_at(h, link) for h, link in enumerate(chain))
        return sum(ranks), ranks

    def complete(self, chain: Chain) -> bool:
        return len(chain) == len(self.walk.steps)

    def chains_to(self, leaves: Sequence[tuple[int, Link]]) -> int:
        return sum(self.count[h][link] for h, link in leaves)

    def chains(self, leaves: Sequence[tuple[int, Link]]) -> Iterator[Chain]:
        """The chains ending with `leaves`, longest and best ranked first (backwards)."""

        def back(hop: int, link: Link, tail: Chain) -> Iterator[Chain]:
            chain = (link, *tail)
            if hop == 0:
                yield chain
                return
            for previous in self.into[hop - 1].get(link.source, []):
                yield from back(hop - 1, previous, chain)

        for hop, leaf in sorted(leaves, key=lambda hl: (-hl[0], self.rank_at(*hl))):
            yield from back(hop, leaf, ())

    def triples(self, ends: Mapping[Term, Sequence[tuple[int, Link]]]) -> set[Triple]:
        """The triples of every chain ending at `ends` (marked backwards from them)."""
        found: set[Triple] = set()
        marked = [{link for end in ends.values() for h, link in end if h == hop}
                  for hop in range(len(self.layers))]  # fmt: skip
        for hop in range(len(self.layers) - 1, -1, -1):
            for link in marked[hop]:
                found.update(link.triples)
                if hop:
                    marked[hop - 1].update(self.into[hop - 1].get(link.source, []))
        return found


def group_of(walk: Walk, chain: Chain) -> Group:
    return walk.topic, tuple(link.relation for link in chain)
