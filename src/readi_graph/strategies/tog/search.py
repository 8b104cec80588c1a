"""ToG's environment steps, no model involved: where the search starts, the relations around
the frontier, the tails of the kept relations, and entity pruning.

Every step asks the KG through `Explorer` (one bounded query per question asked, whatever the
number of frontier entities). Where the official code departs from what a KG needs:
- a compound node (a Freebase CVT, a Wikidata statement) is walked through: its named facts
  become the candidates, shown with the relation that leads to them, instead of one
  "UnName_Entity" candidate;
- tails are read with a LIMIT inside the query (`READ_FACTOR` x `max_candidates` per entity
  and relation), then, past `max_candidates`, ranked by similarity to the question (dense when
  available) with ties in a seeded order, where the official code samples 5 of 20+ at random;
- a walk does not come back to a topic entity after the first depth (`KGSettings.revisit_topic`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from readi_graph.core.base import Term, Triple
from readi_graph.core.text import local_name
from readi_graph.environments.kg.explore import COMPOUND, Explorer, Reach, Similarity
from readi_graph.environments.kg.reasoning.records import term_from, term_record
from readi_graph.strategies.tog.state import (
    Candidate,
    FrontierEntity,
    ListedRelation,
    Pair,
    Tail,
    TermRecord,
)

READ_FACTOR = 10  # tails read per (entity, relation): READ_FACTOR x max_candidates


def tie(seed: int, term: TermRecord | Term) -> str:
    """A seeded, stable order for equal scores (not Python's salted `hash`)."""
    value = term.value if isinstance(term, Term) else str(term["value"])
    return hashlib.sha256(f"{seed}\x00{value}".encode()).hexdigest()


def starts(explorer: Explorer, topics: Sequence[str]) -> tuple[list[FrontierEntity], list[str]]:
    """One frontier entity per topic entity, its best-connected node; notes on the others."""
    frontier: list[FrontierEntity] = []
    notes: list[str] = []
    for topic in topics:
        found = explorer.resolve(topic)
        if not found.nodes:
            notes.append(f'"{topic}" is not in the knowledge graph.')
            continue
        node = found.nodes[0]
        if len(found.nodes) > 1:
            notes.append(
                f'"{topic}" names {found.matched or len(found.nodes)} nodes; the search starts '
                "from the best connected one."
            )
        name = explorer.names([node])[node]
        frontier.append({"node": term_record(node), "name": name, "path": name, "topic": topic})
    return frontier, notes


def listings(
    explorer: Explorer, frontier: Sequence[FrontierEntity], similarity: Similarity
) -> list[list[ListedRelation]]:
    """The relations around each frontier entity, both directions, most similar to the
    question first: `{"relation", "forward", "name", "edges"}`, `name` as the prompt shows it
    (`<- name` against the relation's direction), unique per entity."""
    nodes = [term_from(e["node"]) for e in frontier]
    counts = explorer.relations(nodes)
    out = []
    for node in nodes:
        rows: list[ListedRelation] = []
        for relation, forward, n in counts.get(node, []):
            name = explorer.relation_name(relation)
            shown = name if forward else f"<- {name}"
            rows.append({"relation": relation, "forward": forward, "edges": n, "name": shown})
        score = {r["relation"]: similarity.relation(r["relation"]) for r in rows}
        rows.sort(key=lambda r: (-score[r["relation"]], r["name"], r["relation"]))
        seen: set[str] = set()
        for r in rows:  # two relations with one label: told apart by their ids
            if r["name"] in seen:
                r["name"] += f" [{local_name(r['relation'])}]"
            seen.add(r["name"])
        out.append(rows)
    return out


def tails(
    explorer: Explorer,
    frontier: Sequence[FrontierEntity],
    pairs: Sequence[Pair],
    *,
    cap: int,
    seed: int,
    avoid: set[Term],
    similarity: Similarity,
    rank: bool,
) -> tuple[list[list[Tail]], bool]:
    """The candidate tails of each kept (entity, relation) `pair`, in order (by `similarity`
    to the question when `rank` or when more than `cap`, else in the seeded order), at most
    `cap`; and whether any pair had more. Nodes in `avoid` are never candidates."""
    read = READ_FACTOR * cap
    sources = [term_from(frontier[p["entity"]]["node"]) for p in pairs]
    requests = [
        Reach((s,), p["relation"], p["forward"], read + 1)
        for s, p in zip(sources, pairs, strict=True)
    ]
    expansion = explorer.reach(requests)
    reached: dict[tuple[Term, str, bool], list[Term]] = {}
    for e in expansion.edges:
        reached.setdefault((e.source, e.relation, e.forward), []).append(e.target)
    capped = expansion.truncated
    found: list[list[Term]] = []
    for s, p in zip(sources, pairs, strict=True):
        targets = list(dict.fromkeys(reached.get((s, p["relation"], p["forward"]), [])))
        capped |= len(targets) > read
        found.append(targets[:read])
    names = explorer.names(t for targets in found for t in targets)
    through = _walk_through(explorer, sources, found, names, cap)
    out: list[list[Tail]] = []
    for j, targets in enumerate(found):
        rows: list[Tail] = []
        for t in targets:
            if names[t] == COMPOUND:
                rows += through.get((j, t), [])
            else:
                rows.append({"node": term_record(t), "name": names[t], "via": None})
        rows = _unique([r for r in rows if term_from(r["node"]) not in avoid])
        capped |= len(rows) > cap
        ranked = _ranked(rows, similarity if rank or len(rows) > cap else None, seed)
        out.append(ranked[:cap])
    return out, capped


def _walk_through(
    explorer: Explorer,
    sources: Sequence[Term],
    found: Sequence[Sequence[Term]],
    names: dict[Term, str],
    cap: int,
) -> dict[tuple[int, Term], list[Tail]]:
    """The candidates behind each compound tail: its facts to literals and named nodes, the
    way back to the source left out (three queries for all compound tails)."""
    compounds = sorted({t for ts in found for t in ts if names[t] == COMPOUND}, key=Term.sort_key)
    if not compounds:
        return {}
    facts = explorer.compound_facts(compounds, per_node=cap + 2)
    shown = explorer.names(x for f in facts for x in (f.subject, f.object))
    out: dict[tuple[int, Term], list[Tail]] = {}
    for j, source in enumerate(sources):
        for cvt in found[j]:
            if names[cvt] != COMPOUND:
                continue
            rows = out.setdefault((j, cvt), [])
            for f in facts:
                forward = f.subject == cvt
                if not forward and f.object != cvt:
                    continue
                target = f.object if forward else f.subject
                if target == source or shown.get(target, COMPOUND) == COMPOUND:
                    continue
                name = explorer.relation_name(f.predicate)
                rows.append({
                    "node": term_record(target), "name": shown[target],
                    "via": {"node": term_record(cvt), "relation": f.predicate,
                            "forward": forward, "name": name if forward else f"<- {name}"},
                })  # fmt: skip
    return out


def _unique(rows: list[Tail]) -> list[Tail]:
    seen: set[tuple[str, str]] = set()
    kept = []
    for r in rows:
        key = (r["node"]["kind"], r["node"]["value"])
        if key not in seen:
            seen.add(key)
            kept.append(r)
    return kept


def _ranked(rows: list[Tail], similarity: Similarity | None, seed: int) -> list[Tail]:
    scores = similarity.names([r["name"] for r in rows]) if similarity else [0.0] * len(rows)
    order = sorted(range(len(rows)), key=lambda i: (-scores[i], tie(seed, rows[i]["node"])))
    return [rows[i] for i in order]


def tied(candidates: Sequence[Candidate], width: int) -> list[Term]:
    """The entities whose order decides which `width` are kept: those scored like the
    width-th best node, when more nodes than that share its score (none otherwise)."""
    best: dict[Term, float] = {}
    for c in candidates:
        node = term_from(c["node"])
        best[node] = max(best.get(node, 0.0), c["score"])
    scores = sorted(best.values(), reverse=True)
    if len(scores) <= width or scores[width - 1] <= 0 or scores[width] != scores[width - 1]:
        return []
    edge = scores[width - 1]
    return [n for n, s in best.items() if s == edge and n.kind != "literal"]


def onward(explorer: Explorer, nodes: Sequence[Term]) -> dict[Term, int]:
    """How many relations (and directions) lead on from each node: one query for all."""
    return {n: len(pairs) for n, pairs in explorer.relations(nodes, counted=False).items()}


def prune(
    candidates: Sequence[Candidate], width: int, leads: dict[Term, int] | None = None
) -> list[Candidate]:
    """Entity pruning, no call: the `width` best by score (relation x entity), a node kept
    once, zero scores dropped. Equal scores: the entity more relations lead on from first (a
    dead end cannot continue the search; `leads`, from `onward`), then candidate order."""
    leads = leads or {}

    def rank(i: int) -> tuple[float, int, int]:
        c = candidates[i]
        return (-c["score"], -leads.get(term_from(c["node"]), 0), i)

    kept: list[Candidate] = []
    seen: set[tuple[str, str]] = set()
    for i in sorted(range(len(candidates)), key=rank):
        c = candidates[i]
        key = (c["node"]["kind"], c["node"]["value"])
        if c["score"] <= 0 or len(kept) == width:
            break
        if key not in seen:
            seen.add(key)
            kept.append(c)
    return kept


def also_tied(candidates: Sequence[Candidate], kept: Sequence[Candidate]) -> list[Candidate]:
    """The candidates scored like the last of `kept` (above 0) that were not kept: equally
    valid, cut only by the width. Each node once, in candidate order."""
    if not kept or kept[-1]["score"] <= 0:
        return []
    edge = kept[-1]["score"]
    seen = {(c["node"]["kind"], c["node"]["value"]) for c in kept}
    out = []
    for c in candidates:
        key = (c["node"]["kind"], c["node"]["value"])
        if c["score"] == edge and key not in seen:
            seen.add(key)
            out.append(c)
    return out


def triples(kept: Candidate) -> list[Triple]:
    """The stored triples behind one kept candidate (two through a compound node)."""
    source, relation, forward = term_from(kept["source"]), kept["relation"], kept["forward"]
    node, via = term_from(kept["node"]), kept.get("via")
    first = term_from(via["node"]) if via else node
    out = [Triple(source, relation, first) if forward else Triple(first, relation, source)]
    if via:
        rel = via["relation"]
        out.append(Triple(first, rel, node) if via["forward"] else Triple(node, rel, first))
    return out


def path_text(kept: Candidate) -> str:
    """`Topic -> relation -> Entity -> <- relation -> Entity`: how a kept entity was reached."""
    via = kept.get("via")
    middle = f" -> {COMPOUND} -> {via['name']}" if via else ""
    return f"{kept['path']} -> {kept['relation_name']}{middle} -> {kept['name']}"
