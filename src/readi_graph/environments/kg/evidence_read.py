"""Reading the chains of an answer prompt back (`evidence.show` writes them): what offline
oracles and tests read, beside the code that writes it, so a change of format fails here."""

from __future__ import annotations

import re
from dataclasses import dataclass

from readi_graph.environments.kg.evidence import AS_ABOVE, INDENT

_HEADER = re.compile(r'^Chains from "(?P<topic>.*)" via (?P<via>.*):$')


@dataclass(frozen=True)
class Line:
    """One triple line of a chain tree."""

    topic: str
    relations: tuple[str, ...]  # of the tree's chains, as its header names them
    depth: int  # 0: a triple of the topic entity; d: continues the line above at d - 1
    triple: tuple[str, str, str]
    leaf: bool  # no line continues it: the end of a chain


def lines(text: str) -> list[Line]:
    """The triple lines of every tree in `text`, in order (other lines are skipped)."""
    found: list[tuple[str, tuple[str, ...], int, tuple[str, str, str] | None]] = []
    topic, relations = "", ()
    for raw in text.splitlines():
        header = _HEADER.match(raw.strip())
        if header:
            topic, relations = header["topic"], tuple(header["via"].split(" -> "))
            continue
        body = raw.lstrip(" ")
        depth = (len(raw) - len(body)) // len(INDENT)
        if topic and body.startswith("(") and body.endswith(")"):
            relation = relations[depth].removeprefix("<- ") if depth < len(relations) else None
            triple = _split(body[1:-1], relation)
            if triple is not None:
                found.append((topic, relations, depth, triple))
        elif topic and body.startswith("[") and body.endswith(f" {AS_ABOVE}]"):
            found.append((topic, relations, depth, None))  # the chain goes on, shown above
        elif body.strip():
            topic = ""  # the trees ended
    return [
        Line(t, r, d, triple, leaf=i + 1 == len(found) or found[i + 1][2] <= d)
        for i, (t, r, d, triple) in enumerate(found)
        if triple is not None
    ]


def _split(text: str, relation: str | None) -> tuple[str, str, str] | None:
    if relation:
        subject, sep, obj = text.partition(f", {relation}, ")
        if sep:
            return subject, relation, obj
    parts = text.split(", ")
    return (parts[0], parts[1], parts[2]) if len(parts) == 3 else None


def ends(text: str) -> list[str]:
    """The node each chain ends at, in the order shown: the node of its last triple that
    the triple before it (or the topic entity) does not hold."""
    out: list[str] = []
    parents: dict[int, tuple[str, ...]] = {}
    for line in lines(text):
        s, _, o = line.triple
        before = parents.get(line.depth - 1, ()) if line.depth else (line.topic,)
        parents[line.depth] = (s, o)
        if line.leaf:
            out.append(o if s in before or o not in before else s)
    return out
