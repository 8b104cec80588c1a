"""Evidence as chains: which walked chains an answer prompt shows when there are too many.

A `Walk` is what one path from a topic entity reached: per hop the model's words and the KG
relations walked (`Step`), and the links that connected (`Link`: a stored triple, or two
through a compound node). A chain is a sequence of links from the topic entity to where the
walk ends: the end of the path (complete) or a node nothing went on from (partial).

Over the cap, whole chains are left out, never single triples, in an order that favours
what supports an answer most: complete chains of a path that reached its end first, then
ends reached by more paths (the intersection of constraints), then chains whose relations
were bound first for their words (the path's own relations before the neighbours binding
also followed: `written_by` walked for "directed by"), then chains naming more of the
question's words, then ends more chains reach. Every
end gets one chain before any end gets a second, so a cut drops supporting chains before it
drops answers; remaining ties go in a fixed order by a hash of the end (not alphabetical: a
cut by name drops the answers late in the alphabet). Chains are counted exactly (a product
of fan-outs can be large) and listed lazily: the cost is the chains shown.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

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


@dataclass
class Selection:
    """The chains shown, by group (in the order first chosen), and what was left out."""

    groups: dict[Group, list[Chain]] = field(default_factory=dict)
    complete: dict[Group, bool] = field(default_factory=dict)
    rank: dict[Group, tuple[int, tuple[int, ...]]] = field(default_factory=dict)
    lines: int = 0
    chains: int = 0  # chains that exist (bare compound ends apart)
    ends: int = 0  # end nodes they reach
    ends_shown: int = 0
    hidden: int = 0  # chains that end at a compound node with nothing beyond it
    hidden_via: tuple[str, ...] = ()  # the relations those chains end with


def select(
    paths: Sequence[Paths],
    cap: int,
    facts: Mapping[Term, int],
    relevance: Callable[[Chain], int] = lambda chain: 0,
) -> Selection:
    """Whole chains in the order of the module docstring while they fit in `cap` lines: a
    triple shown once per tree prefix, and the facts of a compound node (`facts`: how many)
    once per tree. A first chain is shown even if it alone passes the cap. `relevance` (the
    question's words a chain names) orders ends of equal rank."""
    out = Selection()
    queues: dict[tuple[str, str], list[_Queue]] = {}
    for p in paths:
        for end, leaves in p.leaves.items():
            chains = p.chains(leaves)
            queue = _Queue(p, chains, [next(chains)], p.chains_to(leaves))
            queues.setdefault(end.answer_key(), []).append(queue)
            out.chains += queue.count
        out.hidden += sum(p.chains_to(v) for v in p.hidden.values())
        out.hidden_via += tuple(
            r for r in dict.fromkeys(link.relation for v in p.hidden.values() for _, link in v)
            if r not in out.hidden_via
        )  # fmt: skip
    out.ends = len(queues)
    ranked = sorted(queues, key=lambda key: _order(queues[key], relevance))
    shown: dict[Group, set[tuple[Triple, ...]]] = {}
    faceted: dict[Group, set[Term]] = {}
    reached: set[tuple[str, str]] = set()
    skipped, moved = 0, True
    while moved and out.lines < cap and skipped <= cap:
        moved = False
        for key in ranked:
            for queue in queues[key]:
                chain = queue.next()
                if chain is None:
                    continue
                moved = True
                group = group_of(queue.paths.walk, chain)
                prefixes = shown.setdefault(group, set())
                seen = faceted.setdefault(group, set())
                flat = tuple(t for link in chain for t in link.triples)
                new = [flat[: i + 1] for i in range(len(flat)) if flat[: i + 1] not in prefixes]
                nodes = {n for t in flat for n in (t.subject, t.object) if facts.get(n)} - seen
                cost = len(new) + sum(facts[n] for n in nodes)
                if out.lines and out.lines + cost > cap:
                    skipped += 1
                    continue
                prefixes.update(new)
                seen.update(nodes)
                out.lines += cost
                out.groups.setdefault(group, []).append(chain)
                out.complete[group] = queue.paths.complete(chain)
                out.rank.setdefault(group, queue.paths.rank(chain))
                reached.add(key)
                if out.lines >= cap:
                    break
            if out.lines >= cap:
                break
    out.ends_shown = len(reached)
    return out


@dataclass
class _Queue:
    """The chains of one walk to one end, listed lazily."""

    paths: Paths
    chains: Iterator[Chain]
    buffer: list[Chain]
    count: int

    def next(self) -> Chain | None:
        return self.buffer.pop() if self.buffer else next(self.chains, None)


def _order(queues: Sequence[_Queue], relevance: Callable[[Chain], int]) -> tuple[object, ...]:
    """Where an end stands (module docstring): offered by a path that reached its end, by how
    many paths, the best rank of its first chains, the question's words they name, how many
    chains reach it, a fixed tie."""
    first = [(q.paths, q.buffer[0]) for q in queues]
    offered = [(p, c) for p, c in first if p.walk.answers and p.complete(c)]
    best = min(p.rank(c) for p, c in offered or first)
    named = max(relevance(c) for _, c in offered or first)
    end = first[0][1][-1].target
    return (not offered, -len(offered), best, -named, -sum(q.count for q in queues), tie(end))
