"""Evidence as chains: the chains a walk holds, counted and listed (`selection.py` picks
those an answer prompt shows).

A `Walk` is what one path from a topic entity reached: per hop the model's words and the KG
relations walked (`Step`), and the links that connected (`Link`: a stored triple, or two
through a compound node). A chain is a sequence of links from the topic entity to where the
walk ends: the end of the path (complete) or a node nothing went on from (partial).

Chains are counted exactly (a product of fan-outs can be large) and listed lazily, per end
and per tier: a tier is one choice of relation at each hop, ranked by the places those
relations have among the ones their hop walked (binding's order: the relations bound first
for the hop's words before the neighbours binding also followed).
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
Group = tuple[str, tuple[Step, ...]]  # (topic, the path walked): one tree shown
Ranks = tuple[int, ...]  # per link of a chain, its relation's place in its hop (`rank_at`)


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
        self._reached: dict[Ranks, frozenset[Term]] = {(): frozenset(walk.starts)}
        self._ranked: list[list[Ranks]] = [[()]]
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

    def rank(self, chain: Chain) -> tuple[int, Ranks]:
        ranks = tuple(self.rank_at(h, link) for h, link in enumerate(chain))
        return sum(ranks), ranks

    def complete(self, chain: Chain) -> bool:
        return len(chain) == len(self.walk.steps)

    def chains_to(self, leaves: Sequence[tuple[int, Link]]) -> int:
        return sum(self.count[h][link] for h, link in leaves)

    def _reach(self, ranks: Ranks) -> frozenset[Term]:
        """The nodes reached by the chains whose links have `ranks` (empty: the starts)."""
        if ranks not in self._reached:
            before = self._reach(ranks[:-1])
            hop = len(ranks) - 1
            self._reached[ranks] = frozenset(
                link.target
                for link in self.layers[hop]
                if link.source in before and self.rank_at(hop, link) == ranks[-1]
            )
        return self._reached[ranks]

    def _prefixes(self, hops: int) -> list[Ranks]:
        """The rank tuples of length `hops` some chain has (each reaches some node)."""
        while len(self._ranked) <= hops:
            hop = len(self._ranked) - 1
            self._ranked.append([
                (*prefix, r)
                for prefix in self._ranked[-1]
                for r in sorted({self.rank_at(hop, link) for link in self.layers[hop]
                                 if link.source in self._reach(prefix)})
            ])  # fmt: skip
        return self._ranked[hops]

    def tiers(self, leaves: Sequence[tuple[int, Link]]) -> list[tuple[Ranks, Iterator[Chain]]]:
        """The chains ending with `leaves`, split by their ranks: the longest chains first,
        then the best ranked (`rank`); each tier's chains listed lazily."""
        found: dict[Ranks, list[tuple[int, Link]]] = {}
        for hop, leaf in leaves:
            last = self.rank_at(hop, leaf)
            for prefix in self._prefixes(hop):
                if leaf.source in self._reach(prefix):
                    found.setdefault((*prefix, last), []).append((hop, leaf))
        order = sorted(found, key=lambda ranks: (-len(ranks), sum(ranks), ranks))
        return [(ranks, self._chains(found[ranks], ranks)) for ranks in order]

    def _chains(self, leaves: Sequence[tuple[int, Link]], ranks: Ranks) -> Iterator[Chain]:
        """The chains ending with `leaves` whose links have `ranks` (backwards: every link
        followed back reaches the topic entity, none is a dead end)."""

        def back(hop: int, link: Link, tail: Chain) -> Iterator[Chain]:
            chain = (link, *tail)
            if hop == 0:
                yield chain
                return
            before = self._reach(ranks[: hop - 1])
            for previous in self.into[hop - 1].get(link.source, []):
                if previous.source in before and self.rank_at(hop - 1, previous) == ranks[hop - 1]:
                    yield from back(hop - 1, previous, chain)

        for hop, leaf in sorted(leaves, key=lambda hl: tie(hl[1].source)):
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


def group_of(walk: Walk) -> Group:
    """The tree a walk's chains are shown in: one per topic entity and path (the relations
    each link took are in its triple, and each hop's relations in the walked path)."""
    return walk.topic, tuple(walk.steps)
