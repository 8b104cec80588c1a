"""How to read a KG (`KGSettings`) and the shapes of the common public KGs as presets.

KGs differ in where names live, which predicates are bookkeeping rather than knowledge, and
what a compound node is (a node that only joins others: Freebase CVTs, Wikidata statements,
blank nodes). Getting these wrong is not cosmetic: a node taken for a compound one is never
an answer, so the whole edit budget goes on asking for "one more relation".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from readi_graph.environments.kg.store.vocabulary import (
    DBO,
    DBR,
    FOAF_NAME,
    FREEBASE_NS,
    OWL_SAME_AS,
    RDFS_COMMENT,
    RDFS_LABEL,
    SCHEMA,
    SCHEMA_NAME,
    SKOS_ALT_LABEL,
    SKOS_PREF_LABEL,
    WD,
    WD_PROP,
)

# Freebase mids/gids (m.0d3k14, g.11b6...), and any dotted id such as those in tests.
DOTTED_ID = r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$"


@dataclass(frozen=True)
class KGSettings:
    """How to read a KG. The defaults suit RDF with rdfs:label and Freebase dumps alike;
    `KGSettings.preset(name)` gives the settings of a known KG shape."""

    label_predicates: tuple[str, ...] = (
        RDFS_LABEL,
        SKOS_PREF_LABEL,
        SCHEMA_NAME,
        FOAF_NAME,
        FREEBASE_NS + "type.object.name",
    )
    # Other names of a node: a topic name matches them after the labels, never before.
    alias_predicates: tuple[str, ...] = (SKOS_ALT_LABEL,)
    # Short texts that tell homonyms apart ("capital of France", "city in Texas").
    description_predicates: tuple[str, ...] = (SCHEMA + "description", RDFS_COMMENT)
    languages: tuple[str, ...] = ("en",)
    # Relations never walked nor offered to the LLM (prefix match), besides the label, alias
    # and description predicates.
    hidden_relations: tuple[str, ...] = (
        OWL_SAME_AS,
        FREEBASE_NS + "type.object.",
        FREEBASE_NS + "type.type.instance",
        FREEBASE_NS + "common.",
        FREEBASE_NS + "freebase.",
        FREEBASE_NS + "kg.",
    )
    # "unlabelled": blank nodes, and nodes without a label when the KG has labels at all
    # (Freebase CVTs; a KG of bare IRIs has no compound nodes but its blank ones);
    # "blank": only blank (skolemized) nodes and `compound_prefixes` are.
    compound: Literal["unlabelled", "blank"] = "unlabelled"
    compound_prefixes: tuple[str, ...] = ()  # IRIs that are always compound (statements)
    # Prefix that turns a short id matching `short_id` into an IRI (Freebase: FREEBASE_NS).
    entity_namespace: str | None = None
    short_id: str | None = DOTTED_ID
    # Prefixed names a topic entity may be written with (`wd:Q42`): (prefix, namespace).
    prefixes: tuple[tuple[str, str], ...] = ()
    # Relations named after another node's label, (relation prefix, node prefix, suffix):
    # Wikidata's `wdt:P57` is named by `wd:P57`'s label, "director". Longest prefix first.
    relation_entities: tuple[tuple[str, str, str], ...] = ()
    # A walk never comes back to its topic entity from elsewhere: "films that share a director
    # with X" means the other films (MetaQA's answers are built this way too).
    revisit_topic: bool = False
    frontier_cap: int = 200  # distinct nodes kept per hop (the paper's queue threshold)
    chunk_size: int = 200  # frontier nodes per VALUES block: one query per hop up to the cap
    # Rows read per relation and direction in one hop, capped inside the query: a hub's
    # million edges are never sent. More is reported as truncated (the first rows in the
    # store's index order are kept, then the frontier cap applies).
    rows_per_relation: int = 4_000
    row_limit: int = 50_000  # rows read per query, all relations together; more: truncated
    label_chunk: int = 1000
    max_entity_matches: int = 10

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> KGSettings:
        """The settings of a known KG shape: "default", "metaqa", "freebase", "wikidata",
        "dbpedia"; keyword arguments override single fields."""
        try:
            base = PRESETS[name.strip().lower()]
        except KeyError:
            known = ", ".join(sorted(PRESETS))
            raise ValueError(f"unknown KG preset {name!r}; known: {known}") from None
        return replace(base, **overrides)

    @property
    def name_predicates(self) -> tuple[str, ...]:
        """Every predicate that holds text about a node rather than knowledge: never walked."""
        return self.label_predicates + self.alias_predicates + self.description_predicates


def as_settings(settings: KGSettings | str | None, **defaults: Any) -> KGSettings:
    """Settings given as an object, a preset name, or nothing (the plain default)."""
    if isinstance(settings, KGSettings):
        return settings
    return KGSettings.preset(settings or "default", **defaults)


_WIKIDATA_HIDDEN = (
    "http://wikiba.se/ontology#",
    "http://www.w3.org/ns/prov#",
    SCHEMA,
    WD_PROP + "direct-normalized/",
    WD_PROP + "statement/value",
    WD_PROP + "qualifier/value",
    WD_PROP + "reference/",
    WD_PROP + "novalue/",
    OWL_SAME_AS,
)

PRESETS: dict[str, KGSettings] = {
    "default": KGSettings(),
    # MetaQA's kb.txt as loaded by `from_metaqa`: every node is named, no compound nodes.
    "metaqa": KGSettings(label_predicates=(RDFS_LABEL,), compound="blank"),
    "freebase": KGSettings(
        label_predicates=(FREEBASE_NS + "type.object.name", RDFS_LABEL),
        alias_predicates=(FREEBASE_NS + "common.topic.alias",),
        description_predicates=(FREEBASE_NS + "common.topic.description",),
        entity_namespace=FREEBASE_NS,
        short_id=r"^[mg]\.[0-9A-Za-z_]+$",
        prefixes=(("ns", FREEBASE_NS), ("fb", FREEBASE_NS)),
    ),
    "wikidata": KGSettings(
        label_predicates=(RDFS_LABEL, SKOS_PREF_LABEL, SCHEMA_NAME),
        alias_predicates=(SKOS_ALT_LABEL,),
        description_predicates=(SCHEMA + "description",),
        hidden_relations=_WIKIDATA_HIDDEN,
        compound="blank",
        compound_prefixes=(WD + "statement/",),
        entity_namespace=WD,
        short_id=r"^[QPL][1-9][0-9]*$",
        prefixes=(
            ("wd", WD),
            ("wdt", WD_PROP + "direct/"),
            ("wds", WD + "statement/"),
            ("p", WD_PROP),
        ),
        relation_entities=(
            (WD_PROP + "direct/", WD, ""),
            (WD_PROP + "statement/", WD, " (statement value)"),
            (WD_PROP + "qualifier/", WD, " (qualifier)"),
            (WD_PROP, WD, " (statement)"),
        ),
    ),
    "dbpedia": KGSettings(
        label_predicates=(RDFS_LABEL, FOAF_NAME),
        alias_predicates=(DBO + "alias",),
        description_predicates=(RDFS_COMMENT,),
        hidden_relations=(
            OWL_SAME_AS,
            DBO + "wikiPage",
            DBO + "abstract",
            DBO + "thumbnail",
            "http://xmlns.com/foaf/0.1/isPrimaryTopicOf",
            "http://xmlns.com/foaf/0.1/depiction",
            "http://www.w3.org/ns/prov#wasDerivedFrom",
            "http://purl.org/dc/terms/subject",
        ),
        compound="blank",
        entity_namespace=DBR,
        short_id=None,  # resources are named by their titles: write dbr:Blade_Runner
        prefixes=(("dbr", DBR), ("dbo", DBO)),
    ),
}
