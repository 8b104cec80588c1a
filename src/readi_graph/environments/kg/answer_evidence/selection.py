"""Which chains an answer prompt shows when there are too many, and how they are laid out.

Over the cap, whole chains are left out, never single triples, tier by tier:
1. complete chains of a path that reached its end come first (partial chains, and chains of
   a path that stopped, after them);
2. within that, chains whose relations were bound first for their words (binding's order
   at each hop: the path's own relations before the neighbours binding also followed,
   `written_by` walked for "directed by", `has_tags` for "has genre"): a neighbour
   relation's chains are shown only once every chain of the relations bound before it is
   shown (or the cap is reached);
3. within a tier, every end gets one chain before any end gets a second (ends reached by
   more paths first, the intersection of constraints; then ends whose chains name more of
   the question's words; then ends more chains reach), so a cut drops supporting chains
   before it drops answers. Remaining ties go in a fixed order by a hash of the end (not
   alphabetical: a cut by name drops the answers late in the alphabet).

The chains of one topic entity and path are shown as one `Tree` of triples, whatever
relations each hop took (each triple names its own): a node reached at the same hop by
several chains is continued once, where it first appears, and its other appearances say so
(a film two actors of the topic film starred in, or a director reached by `directed_by` and
`written_by`, is not listed twice with everything after it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from readi_graph.core.base import Term, Triple
from readi_graph.environments.kg.answer_evidence.chains import (
    Chain,
    Group,
    Link,
    Paths,
    Ranks,
    group_of,
    tie,
)

Key = tuple[int, Term]  # a node at the end of a hop
Key2 = tuple[str, str]  # an end node, as answers are compared (`Term.answer_key`)


class Tree:
    """The chains of one group as shown; `lines` counts what the prompt shows of them: each
    link's triples once, one "as above" line per further way into a continued node, and a
    compound node's facts once."""

    def __init__(self, facts: Mapping[Term, int], complete: bool, rank: object) -> None:
        self.facts, self.complete, self.rank = facts, complete, rank
        self.links: dict[tuple[int, Link], None] = {}
        self.roots: list[Link] = []
        self.children: dict[Key, list[Link]] = {}
        self.into: Counter[Key] = Counter()
        self.faceted: set[Term] = set()
        self.lines = 0

    def cost(self, chain: Chain) -> int:
        return self._apply(chain, dry=True)

    def add(self, chain: Chain) -> None:
        self.lines += self._apply(chain, dry=False)

    def _apply(self, chain: Chain, *, dry: bool) -> int:
        new = [(h, link) for h, link in enumerate(chain) if (h, link) not in self.links]
        into = Counter((h, link.target) for h, link in new)
        parents = {(h, chain[h].target) for h in range(len(chain) - 1)}
        lines = sum(len(link.triples) for _, link in new)
        for key in set(into) | parents:  # the "as above" lines: ways in past the first
            if key in parents or key in self.children:
                before = max(self.into[key] - 1, 0) if key in self.children else 0
                lines += max(self.into[key] + into[key] - 1, 0) - before
        named = {n for _, link in new for t in link.triples for n in (t.subject, t.object)}
        fresh = {n for n in named if self.facts.get(n)} - self.faceted
        lines += sum(self.facts[n] for n in fresh)
        if not dry:
            for h, link in new:
                self.links[(h, link)] = None
                self.into[(h, link.target)] += 1
                if h == 0:
                    self.roots.append(link)
                else:
                    self.children.setdefault((h - 1, link.source), []).append(link)
            self.faceted |= fresh
        return lines

    def layout(self, facts: Mapping[Term, Sequence[Triple]]) -> list[tuple[int, Triple | Term]]:
        """The lines shown, depth-first in the order chosen: (depth, triple), a compound
        node's facts one deeper under its first triple, and (depth, node) where a node
        already continued above is reached again."""
        lines: list[tuple[int, Triple | Term]] = []
        expanded: set[Key] = set()
        faceted: set[Term] = set()

        def visit(hop: int, links: list[Link], depth: int) -> None:
            for link in links:
                d = depth
                for t in link.triples:
                    lines.append((d, t))
                    for node in (t.subject, t.object):
                        if facts.get(node) and node not in faceted:
                            faceted.add(node)
                            lines.extend((d + 1, f) for f in facts[node])
                    d += 1
                key = (hop, link.target)
                if key in self.children and key in expanded:
                    lines.append((d, link.target))
                elif key in self.children:
                    expanded.add(key)
                    visit(hop + 1, self.children[key], d)

        visit(0, self.roots, 0)
        return lines

    def leaves(self) -> list[tuple[int, Link]]:
        """The links shown that nothing shown continues: the ends of the chains shown."""
        return [(h, link) for h, link in self.links if (h, link.target) not in self.children]

    def chains(self) -> int:
        """How many chains the tree shows (every way from a root to a leaf)."""
        count: dict[tuple[int, Link], int] = {}
        for h, link in self.links:  # in insertion order: a link after the one it continues
            count[(h, link)] = 1 if h == 0 else 0
        for h, link in sorted(self.links, key=lambda hl: hl[0]):
            for child in self.children.get((h, link.target), []):
                count[(h + 1, child)] += count[(h, link)]
        return sum(count[leaf] for leaf in self.leaves())


