"""Reading the chains of an answer prompt back (`show.show` writes them): what offline
oracles and tests read, beside the code that writes it, so a change of format fails here."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from readi_graph.environments.kg.answer_evidence.show import AS_ABOVE, INDENT

_HEADER = re.compile(r'^Chains from "(?P<topic>.*)" via (?P<via>.*):$')
_WALKED = re.compile(r'^- from ".*?": ')
_RELATIONS = re.compile(r"\[([^\]]*)\]")


@dataclass(frozen=True)
class Line:
    """One triple line of a chain tree."""

    topic: str
    path: str  # the tree's path, as its header names it
    depth: int  # 0: a triple of the topic entity; d: continues the line above at d - 1
    triple: tuple[str, str, str]
    leaf: bool  # no line continues it: the end of a chain


def relations(text: str) -> list[str]:
    """The KG relations the walked-path lines of `text` name (a compound hop's two apart),
    longest first: how a triple whose names hold ", " is split."""
    found: set[str] = set()
    for raw in text.splitlines():
        if _WALKED.match(raw.strip()):
            for group in _RELATIONS.findall(raw):
                for relation in group.split(", "):
                    found.update(r.removeprefix("<- ").strip() for r in relation.split(" -> "))
    found.discard("nothing walked")
    return sorted(found, key=lambda r: (-len(r), r))


def lines(text: str) -> list[Line]:
    """The triple lines of every tree in `text`, in order (other lines are skipped)."""
    known = relations(text)
    found: list[tuple[str, str, int, tuple[str, str, str] | None]] = []
    topic, path = "", ""
    for raw in text.splitlines():
        header = _HEADER.match(raw.strip())
        if header:
            topic, path = header["topic"], header["via"]
            continue
        body = raw.lstrip(" ")
        depth = (len(raw) - len(body)) // len(INDENT)
        if topic and body.startswith("(") and body.endswith(")"):
            triple = _split(body[1:-1], known)
            if triple is not None:
                found.append((topic, path, depth, triple))
        elif topic and body.startswith("[") and body.endswith(f" {AS_ABOVE}]"):
            found.append((topic, path, depth, None))  # the chain goes on, shown above
        elif body.strip():
            topic = ""  # the trees ended
    return [
        Line(t, p, d, triple, leaf=i + 1 == len(found) or found[i + 1][2] <= d)
        for i, (t, p, d, triple) in enumerate(found)
        if triple is not None
    ]


def _split(text: str, known: list[str]) -> tuple[str, str, str] | None:
    parts = text.split(", ")
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    for relation in known:
        subject, sep, obj = text.partition(f", {relation}, ")
        if sep:
            return subject, relation, obj
    return None


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


def unlinked(
    triples: Sequence[tuple[str, str, str]], topics: Iterable[str]
) -> list[tuple[str, str, str]]:
    """The triples shown that no chain of triples shown links to a topic entity: a prompt
    whose evidence is whole chains has none (what the evidence checks count as broken)."""
    reached, grew = set(topics), True
    while grew:
        grew = False
        for s, _, o in triples:
            if (s in reached) != (o in reached):
                reached |= {s, o}
                grew = True
    return [t for t in triples if t[0] not in reached and t[2] not in reached]
