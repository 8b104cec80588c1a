"""The RDF vocabulary readi-graph reads, in one place: label, alias and description predicates,
the namespaces of the common public KGs, and how a literal becomes a `Term` (every backend,
embedded or remote, goes through `literal_term`, so a plain and an `xsd:string` literal are the
same term everywhere)."""

from __future__ import annotations

from readi_graph.core.base import Term

SKOLEM_BASE = "urn:readi:genid:"


RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


XSD = "http://www.w3.org/2001/XMLSchema#"


PLAIN_TYPES = {XSD + "string", "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"}


SKOS = "http://www.w3.org/2004/02/skos/core#"


SKOS_PREF_LABEL = SKOS + "prefLabel"


SKOS_ALT_LABEL = SKOS + "altLabel"


SCHEMA = "http://schema.org/"


SCHEMA_NAME = SCHEMA + "name"


FOAF_NAME = "http://xmlns.com/foaf/0.1/name"


RDFS_COMMENT = "http://www.w3.org/2000/01/rdf-schema#comment"


RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


FREEBASE_NS = "http://rdf.freebase.com/ns/"


OWL_SAME_AS = "http://www.w3.org/2002/07/owl#sameAs"


WD = "http://www.wikidata.org/entity/"


WD_PROP = "http://www.wikidata.org/prop/"


DBR = "http://dbpedia.org/resource/"


DBO = "http://dbpedia.org/ontology/"


def literal_term(value: str, datatype: str | None, lang: str | None) -> Term:
    """A literal as a `Term`: `xsd:string` and `rdf:langString` are plain (no datatype)."""
    return Term("literal", value, None if datatype in PLAIN_TYPES else datatype, lang or None)
