"""The generated graph written as the public Freebase dump is: one gzip file of tab-separated
lines (`<s>\\t<p>\\t<o>\\t.`), with the dump's noise around the knowledge.

The public dump (`freebase-rdf-latest.gz`, ~3.1 billion lines) holds far more than the facts a
KGQA system walks: names and aliases in dozens of languages, `rdf:type` copies of every
`type.object.type` line, `rdfs:label` copies of names, keys (`type.object.key` and the
`http://rdf.freebase.com/key/` namespace), `common.topic.*` bookkeeping (notable types,
descriptions) and some lines twice. A filter of the dump is measured on this noise, so every
named entity gets, besides its type and English name:

* 0-2 names in other languages (one entity in three has none, as most topics have few);
* an `rdf:type` copy of its type and an `rdfs:label` copy of its name;
* a `type.object.key` and a `key/wikipedia.en` key;
* `common.topic.notable_types` and `common.topic.notable_for`;
* one in four a `common.topic.description` (English), one in ten an English
  `common.topic.alias` and one in ten a French one;

and one line in 100 of each written block is written again at the block's end (duplicates).
About a third of the lines are knowledge a filter keeps, as in the real dump (3.1 billion
lines, ~1 billion after the usual filters). The content is a pure function of the graph, so
the same seed gives the same bytes.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

NS = "http://rdf.freebase.com/ns/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
WIKIPEDIA_KEY = "http://rdf.freebase.com/key/wikipedia.en"
LANGUAGES = ("fr", "de", "es", "it", "ja", "ru", "pt", "zh")
DUPLICATE_EVERY = 100


def to_dump_lines(data: bytes) -> bytes:
    """`<s> <p> <o> .` lines (the generator's N-Triples) as the dump writes them, with tabs.
    The generator's literals hold no `> <`, `> "` or ` .` before a newline, so three byte
    replacements are exact."""
    return data.replace(b"> <", b">\t<").replace(b'> "', b'>\t"').replace(b" .\n", b"\t.\n")


def _escaped(name: str) -> str:
    return name.replace("\\", "\\\\").replace('"', '\\"')


def noise_lines(mids: np.ndarray, names: list[str], type_id: str, first: int) -> tuple[str, int]:
    """The noise of a block of named entities (`first` is the index of the block's first
    entity in its type, so that the choices do not depend on block boundaries)."""
    out: list[str] = []
    type_mid = f"m.0{sum(type_id.encode()) % 100_000:05d}"  # the type's own topic
    for offset, (mid, name) in enumerate(zip(mids.astype(str), names, strict=True)):
        i = first + offset
        s = f"<{NS}{mid}>\t"
        quoted = _escaped(name)
        for k in range(i % 3):
            lang = LANGUAGES[(i + k) % len(LANGUAGES)]
            foreign = quoted if (i + k) % 2 else f"{quoted} ({lang})"
            out.append(f'{s}<{NS}type.object.name>\t"{foreign}"@{lang}\t.\n')
        out.append(f"{s}<{RDF_TYPE}>\t<{NS}{type_id}>\t.\n")
        out.append(f'{s}<{RDFS_LABEL}>\t"{quoted}"@en\t.\n')
        out.append(f'{s}<{NS}type.object.key>\t"/wikipedia/en_id/{1000 + i}"\t.\n')
        out.append(f'{s}<{WIKIPEDIA_KEY}>\t"{quoted.replace(" ", "_")}"\t.\n')
        out.append(f"{s}<{NS}common.topic.notable_types>\t<{NS}{type_mid}>\t.\n")
        out.append(f"{s}<{NS}common.topic.notable_for>\t<{NS}g.12{i:07d}>\t.\n")
        if i % 4 == 0:
            text = f"{quoted} is a {type_id.rsplit('.', 1)[-1].replace('_', ' ')}."
            out.append(f'{s}<{NS}common.topic.description>\t"{text}"@en\t.\n')
        if i % 10 == 3:
            out.append(f'{s}<{NS}common.topic.alias>\t"{quoted} {i % 7}"@en\t.\n')
        if i % 10 == 7:
            out.append(f'{s}<{NS}common.topic.alias>\t"{quoted} {i % 7}"@fr\t.\n')
    return "".join(out), len(out)


class DumpWriter:
    """Writes the whole graph into one gzip file in the dump's format, noise included (the
    interface of `render.ShardWriter`: `write`, `entity_noise`, `close`, `files`, `lines`)."""

    def __init__(self, path: Path, level: int = 1) -> None:
        self.files = [path]
        self.lines = 0  # every line written, noise included
        self.knowledge = 0  # lines of the generated graph (types, names, edges)
        self.noise = 0
        self.duplicates = 0
        self._raw = path.open("wb")
        self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, mtime=0,
                                 compresslevel=level)  # fmt: skip

    def write(self, data: bytes, lines: int) -> None:
        dump = to_dump_lines(data)
        again = lines // DUPLICATE_EVERY
        if again:
            dump += b"\n".join(dump.split(b"\n", again)[:again]) + b"\n"
        self._gz.write(dump)
        self.lines += lines + again
        self.knowledge += lines
        self.duplicates += again

    def entity_noise(self, mids: np.ndarray, names: list[str], type_id: str, first: int) -> None:
        text, n = noise_lines(mids, names, type_id, first)
        self._gz.write(text.encode())
        self.lines += n
        self.noise += n

    def close(self) -> None:
        self._gz.close()
        self._raw.close()

    def stats(self) -> dict[str, int]:
        return {
            "lines": self.lines,
            "knowledge": self.knowledge,
            "noise": self.noise,
            "duplicates": self.duplicates,
        }
