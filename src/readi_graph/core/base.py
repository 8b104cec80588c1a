"""Shared vocabulary of the environments: RDF terms, triples and typed errors.

Terms are small frozen values so they can be set members, dict keys and parts of LangGraph
state; they never hold a reference to a store.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

TermKind = Literal["iri", "literal", "bnode"]


XSD = "http://www.w3.org/2001/XMLSchema#"
NUMERIC = frozenset(
    XSD + t
    for t in (
        "integer decimal double float int long short byte nonNegativeInteger "
        "positiveInteger nonPositiveInteger negativeInteger unsignedInt unsignedLong gYear"
    ).split()
)


@functools.total_ordering
@dataclass(frozen=True, slots=True)
class Term:
    """An RDF term as returned by a store.

    `value` is the IRI, the literal's lexical form, or the blank node id. Blank nodes are only
    meaningful inside the store that produced them; the embedded store skolemizes them to IRIs
    on load so they can be queried again on the next hop.
    """

    kind: TermKind
    value: str
    datatype: str | None = None
    lang: str | None = None

    @staticmethod
    def iri(value: str) -> Term:
        return Term("iri", value)

    @staticmethod
    def literal(value: str, datatype: str | None = None, lang: str | None = None) -> Term:
        return Term("literal", value, datatype, lang)

    @property
    def is_literal(self) -> bool:
        return self.kind == "literal"

    def sort_key(self) -> tuple[str, str, str, str]:
        """The order as a plain tuple: `sorted(terms, key=Term.sort_key)` compares in C,
        many times faster than `__lt__` on thousands of terms."""
        return (self.kind, self.value, self.datatype or "", self.lang or "")

    def __lt__(self, other: object) -> bool:
        """A total order over terms of every kind (a plain and a typed literal compare, where
        `None < str` would raise), so sets of mixed terms sort deterministically."""
        if not isinstance(other, Term):
            return NotImplemented
        return self.sort_key() < other.sort_key()

    def answer_key(self) -> tuple[str, str]:
        """What makes two terms the same answer: `"1979"^^xsd:gYear`, `"1979"` and
        `"1979.0"^^xsd:decimal` are one answer, numbers compare as numbers, and a literal's
        language or datatype does not make a different answer."""
        if self.kind != "literal":
            return (self.kind, self.value)
        text = self.value.strip()
        if self.datatype is None or self.datatype in NUMERIC:
            try:
                number = Decimal(text)
            except (InvalidOperation, ValueError):
                return ("literal", text)
            if number.is_finite():
                return ("number", format(number.normalize(), "f"))
        return ("literal", text)

    def __str__(self) -> str:
        if self.kind == "iri":
            return f"<{self.value}>"
        if self.kind == "bnode":
            return f"_:{self.value}"
        suffix = f"@{self.lang}" if self.lang else (f"^^<{self.datatype}>" if self.datatype else "")
        return f'"{self.value}"{suffix}'


@dataclass(frozen=True, slots=True, order=True)
class Triple:
    """A KG edge `subject -predicate-> object`, oriented as stored (not as walked)."""

    subject: Term
    predicate: str
    object: Term

    def sort_key(self) -> tuple[tuple[str, str, str, str], str, tuple[str, str, str, str]]:
        """The dataclass order as a plain tuple (see `Term.sort_key`)."""
        return (self.subject.sort_key(), self.predicate, self.object.sort_key())


class ReadiError(Exception):
    """Base class of every error readi-graph raises on purpose."""


class KGFormatError(ReadiError):
    """A KG file could not be read (bad syntax, unknown format, unreadable file)."""


class UnsafeQueryInput(ReadiError, ValueError):
    """A value cannot be placed in a query safely (e.g. an IRI with forbidden characters)."""


class EndpointError(ReadiError):
    """A SPARQL endpoint failed. `endpoint` names it so logs say which one."""

    def __init__(self, message: str, *, endpoint: str, status: int | None = None) -> None:
        super().__init__(f"{message} (endpoint {endpoint})")
        self.endpoint = endpoint
        self.status = status


class EndpointUnavailable(EndpointError):
    """Transient: connection refused/reset, timeout, 5xx or 429 after the retry budget."""


class QueryRejected(EndpointError):
    """Permanent: the endpoint refused the query (4xx other than 429). Retrying cannot help."""


class InputError(ReadiError, ValueError):
    """Input a graph or a command cannot work on: a question that is not text or is empty,
    topic entities that are not names, a number out of range, a file that is not what it
    should be. The message is one sentence naming the culprit (`core/inputs.py`)."""


class QuestionTooLong(InputError):
    """A question longer than a run reads (`RunContext.max_question_chars`): refused before
    any model sees it, rather than left to fill (and overrun) a model's context."""


class PromptTooLong(InputError):
    """A prompt longer than the model's context can take with its reply (the bundled model:
    8,192 tokens): refused before generating, never left to run for minutes."""


class UnknownEntity(InputError):
    """A topic entity given by name or IRI that the knowledge graph does not have."""
