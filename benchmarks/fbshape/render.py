"""Turning node ids and literal codes into Freebase-looking N-Triples, and writing them.

Mids look like Freebase's (`m.0` and six characters of its base-32 alphabet) and are a
bijection of the node id, so they never collide. Names are a pure function of (type, index):
persons get a first and a last name, places a place-like name, other entities two made-up
words; one entity in 37 reuses the name of an earlier one of its type, and more share one by
chance (50 first names x 405,224 last names for a million persons): 14% of the entities of a
10M graph share their name, as in Freebase, where "John Smith" is many people.

Literals are written in the form stores print back, so a gold answer compares equal as a
string: an xsd:float is a number of quarters below 10,000 but never a whole number, exact in
32 bits and printed alike by pyoxigraph and Virtuoso (which shows 6 significant digits and
writes a whole float as "2.0" where pyoxigraph writes "2"). Virtuoso prints booleans as 0/1.
"""

from __future__ import annotations

import gzip
from datetime import date
from pathlib import Path

import numpy as np

from .edges import FIRST_DAY

NS = "http://rdf.freebase.com/ns/"
XSD = "http://www.w3.org/2001/XMLSchema#"
NAME = "type.object.name"
TYPE = "type.object.type"
MID_ALPHABET = np.frombuffer(b"0123456789bcdfghjklmnpqrstvwxyz_", dtype=np.uint8)
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"] + ["an", "el", "or", "is"]
FIRST_NAMES = (
    "James Mary John Patricia Robert Jennifer Michael Linda William Elizabeth David Barbara "
    "Richard Susan Joseph Jessica Thomas Sarah Charles Karen Maria Ahmed Wei Yuki Olga Pierre "
    "Hans Sofia Ivan Fatima Carlos Ana Luca Giulia Kofi Amara Raj Priya Lars Ingrid Mateo "
    "Elena Noah Emma Liam Olivia Omar Leila Kenji Mei"
).split()
PLACE_SUFFIXES = ["", "", " City", "ville", " Springs", "burg", " Falls", "ton", " Heights"]
HOMONYM_EVERY = 37


def mids(n: int) -> np.ndarray:
    """`m.0xxxxxx` for node ids 0..n-1, as 9-byte strings (an odd multiplier mod 2^30 is a
    bijection, so distinct ids give distinct mids)."""
    x = (np.arange(n, dtype=np.int64) * 0x2C9277B5 + 0x1B873593) & (2**30 - 1)
    digits = (x[:, None] >> np.arange(25, -1, -5)) & 31
    chars = np.empty((n, 9), dtype=np.uint8)
    chars[:, :3] = np.frombuffer(b"m.0", dtype=np.uint8)
    chars[:, 3:] = MID_ALPHABET[digits]
    return chars.view("S9").ravel()


def _word(code: int, syllables: int) -> str:
    out = []
    for _ in range(syllables):
        code, digit = divmod(code, len(SYLLABLES))
        out.append(SYLLABLES[digit])
    return "".join(out).capitalize()


def _mix(x: int) -> int:
    """splitmix64's finaliser: a bijection of 64-bit numbers whose bits look independent."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    return x ^ (x >> 31)


def name_code(type_id: str, index: int) -> int:
    """64 bits that name entity `index` of `type_id`; homonyms share them."""
    if index >= HOMONYM_EVERY and index % HOMONYM_EVERY == 5:
        index -= 5
    return _mix(index + (sum(type_id.encode()) << 32))


def entity_name(type_id: str, index: int) -> str:
    code = name_code(type_id, index)
    low, high = code & 0xFFFFFFFF, code >> 32
    if type_id == "people.person":
        return f"{FIRST_NAMES[high % len(FIRST_NAMES)]} {_word(low, 3)}"
    if type_id == "location.location":
        return _word(low, 3) + PLACE_SUFFIXES[high % len(PLACE_SUFFIXES)]
    return f"{_word(low, 2)} {_word(high, 2 + (high >> 31))}"


def literal(kind: str, code: int) -> str:
    """The N-Triples form of literal `code` of `kind` (as pyoxigraph prints it back)."""
    if kind == "date":
        day = date.fromordinal(FIRST_DAY + code)
        if code % 3 == 0:
            return f'"{day.year}"^^<{XSD}gYear>'
        return f'"{day.isoformat()}"^^<{XSD}date>'
    if kind == "float":
        return f'"{code / 4!r}"^^<{XSD}float>'
    if kind == "int":
        return f'"{code}"^^<{XSD}integer>'
    if kind == "bool":
        return f'"{"true" if code else "false"}"^^<{XSD}boolean>'
    if kind == "key":
        return f'"{code % 10**8:08d}"'
    words = " ".join(_word(code >> (6 * i), 2).lower() for i in range(3 + code % 3))
    return f'"{words}"@en' if kind == "text" else f'"{words}"'


def iri_lines(subject_mids: np.ndarray, predicate: str, objects: np.ndarray | str) -> bytes:
    """Fixed-width lines `<s> <p> <o> .` built as one numpy record array: `objects` is an
    array of mids, or one IRI tail (a type) shared by every line."""
    head = f"<{NS}".encode()
    if isinstance(objects, str):
        tail = f"> <{NS}{predicate}> <{NS}{objects}> .\n".encode()
        fields = [("h", f"S{len(head)}"), ("s", "S9"), ("t", f"S{len(tail)}")]
        rows = np.empty(len(subject_mids), dtype=fields)
    else:
        middle = f"> <{NS}{predicate}> <{NS}".encode()
        tail = b"> .\n"
        fields = [("h", f"S{len(head)}"), ("s", "S9"), ("m", f"S{len(middle)}"), ("o", "S9")]
        rows = np.empty(len(subject_mids), dtype=[*fields, ("t", "S4")])
        rows["m"], rows["o"] = middle, objects
    rows["h"], rows["s"], rows["t"] = head, subject_mids, tail
    return rows.tobytes()


def text_lines(subject_mids: np.ndarray, predicate: str, objects: list[str]) -> bytes:
    """Lines whose objects are literals (any width)."""
    prefix = f"> <{NS}{predicate}> "
    return "".join(
        f"<{NS}{m}{prefix}{o} .\n" for m, o in zip(subject_mids.astype(str), objects, strict=True)
    ).encode()


class ShardWriter:
    """gzip'd N-Triples files of about `per_file` lines (kb-000.nt.gz, ...). The gzip header
    holds no name and no time, so the same content gives the same bytes."""

    def __init__(self, out: Path, per_file: int, level: int = 1) -> None:
        self.out, self.per_file, self.level = out, per_file, level
        self.files: list[Path] = []
        self.lines = 0
        self._gz: gzip.GzipFile | None = None
        self._raw = None

    def write(self, data: bytes, lines: int) -> None:
        if self._gz is None or self._in_file >= self.per_file:
            self._next()
        assert self._gz is not None
        self._gz.write(data)
        self._in_file += lines
        self.lines += lines

    def entity_noise(self, mids: np.ndarray, names: list[str], type_id: str, first: int) -> None:
        """Only the dump's format has noise (`dump.DumpWriter`)."""

    def _next(self) -> None:
        self.close()
        path = self.out / f"kb-{len(self.files):03d}.nt.gz"
        self.files.append(path)
        self._raw = path.open("wb")
        self._gz = gzip.GzipFile(
            filename="", mode="wb", fileobj=self._raw, mtime=0, compresslevel=self.level
        )
        self._in_file = 0

    def close(self) -> None:
        if self._gz is not None:
            self._gz.close()
            self._raw.close()
            self._gz = None
