"""What leads on from the candidates of a depth: the relations that leave each one, shown in
the entity-scoring prompt so the model sees which candidates the question can go on from (a
film with no `in_language` cannot answer "in which languages"), and counted for entity
pruning's tie-break. One bounded query for all the candidates of a depth (`Explorer`).
"""

from __future__ import annotations

from collections.abc import Sequence

from readi_graph.core.base import Term
from readi_graph.environments.kg.explore import Explorer, RelationCount, Similarity
from readi_graph.environments.kg.reasoning.records import term_from
from readi_graph.strategies.tog.state import Pair, Tail

Around = dict[Term, list[RelationCount]]

SHOWN = (
    "Each candidate lists the relations that leave it, most similar to the question first, "
    "with how many edges each has (`<-` points into it; `+N more`: relations not listed), so "
    "you can see which candidates the question can go on from."
)
LAST = "This is the search's last depth: nothing is explored beyond the candidates kept."


def around(explorer: Explorer, rows: Sequence[Sequence[Tail]]) -> Around:
    """The relations (and directions, with edge counts) leaving every candidate node that is
    not a value: one query for the depth."""
    nodes = [term_from(r["node"]) for group in rows for r in group]
    wanted = list(dict.fromkeys(n for n in nodes if n.kind != "literal"))
    return explorer.relations(wanted) if wanted else {}


def way_back(row: Tail, pair: Pair) -> tuple[str, bool]:
    """The relation and direction that lead from a candidate back where it was reached from
    (through its compound node when it has one)."""
    via = row.get("via")
    if via:
        return str(via["relation"]), not via["forward"]
    return str(pair["relation"]), not pair["forward"]


def line(
    explorer: Explorer,
    row: Tail,
    pair: Pair,
    found: Around,
    similarity: Similarity,
    shown: int,
) -> str:
    """`: rel (n), <- rel (n), +k more` after a candidate's name: at most `shown` relations,
    the way back left out when it leads only back (one edge)."""
    node = term_from(row["node"])
    if node.kind == "literal":
        return ": a value"
    back = way_back(row, pair)
    pairs = [(r, f, n) for r, f, n in found.get(node, []) if not ((r, f) == back and n <= 1)]
    if not pairs:
        return ": nothing leads on"
    score = {r: similarity.relation(r) for r, _, _ in pairs}
    pairs.sort(key=lambda p: (-score[p[0]], explorer.relation_name(p[0]), not p[1]))
    parts = [f"{'' if f else '<- '}{explorer.relation_name(r)} ({n})" for r, f, n in pairs[:shown]]
    more = len(pairs) - shown
    return ": " + ", ".join(parts) + (f", +{more} more" if more > 0 else "")


def counts(found: Around) -> dict[Term, int]:
    """How many relations (and directions) leave each node: the pruning tie-break, as
    `search.onward` counts it."""
    return {n: len(pairs) for n, pairs in found.items()}
