"""Grouping: the candidates grouped by the relations they follow (`selection="chains"`).

Ten to twenty paths that follow the same relations from the same node are equally valid
answers to one plan ("the films Ann starred in"); picking four of them capped F1 (issue 31).
So one candidate stands for every path of a chain: one pick keeps them all, one verification
checks them all, and the beam width counts chains, which keeps the call bound N·D + D + 2.
A chain keeps one path per end node (the best; the others only reach the same node by other
intermediate nodes) and `chain_cap` paths at most (40: with 20, F1 was 0.91 on MetaQA 3-hop
dev with the gold-chain oracle, 0.98 with 40). With `selection="paths"` every path is
its own candidate (the paper).
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from readi_graph.strategies.fidelis import beams
from readi_graph.strategies.fidelis.beams import Beam

ENDS_SHOWN = 12  # ends named on a chain's second line


def gather(pool: list[Beam], cap: int) -> tuple[list[Beam], int]:
    """The pool (best first) with one path per chain and end node, `cap` per chain; and how
    many distinct ends were left out by the cap."""
    seen: set[tuple[object, ...]] = set()
    taken: Counter[object] = Counter()
    kept, cut = [], 0
    for path in pool:
        chain = beams.chain(path)
        node = path["steps"][-1]["node"]
        key = (chain, node["kind"], node["value"])
        if key in seen:
            continue
        seen.add(key)
        if taken[chain] >= cap:
            cut += 1
            continue
        taken[chain] += 1
        kept.append(path)
    return kept, cut


def groups(paths: list[Beam], selection: Literal["chains", "paths"]) -> list[list[Beam]]:
    """The candidates: one per chain, in the order of their first (best) path; or one per
    path."""
    if selection == "paths":
        return [[p] for p in paths]
    by_chain: dict[object, list[Beam]] = {}
    for path in paths:
        by_chain.setdefault(beams.chain(path), []).append(path)
    return list(by_chain.values())


def text(group: list[Beam]) -> str:
    """A candidate as the prompts show it: its best path, and on a second line how many more
    paths follow the same relations and where they end."""
    first = beams.text(group[0])
    if len(group) == 1:
        return first
    ends = [p["steps"][-1]["label"] for p in group[1:]]
    named = ", ".join(ends[:ENDS_SHOWN])
    more = f" and {len(ends) - ENDS_SHOWN} more" if len(ends) > ENDS_SHOWN else ""
    paths = "path" if len(ends) == 1 else "paths"
    return (
        f"{first}\n   (+{len(ends)} more {paths} by the same relations, ending at: {named}{more})"
    )
