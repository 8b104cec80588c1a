"""Where a question's answers are in its subgraph: present at all, and how far from a topic.

RoG and FiDeLiS call the shortest paths (edges followed either way) from a question entity to
an answer entity its "ground paths", and FiDeLiS evaluates only the questions that have one.
We report both figures per question instead of filtering: `answer_in_subgraph` (a gold answer
is the name of a node of the subgraph, compared as the scorer compares answers) and
`answer_hops` (the length of the shortest such path, None when no topic reaches an answer).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from readi_graph.eval.metrics import normalize

Triple = tuple[str, str, str]


@dataclass(frozen=True)
class Step:
    """One edge of a ground path: from `node` over `relation`, forwards (head to tail) or not."""

    node: str
    relation: str
    forward: bool
    to: str


def answer_nodes(triples: Iterable[Triple], answers: Sequence[str]) -> set[str]:
    """The nodes whose name is a gold answer (after the scorer's normalisation)."""
    wanted = {n for n in map(normalize, answers) if n}
    found: set[str] = set()
    for head, _, tail in triples:
        for node in (head, tail):
            if node not in found and normalize(node) in wanted:
                found.add(node)
    return found


def ground_paths(
    triples: Sequence[Triple], topics: Sequence[str], answers: set[str], *, limit: int = 20
) -> list[list[Step]]:
    """Up to `limit` shortest paths from a topic node to an answer node, edges followed in
    either direction (empty when no topic reaches an answer, or a topic is an answer)."""
    adjacent: dict[str, list[tuple[str, bool, str]]] = defaultdict(list)
    for head, relation, tail in triples:
        adjacent[head].append((relation, True, tail))
        adjacent[tail].append((relation, False, head))
    starts = [t for t in dict.fromkeys(topics) if t in adjacent]
    depth = {t: 0 for t in starts}
    parents: dict[str, list[Step]] = defaultdict(list)
    queue = deque(starts)
    reached: list[str] = []
    while queue:
        node = queue.popleft()
        if reached and depth[node] >= depth[reached[0]]:
            break  # every node of the shortest distance is found
        for relation, forward, other in adjacent[node]:
            if other not in depth:
                depth[other] = depth[node] + 1
                queue.append(other)
                if other in answers:
                    reached.append(other)
            if depth[other] == depth[node] + 1:
                parents[other].append(Step(node, relation, forward, other))
    paths: list[list[Step]] = []
    for end in dict.fromkeys(reached):
        _unwind(end, parents, [], paths, limit)
        if len(paths) >= limit:
            break
    return paths[:limit]


def _unwind(
    node: str, parents: dict[str, list[Step]], tail: list[Step], out: list[list[Step]], limit: int
) -> None:
    if len(out) >= limit:
        return
    if not parents.get(node):
        out.append(list(reversed(tail)))
        return
    for step in dict.fromkeys(parents[node]):
        _unwind(step.node, parents, [*tail, step], out, limit)


@dataclass(frozen=True)
class SubgraphFacts:
    """What one question's subgraph holds of its answers (see the module docstring)."""

    triples: int
    malformed: int
    answer_in_subgraph: bool
    answer_hops: int | None

    def record(self) -> dict[str, object]:
        out: dict[str, object] = {
            "subgraph_triples": self.triples,
            "answer_in_subgraph": self.answer_in_subgraph,
            "answer_hops": self.answer_hops,
        }
        if self.malformed:
            out["subgraph_malformed"] = self.malformed
        return out


def subgraph_facts(
    triples: Sequence[Triple],
    topics: Sequence[str],
    answers: Sequence[str],
    malformed: int = 0,
    walkable: Sequence[Triple] | None = None,
) -> SubgraphFacts:
    """Whether an answer is a node of the subgraph (any triple), and how far it is from a
    topic over the `walkable` triples (default all; bookkeeping relations such as
    `common.topic.notable_types` are never walked)."""
    ends = answer_nodes(triples, answers)
    hops: int | None = None
    if ends & set(topics):
        hops = 0
    elif ends:
        paths = ground_paths(triples if walkable is None else walkable, topics, ends, limit=1)
        hops = len(paths[0]) if paths else None
    return SubgraphFacts(len(triples), malformed, bool(ends), hops)
