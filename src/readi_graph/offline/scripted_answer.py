"""The offline answer step: a fixed rule that answers a KG answer prompt from what it shows.

Offline runs have no answer model, so `hit1` and F1 would otherwise score whatever order a
fallback list happens to have. This rule stands in for the answer model, reading only the
answer prompt's question and triples (never the gold answers):

1. the triples shown (`(subject, relation, object)` lines) form a graph; the walk starts at
   the topic entity (when the prompt's cut of a long evidence list left out every triple of
   the topic entity, nothing can be placed: the answer is `{}`);
2. the answers are the nodes farthest from the topic entity in that graph (the ends of the
   longest chains shown), the topic entity itself excluded;
3. best supported first: the number of shown triples that link the node to a node one step
   nearer the topic; ties in the order the prompt first shows them.

So offline `hit1` asks "is the best-supported end a gold answer?" and F1 scores the ends as an
answer set. What the rule cannot do, an answer model could: drop ends that a wrongly bound
relation added (no reading of relation names), and find an end that is also nearer the topic
(a director who also acted in the topic film is at one step, not at the end).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection

from readi_graph.core import markers


def shown_triples(prompt: str, relations: Collection[str] = ()) -> list[tuple[str, str, str]]:
    """The triples of the prompt's own "Knowledge Triples" section (after the examples).
    `relations`: the relation names the KG shows, to split a line whose names hold ", "."""
    marker = markers.KNOWLEDGE_TRIPLES
    own = prompt.rsplit(marker, 1)[-1] if marker in prompt else ""
    found = []
    for line in own.splitlines():
        line = line.strip()
        if line.startswith("(") and line.endswith(")"):
            triple = _split(line[1:-1], relations)
            if triple is not None:
                found.append(triple)
    return found


def _split(text: str, relations: Collection[str]) -> tuple[str, str, str] | None:
    parts = text.split(", ")
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    splits = [
        (", ".join(parts[:i]), parts[i], ", ".join(parts[i + 1 :]))
        for i in range(1, len(parts) - 1)
        if parts[i] in relations
    ]
    return splits[0] if len(splits) == 1 else None


def scripted_answers(
    prompt: str, topics: Collection[str], relations: Collection[str] = ()
) -> list[str]:
    """The answers the rule picks (see the module docstring), best supported first."""
    triples = shown_triples(prompt, relations)
    order: dict[str, int] = {}
    around: dict[str, list[str]] = defaultdict(list)
    for subject, _, obj in triples:
        for node, other in ((subject, obj), (obj, subject)):
            order.setdefault(node, len(order))
            around[node].append(other)
    distance = {t: 0 for t in topics if t in around}
    layer = list(distance)
    while layer:
        nxt = []
        for node in layer:
            for other in around[node]:
                if other not in distance:
                    distance[other] = distance[node] + 1
                    nxt.append(other)
        layer = nxt
    far = max((d for d in distance.values() if d > 0), default=0)
    if not far:
        return []

    def support(node: str) -> int:
        return sum(1 for other in around[node] if distance.get(other) == far - 1)

    ends = [n for n, d in distance.items() if d == far]
    return sorted(ends, key=lambda n: (-support(n), order[n]))


RULE = "Scripted answer (offline): the ends of the longest chains shown, best supported first."


def reply(answers: list[str]) -> str:
    """The scripted model's reply, as JSON (a name may hold `|` or braces)."""
    return json.dumps({"thought": RULE, "answers": answers}, ensure_ascii=False)
