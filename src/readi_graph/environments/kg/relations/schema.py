"""What a KG says about its relations: labels, domains, ranges, and reverse twins.

Freebase stores most facts twice, once per direction, under two relations
(`sports.sports_team.team_mascot` and `sports.mascot.team`). A model may write either; a KG
fragment, or a KG that kept one direction, may hold only the other. Binding a relation
together with its reverse twin lets the walk find the fact whichever one the KG stored.

Twins come from the KG's own `owl:inverseOf` statements or from a relation inventory with
domains and ranges (Freebase's published one: `fb_relations_domain_range_label.json`). From an
inventory, `r2` is the twin of `r1` when `r2` is the only relation whose domain is `r1`'s range
and whose range is `r1`'s domain. Relations whose domain equals their range
(`location.location.contains`) and signatures shared by several relations get no twin: the
inventory cannot tell which one is meant.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

FREEBASE_NS = "http://rdf.freebase.com/ns/"


@dataclass(frozen=True)
class RelationInfo:
    label: str | None = None
    domain: str | None = None
    range: str | None = None


@dataclass
class RelationSchema:
    """Relation IRI -> label/domain/range, plus reverse twins (symmetric)."""

    info: dict[str, RelationInfo] = field(default_factory=dict)
    twins: dict[str, str] = field(default_factory=dict)

    def twin(self, relation: str) -> str | None:
        return self.twins.get(relation)

    def label(self, relation: str) -> str | None:
        found = self.info.get(relation)
        return found.label if found else None

    def add_inverses(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Declared inverses (`owl:inverseOf`) win over the ones inferred from signatures."""
        for a, b in pairs:
            if a != b:
                self.twins[a], self.twins[b] = b, a

    @classmethod
    def from_inventory(
        cls, inventory: Mapping[str, Mapping[str, str | None]], namespace: str = ""
    ) -> RelationSchema:
        """`{relation: {"label", "domain", "range"}}`; ids are prefixed with `namespace`."""
        info = {
            namespace + r: RelationInfo(d.get("label"), d.get("domain"), d.get("range"))
            for r, d in inventory.items()
        }
        by_signature: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r, i in info.items():
            if i.domain and i.range and i.domain != i.range:
                by_signature[(i.domain, i.range)].append(r)
        twins: dict[str, str] = {}
        for (domain, range_), relations in by_signature.items():
            back = by_signature.get((range_, domain), [])
            if len(relations) == 1 and len(back) == 1:
                twins[relations[0]] = back[0]
        return cls(info, twins)

    @classmethod
    def from_freebase(cls, path: str | Path) -> RelationSchema:
        """Freebase's relation inventory (a file, or the directory holding
        `fb_relations_domain_range_label.json`), with `ns:` IRIs."""
        file = Path(path)
        if file.is_dir():
            file = file / "fb_relations_domain_range_label.json"
        inventory = json.loads(file.read_text(encoding="utf-8"))
        return cls.from_inventory(inventory, FREEBASE_NS)
