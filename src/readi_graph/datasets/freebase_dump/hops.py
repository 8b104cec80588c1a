"""The neighbourhood of given entities in a filtered dump: `readi kg freebase --around`.

Breadth-first, one pass over the filtered files per hop, then one pass that writes: the edges
from a node within N-1 hops to a node within N hops (either direction), the literals of the
nodes within N-1 hops, and the names and aliases of every node within N hops. Nodes are held
as 64-bit keys of their IRIs (`dump_lines.span_keys`) in sorted numpy arrays: 8 bytes a node,
never the dump. A hub is expanded to its first `hub_cap` neighbours per hop (in file order);
the output's stats name the hubs that were cut and how many neighbours each had.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from readi_graph.datasets.freebase_dump.filter import DumpFilter
from readi_graph.datasets.freebase_dump.lines import (
    Lines,
    keys_of,
    member,
    select,
    span_keys,
    split_lines,
)
from readi_graph.datasets.freebase_dump.streams import ChunkReader, DumpReadError, PartWriter
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS

HUBS_NAMED = 100  # hubs listed by name in the stats (all are counted)


def seed_terms(path: Path) -> list[bytes]:
    """Entities, one a line: `m.0abc`, `ns:m.0abc`, an IRI, or `<IRI>` (anything after a tab
    or a space, such as a name, is ignored; `#` starts a comment)."""
    terms = []
    for line in path.read_text(encoding="utf-8").splitlines():
        token = line.split("#", 1)[0].strip().split(maxsplit=1)[0] if line.strip() else ""
        if not token:
            continue
        token = token.strip("<>")
        if token.startswith(("ns:", "fb:")):
            token = token[3:]
        iri = token if "://" in token else FREEBASE_NS + token
        terms.append(f"<{iri}>".encode())
    return terms


class _Edges:
    """The keys of one chunk's terms, and which lines are edges between entities."""

    def __init__(self, lines: Lines, texts: np.ndarray) -> None:
        data = lines.data
        self.lines = lines
        self.subjects = span_keys(data, lines.starts, lines.tab1)
        self.objects = span_keys(data, lines.tab2 + 1, lines.tab3)
        predicates = span_keys(data, lines.tab1 + 1, lines.tab2)
        self.text = member(predicates, texts)
        self.entity_object = lines.data[lines.tab2 + 1] == 60  # "<"
        self.edge = ~self.text & self.entity_object


def _chunks(files: Sequence[Path]) -> Iterable[tuple[bytes, Lines]]:
    for chunk in ChunkReader(files):
        lines = split_lines(chunk)
        if lines is None:
            raise DumpReadError("a filtered file has a line that is not `s\\tp\\to\\t.`")
        yield chunk, lines


def neighbourhood(
    files: Sequence[Path],
    seeds: Sequence[bytes],
    hops: int,
    dump_filter: DumpFilter,
    writer: PartWriter,
    *,
    hub_cap: int = 1000,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Write the `hops`-hop neighbourhood of `seeds` found in `files` (filtered output)."""
    texts = dump_filter.text_keys
    layers = [keys_of(seeds)]
    visited = layers[0]
    found = np.zeros(len(layers[0]), dtype=bool)
    per_hop = []
    for hop in range(1, hops + 1):
        frontier = layers[-1]
        counts = np.zeros(len(frontier), dtype=np.int64)
        hubs: dict[int, bytes] = {}
        reached = []
        for chunk, lines in _chunks(files):
            edges = _Edges(lines, texts)
            if hop == 1:
                found |= np.isin(layers[0], np.concatenate((edges.subjects, edges.objects)))
            reached.append(np.unique(_expand(chunk, edges, frontier, counts, hub_cap, hubs)))
            if len(reached) > 32:  # merged now and then: memory holds each node once
                reached = [np.unique(np.concatenate(reached))]
        layer = np.setdiff1d(np.unique(np.concatenate(reached)), visited, assume_unique=True)
        layers.append(layer)
        visited = np.union1d(visited, layer)
        capped = counts > hub_cap
        per_hop.append(
            {
                "hop": hop,
                "new_nodes": len(layer),
                "hubs_capped": int(capped.sum()),
                "hubs": {
                    hubs[k].decode(): int(n)
                    for k, n in zip(frontier[capped].tolist(), counts[capped].tolist(), strict=True)
                    if k in hubs
                },
            }
        )
        if progress:
            progress(f"hop {hop}: {len(layer):,} new nodes, {int(capped.sum())} hubs capped")
    inner = np.setdiff1d(visited, layers[-1], assume_unique=True)
    kept = 0
    for chunk, lines in _chunks(files):
        edges = _Edges(lines, texts)
        keep = _final(edges, inner, visited)
        n = int(keep.sum())
        writer.write(select(chunk, lines, keep), n)
        kept += n
    return {
        "seeds": len(layers[0]),
        "seeds_found": int(found.sum()),
        "hops": hops,
        "hub_cap": hub_cap,
        "nodes": len(visited),
        "lines": kept,
        "per_hop": per_hop,
    }


def _expand(
    chunk: bytes,
    edges: _Edges,
    frontier: np.ndarray,
    counts: np.ndarray,
    cap: int,
    hubs: dict[int, bytes],
) -> np.ndarray:
    """The neighbours of the frontier in this chunk that their node's cap lets through;
    `counts` (neighbours seen per frontier node) and `hubs` (their IRIs) are updated."""
    out_ = np.flatnonzero(edges.edge & member(edges.subjects, frontier))
    in_ = np.flatnonzero(edges.edge & member(edges.objects, frontier))
    line = np.concatenate((out_, in_))
    source = np.concatenate((edges.subjects[out_], edges.objects[in_]))
    target = np.concatenate((edges.objects[out_], edges.subjects[in_]))
    inward = np.concatenate((np.zeros(len(out_), bool), np.ones(len(in_), bool)))
    if not len(line):
        return target
    order = np.argsort(line, kind="stable")  # file order
    line, source, target, inward = line[order], source[order], target[order], inward[order]
    index = np.searchsorted(frontier, source)
    by_node = np.argsort(index, kind="stable")
    sorted_index = index[by_node]
    starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
    rank = np.empty(len(index), dtype=np.int64)
    rank[by_node] = np.arange(len(index)) - np.repeat(starts, np.diff(np.r_[starts, len(index)]))
    before = counts[index]
    accepted = before + rank < cap
    nodes, seen = np.unique(index, return_counts=True)
    counts[nodes] += seen
    crossing = np.flatnonzero(before + rank == cap)  # the first line past a node's cap
    lines = edges.lines
    for i in crossing.tolist()[: max(HUBS_NAMED - len(hubs), 0)]:
        at = int(line[i])
        if inward[i]:
            start, end = int(lines.tab2[at]) + 1, int(lines.tab3[at])
        else:
            start, end = int(lines.starts[at]), int(lines.tab1[at])
        hubs[int(source[i])] = chunk[start:end]
    kept: np.ndarray = target[accepted]
    return kept


def _final(edges: _Edges, inner: np.ndarray, every: np.ndarray) -> np.ndarray:
    """Lines within the neighbourhood (see the module docstring)."""
    s_inner, o_inner = member(edges.subjects, inner), member(edges.objects, inner)
    s_any, o_any = member(edges.subjects, every), member(edges.objects, every)
    walked = edges.edge & ((s_inner & o_any) | (o_inner & s_any))
    literal = ~edges.text & ~edges.entity_object & s_inner
    named = edges.text & s_any
    keep: np.ndarray = walked | literal | named
    return keep
