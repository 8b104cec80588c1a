"""Which Freebase relations the synthetic KG uses, and what their ends are.

Read from the real inventory (`fb_relations_domain_range_label.json`: relation -> domain, range,
label) and the real frequencies (`relation_freq.json`: relation -> count). Decisions, each one a
guess that keeps the graph shaped like Freebase without a dump to copy from:

* Bookkeeping is skipped: relations under `type.`, `common.`, `freebase.`, `kg.`, `dataworld.`
  (gardening hints), `user.` and `base.` (community schemas: 5,700 of the 10,933 counted
  relations, odd domains, little mass in the questions benchmarks ask). The graph adds its own
  `type.object.name` and `type.object.type` triples.
* A relation whose range is a `type.*` value type becomes a literal relation (date, number,
  text...); other `type.*` ranges (`type.object`, `type.lang`, ...) are skipped, as are the 80
  relations with no domain or range.
* Reverse pairs: Freebase stores a property and its reverse (`location.location.contains` and
  `...containedby`). Two relations are taken as reverses when their domain and range are swapped
  and their counts are equal, and no other relation matches (3,418 relations pair up, 4 are
  ambiguous and stay single). A pair is generated once and written both ways.
* CVTs (Freebase's "mediator" types, nodes without a name that tie several entities together,
  e.g. `people.marriage`) are not marked in the inventory. A type is taken as a CVT when its
  name says it is a relationship: `*_relationship`, `*_tenure`, `*membership`, `*_held`,
  `*honor`, `*nomination`, `*roster`, `*appearance`, ... (`MEDIATOR_NAME`), or a dated value
  (`measurement_unit.dated_integer`: a number with its date), or one of a few well-known
  mediators with plain names (`people.marriage`, `film.performance`, `education.education`,
  `location.geocode`, ...). Checked by hand on the 80 biggest matches (3 false matches such as
  `time.geologic_time_period` are listed in NOT_MEDIATORS); 146 of 1,805 types are CVTs.
* Subtypes: an actor, an author and a politician are all persons; a country is a location. The
  inventory does not say which types include which, so `FAMILIES` lists the person and location
  subtypes the big relations use; any other type is its own population of entities.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

SKIPPED_PREFIXES = ("type.", "common.", "freebase.", "kg.", "dataworld.", "user.", "base.")
LITERAL_RANGES = {
    "type.datetime": "date",
    "type.float": "float",
    "type.int": "int",
    "type.text": "text",
    "type.rawstring": "string",
    "type.enumeration": "key",
    "type.uri": "string",
    "type.boolean": "bool",
}
MEDIATOR_NAME = re.compile(
    r"(relationship|tenure|membership|_held|honor|nomination|roster|appearance|_gig"
    r"|participation|affiliation|_period|duration|contribution|guest_role|theater_role"
    r"|_run|release_date)$"
)
NOT_MEDIATORS = {"time.geologic_time_period", "skiing.ski_run", "location.dated_location"}
MEDIATORS = {
    "people.marriage",
    "film.performance",
    "education.education",
    "people.place_lived",
    "location.geocode",
    "location.mailing_address",
    "organization.leadership",
    "business.employment_tenure",
    "film.film_regional_release_date",
    "film.film_cut",
    "award.ranking",
    "people.appointment",
    "location.religion_percentage",
}
PERSON_TYPES = {
    "people.deceased_person",
    "people.family_member",
    "people.measured_person",
    "book.author",
    "film.actor",
    "film.director",
    "film.producer",
    "film.writer",
    "film.film_crewmember",
    "film.person_or_entity_appearing_in_film",
    "tv.tv_actor",
    "tv.tv_personality",
    "tv.tv_producer",
    "tv.tv_writer",
    "music.group_member",
    "music.composer",
    "music.lyricist",
    "award.award_winner",
    "award.award_nominee",
    "government.politician",
    "sports.pro_athlete",
    "olympics.olympic_athlete",
    "organization.organization_founder",
    "business.board_member",
    "influence.influence_node",
    "visual_art.visual_artist",
    "architecture.architect",
    "military.military_person",
    "celebrities.celebrity",
    "religion.religious_leader",
    "royalty.noble_person",
}
NOT_PLACES = re.compile(r"category|emission|production|imports|symbol|percentage|variety|geometry")
FAMILIES = {"people.person": PERSON_TYPES, "location.location": set()}  # location: see below


@dataclass
class Relation:
    """One kept relation; `kind` is "entity" or a literal kind from LITERAL_RANGES."""

    id: str
    domain: str
    range: str
    freq: int
    kind: str
    reverse: str | None = None


@dataclass
class Schema:
    relations: dict[str, Relation]
    cvts: set[str]
    base_of: dict[str, str] = field(default_factory=dict)  # subtype -> family base type

    def types(self) -> set[str]:
        ends = {r.domain for r in self.relations.values()}
        ends |= {r.range for r in self.relations.values() if r.kind == "entity"}
        return ends


def is_cvt_name(type_id: str) -> bool:
    if type_id in NOT_MEDIATORS:
        return False
    dated_value = type_id.startswith("measurement_unit.dated_")  # a number with its date
    return (
        dated_value or type_id in MEDIATORS or bool(MEDIATOR_NAME.search(type_id.split(".", 1)[1]))
    )


def _kept(inventory: dict[str, dict[str, str]], freq: dict[str, int]) -> dict[str, Relation]:
    kept = {}
    for rid, count in freq.items():
        info = inventory.get(rid, {})
        if count <= 0 or rid.startswith(SKIPPED_PREFIXES) or not {"domain", "range"} <= info.keys():
            continue
        rng = info["range"]
        kind = LITERAL_RANGES.get(rng, "entity")
        if kind == "entity" and rng.startswith("type."):
            continue  # type.object, type.lang, ...: no value to generate
        if info["domain"].startswith(SKIPPED_PREFIXES):
            continue
        kept[rid] = Relation(rid, info["domain"], rng, count, kind)
    return kept


def _pair_reverses(relations: dict[str, Relation]) -> None:
    """Mark reverse pairs: swapped ends, equal counts, and only one candidate."""
    by_ends: dict[tuple[str, str, int], list[str]] = defaultdict(list)
    for r in relations.values():
        if r.kind == "entity":
            by_ends[(r.domain, r.range, r.freq)].append(r.id)
    for r in relations.values():
        if r.kind != "entity":
            continue
        match = [m for m in by_ends.get((r.range, r.domain, r.freq), []) if m != r.id]
        rivals = [m for m in by_ends[(r.domain, r.range, r.freq)] if m != r.id]
        if r.domain == r.range:  # contains / containedby: the two are each other's only match
            rivals = [m for m in rivals if m not in match]
        if len(match) == 1 and not rivals:
            r.reverse = match[0]


def load_schema(inventory_path: Path, freq_path: Path) -> Schema:
    inventory = json.loads(Path(inventory_path).read_text(encoding="utf-8"))
    freq = json.loads(Path(freq_path).read_text(encoding="utf-8"))
    relations = _kept(inventory, freq)
    _pair_reverses(relations)
    schema = Schema(relations, set())
    types = schema.types()
    schema.cvts = {t for t in types if is_cvt_name(t)}
    for base, members in FAMILIES.items():
        for t in sorted(types - schema.cvts - {base}):
            place = base == "location.location" and (
                t.startswith("location.") or t == "government.governmental_jurisdiction"
            )
            if t in members or (place and not NOT_PLACES.search(t)):
                schema.base_of[t] = base
    return schema