@dataclass
class Selection:
    """The trees shown, by group (in the order first chosen), and what was left out."""

    trees: dict[Group, Tree] = field(default_factory=dict)
    lines: int = 0
    chains: int = 0  # chains that exist (bare compound ends apart)
    chains_shown: int = 0
    ends: int = 0  # end nodes they reach
    ends_shown: int = 0
    hidden: int = 0  # chains that end at a compound node with nothing beyond it
    hidden_via: tuple[str, ...] = ()  # the relations those chains end with
    first_whole: bool = False  # every complete chain on each hop's first relation is shown


def select(
    paths: Sequence[Paths],
    cap: int,
    facts: Mapping[Term, int],
    relevance: Callable[[Chain], int] = lambda chain: 0,
) -> Selection:
    """Whole chains in the order of the module docstring while their trees fit in `cap`
    lines (`Tree.lines`; `facts`: how many facts each compound node has). A first chain is
    shown even if it alone passes the cap. `relevance` (the question's words a chain names)
    orders ends of equal rank."""
    out = Selection()
    tiers: dict[tuple[bool, int, Ranks], dict[Key2, list[_Queue]]] = {}
    firsts: dict[Key2, list[_Queue]] = {}  # per end, the best tier of each walk to it
    for p in paths:
        for end, leaves in p.leaves.items():
            key = end.answer_key()
            for i, (ranks, chains) in enumerate(p.tiers(leaves)):
                queue = _Queue(p, chains, [next(chains)], p.chains_to(leaves))
                offered = p.walk.answers and len(ranks) == len(p.walk.steps)
                bucket = tiers.setdefault((not offered, sum(ranks), ranks), {})
                bucket.setdefault(key, []).append(queue)
                if i == 0:
                    firsts.setdefault(key, []).append(queue)
                    out.chains += queue.count
        out.hidden += sum(p.chains_to(v) for v in p.hidden.values())
        out.hidden_via += tuple(
            r for r in dict.fromkeys(link.relation for v in p.hidden.values() for _, link in v)
            if r not in out.hidden_via
        )  # fmt: skip
    out.ends = len(firsts)
    place = {k: i for i, k in enumerate(sorted(firsts, key=lambda k: _order(firsts[k], relevance)))}
    skipped = 0
    for tier in sorted(tiers):
        queues = [q for k in sorted(tiers[tier], key=place.__getitem__) for q in tiers[tier][k]]
        moved, before = True, skipped
        while moved and out.lines < cap and skipped <= cap:
            moved = False
            for queue in queues:
                chain = queue.next()
                if chain is None:
                    continue
                moved = True
                group = group_of(queue.paths.walk)
                tree = out.trees.get(group) or Tree(
                    facts, queue.paths.complete(chain), queue.paths.rank(chain)
                )
                cost = tree.cost(chain)
                if out.lines and out.lines + cost > cap:
                    skipped += 1
                    continue
                tree.add(chain)
                out.trees[group] = tree
                out.lines += cost
                if out.lines >= cap:
                    break
        if tier[:2] == (False, 0):  # the complete chains on each hop's first relation
            out.first_whole = skipped == before and all(q.done for q in queues)
    out.chains_shown = sum(tree.chains() for tree in out.trees.values())
    out.ends_shown = len(
        {link.target.answer_key() for tree in out.trees.values() for _, link in tree.leaves()}
    )
    return out


@dataclass
class _Queue:
    """The chains of one walk to one end in one tier, listed lazily; `count`: the chains of
    the walk to that end in every tier."""

    paths: Paths
    chains: Iterator[Chain]
    buffer: list[Chain]
    count: int
    done: bool = False  # every chain was listed

    def next(self) -> Chain | None:
        chain = self.buffer.pop() if self.buffer else next(self.chains, None)
        self.done = chain is None
        return chain


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
