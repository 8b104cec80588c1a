"""Safe SPARQL text: every value that reaches a query goes through `sparql_term`.

Names and relations come from an LLM, i.e. from untrusted input. They never enter a query as
raw text: IRIs are checked against the SPARQL IRIREF grammar (anything that could close the
`<...>` or start a new clause is refused) and literals are escaped character by character, so
a hostile string can only ever be a value, never syntax. Only SELECT and ASK queries are built.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from readi_graph.core.base import Term, UnsafeQueryInput

T = TypeVar("T")

# IRIREF ::= '<' ([^<>"{}|^`\]-[#x00-#x20])* '>'   (SPARQL 1.1 grammar, rule 139)
_IRI_FORBIDDEN = re.compile(r'[<>"{}|^`\\\x00-\x20]')
_IRI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_LANG = re.compile(r"^[A-Za-z]+(-[A-Za-z0-9]+)*$")


def check_iri(iri: str) -> str:
    """Return `iri` if it is an absolute IRI that is safe inside `<...>`, else raise."""
    if not iri or _IRI_FORBIDDEN.search(iri) or not _IRI_SCHEME.match(iri):
        raise UnsafeQueryInput(f"not a safe absolute IRI: {iri!r}")
    return iri


def is_safe_iri(value: str) -> bool:
    try:
        check_iri(value)
    except UnsafeQueryInput:
        return False
    return True


def as_iri(text: str) -> str | None:
    """The IRI a topic entity names, or None when it is a plain name.

    `<anything:...>` is always meant as an IRI; bare text only when it starts with http(s):// or
    urn: (a name such as "Re:Zero" must not be mistaken for an IRI).
    """
    text = text.strip()
    if text.startswith("<") and text.endswith(">"):
        return text[1:-1]
    if text.startswith(("http://", "https://", "urn:")) and not _IRI_FORBIDDEN.search(text):
        return text
    return None


def iri_ref(iri: str) -> str:
    return f"<{check_iri(iri)}>"


def escape_string(value: str) -> str:
    """Escape a Python string as the body of a SPARQL "..." literal.

    Backslash, quote and line breaks get ECHAR escapes; every other control character (NUL
    included) becomes a UCHAR escape, so the literal is a single well-formed token.
    """
    out: list[str] = []
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return "".join(out)


def literal(value: str, *, datatype: str | None = None, lang: str | None = None) -> str:
    text = f'"{escape_string(value)}"'
    if lang:
        if not _LANG.match(lang):
            raise UnsafeQueryInput(f"not a language tag: {lang!r}")
        return f"{text}@{lang}"
    if datatype:
        return f"{text}^^{iri_ref(datatype)}"
    return text


def sparql_term(term: Term) -> str:
    """Serialize a term for a VALUES block. Blank nodes cannot be named in a query."""
    if term.kind == "iri":
        return iri_ref(term.value)
    if term.kind == "literal":
        return literal(term.value, datatype=term.datatype, lang=term.lang)
    raise UnsafeQueryInput(f"blank node {term.value!r} cannot be referenced in a query")


def values(var: str, items: Iterable[str]) -> str:
    """`VALUES ?var { ... }` over already-serialized terms."""
    return f"VALUES ?{var} {{ {' '.join(items)} }}"


def chunked(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Split a long VALUES list so no single query grows without bound."""
    for start in range(0, len(items), max(1, size)):
        yield items[start : start + size]


def union(branches: Iterable[str]) -> str:
    return " UNION ".join(f"{{ {b} }}" for b in branches)


@dataclass(frozen=True)
class Branch:
    """One relation in one direction from some nodes: a UNION branch of a read.

    `limit` caps the rows this branch alone returns, inside the query, so a hub's million
    edges are never sent (None: all rows). `targets`, when given, keeps only edges that end
    on those nodes (does any of them lie one hop away?)."""

    nodes: tuple[Term, ...]
    relation: str
    forward: bool
    limit: int | None = None
    targets: tuple[Term, ...] = ()


def shared_node(branches: Sequence[Branch]) -> Term | None:
    """The one node every branch reads from, if there is one (a hop from the topic entity,
    a step from one beam end): the rows then need not say which node they come from."""
    nodes = {b.nodes for b in branches}
    return next(iter(nodes))[0] if len(nodes) == 1 and len(branches[0].nodes) == 1 else None


def read_query(branches: Sequence[Branch], limit: int) -> str:
    """One query for many branches. Rows are `?y`, the next node; `?x`, the node read from,
    unless every branch reads from one `shared_node`; `?b`, the branch's position in
    `branches`, when there are several. The relation and direction come from the branch:
    the store never sends them back (on Virtuoso, writing them into every row was a third
    of the cost of a read of thousands of rows; benchmarks/README.md).

    Each relation is a constant in its own branch: with `VALUES ?p` instead, pyoxigraph scans
    every triple (measured 100x slower), while a constant predicate lets any store use its
    index per node. A capped branch is a sub-select with its own LIMIT and no ORDER BY
    (sorting a hub's neighbours costs seconds), so the rows kept are the first ones in the
    store's index order.
    """
    if not branches:
        raise ValueError("read_query needs at least one branch")
    several = len(branches) > 1
    parts = []
    for position, b in enumerate(branches):
        p = iri_ref(b.relation)
        inner = values("x", (sparql_term(n) for n in b.nodes))
        if b.targets:
            inner += " " + values("y", (sparql_term(t) for t in b.targets))
        inner += f" ?x {p} ?y ." if b.forward else f" ?y {p} ?x ."
        if b.limit is not None:
            inner = f"{{ SELECT ?x ?y WHERE {{ {inner} }} LIMIT {int(b.limit)} }}"
        parts.append(f"{inner} BIND({position} AS ?b)" if several else inner)
    head = ("?y" if shared_node(branches) else "?x ?y") + (" ?b" if several else "")
    return f"SELECT {head} WHERE {{ {union(parts)} }} LIMIT {int(limit)}"


