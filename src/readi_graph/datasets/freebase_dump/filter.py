"""What a filter of the Freebase dump keeps, decided for a whole chunk at once.

Kept: triples whose predicate is a relation of the inventory (by default the 20,951
relations of `fb_relations_domain_range_label.json`) minus bookkeeping (`type.`, `common.`,
`freebase.`, `kg.`: types, keys, notable types, descriptions), and the English names and
aliases (`type.object.name`, `common.topic.alias`) that the Freebase preset reads. Dropped:
every other predicate (`rdf:type`, `rdfs:label`, the `key/` namespace, ...) and any literal in
another language. CVT nodes need nothing special: they have no name, and their edges are
inventory relations like any other.

Duplicate lines are passed through: both loaders store a set of triples, so a line written
twice is loaded once (removing them here would take memory that grows with the dump).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from readi_graph.datasets.freebase_dump.lines import (
    KEY_BYTES,
    Lines,
    keys_of,
    literal_language_ok,
    member,
    select,
    span_keys,
    split_lines,
    tail_keys,
    tails_of,
)
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS

BOOKKEEPING = ("type.", "common.", "freebase.", "kg.")
TEXTS = ("type.object.name", "common.topic.alias")


@dataclass
class Counts:
    """Lines read and what became of them."""

    lines: int = 0
    kept: int = 0
    kept_text: int = 0  # names and aliases among the kept
    other_language: int = 0  # a wanted predicate, a literal in another language
    malformed_chunks: int = 0  # chunks read line by line (a line not `s\tp\to\t.`)

    def add(self, other: Counts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class DumpFilter:
    """The predicates kept (as N-Triples terms) and the language of the literals kept."""

    def __init__(
        self, relations: Iterable[bytes], texts: Iterable[bytes], language: bytes = b"en"
    ) -> None:
        self.texts = frozenset(texts)
        self.wanted = frozenset(relations) | self.texts
        self.language = language
        self._keys = keys_of(self.wanted)
        self._tails = tails_of(self.wanted)
        self.text_keys = keys_of(self.texts)

    @classmethod
    def from_inventory(
        cls,
        inventory: str | Path | Iterable[str],
        *,
        drop: tuple[str, ...] = BOOKKEEPING,
        texts: tuple[str, ...] = TEXTS,
        language: str = "en",
    ) -> DumpFilter:
        """Relation ids from an inventory file (JSON keyed by id, or one id a line) or a
        list; ids under a `drop` prefix are left out."""
        ids: Iterable[str]
        if isinstance(inventory, str | Path):
            text = Path(inventory).read_text(encoding="utf-8")
            ids = json.loads(text) if str(inventory).endswith(".json") else text.split()
        else:
            ids = inventory
        kept = [r for r in ids if not r.startswith(drop)]
        return cls([_term(r) for r in kept], [_term(t) for t in texts], language.encode())

    def wanted_lines(self, lines: Lines) -> tuple[np.ndarray, np.ndarray]:
        """The lines whose predicate is wanted (their indices), and which of those have a
        name or alias as predicate. A cheap look at the predicates' ends (`tail_keys`) sets
        most other lines aside before the full keys are computed."""
        data, tab1, tab2 = lines.data, lines.tab1, lines.tab2
        length = tab2 - tab1 - 1
        maybe = np.flatnonzero(member(tail_keys(data, tab2, length), self._tails))
        keys = span_keys(data, tab1[maybe] + 1, tab2[maybe])
        wanted = member(keys, self._keys)
        for i in np.flatnonzero(wanted & (length[maybe] > KEY_BYTES)).tolist():
            # the key covers the last KEY_BYTES bytes only: compare the whole term
            at = maybe[i]
            wanted[i] = data[tab1[at] + 1 : tab2[at]].tobytes() in self.wanted
        found: np.ndarray = maybe[wanted]
        return found, member(keys[wanted], self.text_keys)

    def chunk(self, chunk: bytes) -> tuple[bytes, Counts]:
        """The kept lines of a chunk of whole lines, and what happened to each line."""
        lines = split_lines(chunk)
        if lines is None:
            return self._line_by_line(chunk)
        wanted, texts = self.wanted_lines(lines)
        language_ok = literal_language_ok(lines.data, lines.tab3[wanted], self.language)
        keep = np.zeros(len(lines), dtype=bool)
        keep[wanted[language_ok]] = True
        counts = Counts(
            lines=len(lines),
            kept=int(language_ok.sum()),
            kept_text=int((texts & language_ok).sum()),
            other_language=int((~language_ok).sum()),
        )
        return select(chunk, lines, keep), counts

    def _line_by_line(self, chunk: bytes) -> tuple[bytes, Counts]:
        """The slow path, for a chunk with a line of another shape (those lines are dropped)."""
        counts = Counts(malformed_chunks=1)
        out = []
        tagged = b'"@' + self.language
        for line in chunk.splitlines(keepends=True):
            counts.lines += 1
            parts = line.rstrip(b"\n").split(b"\t")
            if len(parts) != 4 or parts[3] != b"." or parts[1] not in self.wanted:
                continue
            obj = parts[2]
            if obj[-1:] not in (b">", b'"') and not obj.endswith(tagged):
                counts.other_language += 1
                continue
            out.append(line if line.endswith(b"\n") else line + b"\n")
            counts.kept += 1
            counts.kept_text += parts[1] in self.texts
        return b"".join(out), counts


def _term(relation: str) -> bytes:
    iri = relation if "://" in relation else FREEBASE_NS + relation
    return f"<{iri}>".encode()