def expand_query(
    nodes: Sequence[Term], forward: Sequence[str], backward: Sequence[str], limit: int
) -> str:
    """Every node x every relation, both directions, uncapped per branch (see `read_query`)."""
    if not (forward or backward):
        raise ValueError("expand_query needs at least one relation")
    frontier = tuple(nodes)
    branches = [Branch(frontier, p, True) for p in forward]
    branches += [Branch(frontier, p, False) for p in backward]
    return read_query(branches, limit)


def around_query(
    nodes: Sequence[Term], limit: int, *, per_node: bool = False, counts: bool = False
) -> str:
    """Relations that touch any of `nodes`, with their direction (for edit candidates);
    `per_node` also returns which node (`?x`) each relation touches, `counts` how many edges
    (`?n`) each (node, relation, direction) has: Path-RAG ranks relations before reading any
    edge, so a hub's edges are read only for its best relations."""
    frontier = values("x", (sparql_term(n) for n in nodes))
    keys = f"{'?x ' if per_node or counts else ''}?p ?dir"
    head = f"{keys} (COUNT(*) AS ?n)" if counts else f"DISTINCT {keys}"
    tail = f" GROUP BY {keys}" if counts else ""
    return (
        f"SELECT {head} WHERE {{ "
        f'{{ {frontier} ?x ?p ?y . BIND("f" AS ?dir) }} UNION '
        f'{{ {frontier} ?y ?p ?x . BIND("b" AS ?dir) }} }}{tail} LIMIT {int(limit)}'
    )


def labels_query(nodes: Sequence[Term], label_predicates: Sequence[str]) -> str:
    """Labels of many nodes at once (constant predicates, as in `expand_query`)."""
    branches = (f"?x {iri_ref(p)} ?l ." for p in label_predicates)
    return (
        f"SELECT ?x ?l WHERE {{ {values('x', (sparql_term(n) for n in nodes))} {union(branches)} }}"
    )


def lookup_query(
    names: Sequence[str], label_predicates: Sequence[str], languages: Sequence[str], limit: int
) -> str:
    """Nodes whose label is exactly one of `names` (plain or language-tagged), with the label
    matched. Ordered, so that an endpoint returns the same nodes every time under the limit."""
    candidates = [literal(n) for n in names]
    candidates += [literal(n, lang=lang) for n in names for lang in languages]
    branches = union(f"?x {iri_ref(p)} ?l ." for p in label_predicates)
    return (
        f"SELECT DISTINCT ?x ?l WHERE {{ {values('l', candidates)} {branches} }} "
        f"ORDER BY ?x LIMIT {int(limit)}"
    )


def names_query(
    names: Sequence[str], label_predicates: Sequence[str], languages: Sequence[str]
) -> str:
    """Which of `names` are the label of some node (plain or language-tagged): one row per
    label found, never per node, so a name shared by a million nodes costs one row."""
    candidates = [literal(n) for n in names]
    candidates += [literal(n, lang=lang) for n in names for lang in languages]
    branches = union(f"?x {iri_ref(p)} ?l ." for p in label_predicates)
    return (
        f"SELECT DISTINCT ?l WHERE {{ {values('l', candidates)} {branches} }} "
        f"LIMIT {len(candidates)}"
    )


def degree_query(nodes: Sequence[Term]) -> str:
    """The number of triples touching each node (homonyms are ranked by it)."""
    frontier = values("x", (sparql_term(n) for n in nodes))
    return (
        f"SELECT ?x (COUNT(*) AS ?n) WHERE {{ {frontier} "
        f"{{ ?x ?p ?o }} UNION {{ ?s ?p ?x }} }} GROUP BY ?x"
    )


def facts_query(nodes: Sequence[Term], limit: int) -> str:
    """Outgoing edges of `nodes` to other nodes (not literals), ordered: to tell homonyms apart."""
    frontier = values("x", (sparql_term(n) for n in nodes))
    return (
        f"SELECT ?x ?p ?y WHERE {{ {frontier} ?x ?p ?y . FILTER(isIRI(?y)) }} "
        f"ORDER BY ?x ?p ?y LIMIT {int(limit)}"
    )


def all_labels_query(label_predicates: Sequence[str]) -> str:
    """Every (node, label) pair: a one-off scan for case-insensitive lookup."""
    return f"SELECT ?x ?l WHERE {{ {union(f'?x {iri_ref(p)} ?l .' for p in label_predicates)} }}"


def any_label_query(label_predicates: Sequence[str]) -> str:
    """Whether any node has a label at all (a KG of bare IRIs has none)."""
    return f"ASK {{ {union(f'?x {iri_ref(p)} ?l .' for p in label_predicates)} }}"


def exists_query(node: Term) -> str:
    t = sparql_term(node)
    return f"ASK {{ {{ {t} ?p ?o }} UNION {{ ?s ?p {t} }} }}"
