"""Topic entities found in the question when the caller names none (entity linking).

Every KG strategy starts from topic entities. When a question comes without them, the KG's
own names are looked for in its text: every span of up to `SPAN_TOKENS` words that is a label
or alias of a node up to case and accents (`Names.named`: the embedded store's label scan, or
bounded look-ups of the spans' usual spellings on an endpoint). The longest spans win, among
the most name-like found: questions are full of words that some node is named after, so a
single lower-case word ("film", "fall") counts only when no capitalized or longer name is
found, and a span of stopwords or numbers only ("Her", "1941") only when nothing else is.
A span in [brackets] is taken as marked, and may be an id or IRI (`Forrest Gump [m.0bdjd]`,
`<http://...>`). Each chosen span then resolves like a given topic entity (`Names.resolve`:
exact label first), so linking finds what `--entity` would.

What was found, what was ambiguous (another spelling, an overlapping reading, homonyms) and
"nothing found" are notes for the output; nothing here raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from readi_graph.core.base import Term
from readi_graph.core.diagnosis import Diagnosis, Reason
from readi_graph.core.text import normalize_name
from readi_graph.environments.kg.entities.names import Names, Resolution
from readi_graph.environments.kg.entities.spans import TOKEN, Span, spans

MAX_MARKED = 8  # [bracketed] or <IRI> spans read
_MARKED = re.compile(r"\[([^\[\]]{1,300})\]|<([^<>\s]{1,1000})>")
NONE_FOUND = (
    "No topic entity was given and none was found in the question (no part of it is a name in "
    "the knowledge graph); give the topic entities (`topic_entities`, or --entity)."
)


class Linkable(Protocol):
    """What linking asks of a KG; a `KnowledgeGraph` (which links through here) is one."""

    names: Names

    def resolve(self, name: str) -> Resolution: ...
    def labels(self, terms: Iterable[Term]) -> dict[Term, str | None]: ...
    def link_topic_entities(self, question: str) -> Linking: ...


@dataclass(frozen=True)
class Mention:
    """A span of the question taken as a topic entity."""

    text: str  # the words of the question
    entity: str  # the topic entity handed to the strategy (the KG's spelling, or `Name [id]`)
    start: int  # character offsets in the question
    end: int
    resolution: Resolution
    others: tuple[str, ...] = ()  # other readings: spellings, overlapping names

    @property
    def nodes(self) -> int:
        """How many nodes the name matched (homonyms)."""
        return max(self.resolution.matched, len(self.resolution.nodes))

    @property
    def ambiguous(self) -> bool:
        return bool(self.others) or self.nodes > 1

    def record(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "entity": self.entity,
            "start": self.start,
            "end": self.end,
            "nodes": self.nodes,
            "others": list(self.others),
        }


@dataclass(frozen=True)
class Linking:
    """The topic entities found in one question, and what the output should say about them."""

    question: str
    mentions: tuple[Mention, ...]
    notes: tuple[str, ...]

    @property
    def entities(self) -> list[str]:
        return [m.entity for m in self.mentions]

    @property
    def ambiguous(self) -> bool:
        return any(m.ambiguous for m in self.mentions)

    def record(self) -> dict[str, Any]:
        """JSON for the graph's state."""
        mentions = [m.record() for m in self.mentions]
        return {"entities": self.entities, "mentions": mentions, "notes": list(self.notes)}


def link(kg: Linkable, question: str) -> Linking:
    """The topic entities of `question` (see the module's docstring)."""
    marked = _marked(kg, question)
    taken = [(m.start, m.end) for m in marked]
    found = [s for s in spans(question) if not any(s.start < e and b < s.end for b, e in taken)]
    hits = _named(kg, [s for s in found if s.rank < 2])
    if not hits and not marked:
        hits = _named(kg, [s for s in found if s.rank == 2])
    best = min((s.rank for s in hits), default=0)
    if marked and best > 0:  # a marked name is enough: no common word joins it
        hits = []
    mentions = list(marked)
    for span, rivals in _longest([s for s in hits if s.rank == best]):
        mention = _mention(kg, question, span, rivals)
        if mention is not None:
            mentions.append(mention)
    kept: list[Mention] = []
    for m in mentions:  # a node named twice (a name and its id, say) is one topic entity
        if not any(set(m.resolution.nodes) & set(k.resolution.nodes) for k in kept):
            kept.append(m)
    kept.sort(key=lambda m: m.start)
    return Linking(question, tuple(kept), tuple(_notes(kept)))


def _named(kg: Linkable, spans: list[Span]) -> list[Span]:
    if not spans:
        return []
    known = kg.names.named([s.form for s in spans])
    return [s for s in spans if normalize_name(s.form) in known]


def _longest(hits: list[Span]) -> list[tuple[Span, list[Span]]]:
    """Non-overlapping spans, longest first (see `_span`), each with the spans as long that
    overlap it and were left out (another reading of the same words)."""
    chosen: list[tuple[Span, list[Span]]] = []
    for span in sorted(hits, key=lambda s: s.order):
        clashes = [(c, rivals) for c, rivals in chosen if span.overlaps(c)]
        if not clashes:
            chosen.append((span, []))
        for c, rivals in clashes:
            if c.order[0] == span.order[0] and not c.same_place(span):
                rivals.append(span)
    return chosen


def _mention(kg: Linkable, question: str, span: Span, rivals: list[Span]) -> Mention | None:
    resolution = kg.resolve(span.form)
    if not resolution.found:
        return None
    entity = span.form
    if resolution.match == "normalized":  # "robert zemeckis" is given as the KG spells it
        entity = kg.labels(resolution.nodes[:1]).get(resolution.nodes[0]) or span.form
    others: list[str] = []
    if resolution.match != "exact" or span.form == span.form.lower():  # case says nothing
        spellings = kg.names.spellings(span.form)
        others = sorted(spellings - {entity}) if len(spellings) > 1 else []
    others += [r.form for r in rivals if normalize_name(r.form) != normalize_name(span.form)]
    text = question[span.start : span.end]
    return Mention(text, entity, span.start, span.end, resolution, tuple(dict.fromkeys(others)))


def _marked(kg: Linkable, question: str) -> list[Mention]:
    """[Bracketed] names, ids and IRIs, and <IRIs>: the user marked them as entities."""
    found = []
    for match in list(_MARKED.finditer(question))[:MAX_MARKED]:
        inner, iri = match.group(1), match.group(2)
        given = (inner or "").strip() or f"<{iri}>"
        resolution = kg.resolve(given)
        if not resolution.found:
            continue
        start = match.start()
        entity = given
        if resolution.match == "iri":  # an id: shown with its label, walked from the id
            node = resolution.nodes[0]
            label = kg.labels([node]).get(node)
            ref = iri or inner
            if label:
                entity = f"{label} [{ref}]"
                before = question[:start].rstrip()
                if normalize_name(before).endswith(normalize_name(label)):
                    start = _start_of(question, before, label)
        found.append(Mention(question[start : match.end()], entity, start, match.end(), resolution))
    return found


def _start_of(question: str, before: str, label: str) -> int:
    """Where the words of `label` that end `before` start (so they are not linked again)."""
    words = len(label.split())
    starts = [m.start() for m in TOKEN.finditer(before)]
    return starts[-words] if len(starts) >= words else 0


def _notes(mentions: list[Mention]) -> list[str]:
    if not mentions:
        return [NONE_FOUND]
    found = ", ".join(f'"{m.entity}"' for m in mentions)
    notes = [f"No topic entity was given; found in the question: {found}."]
    for m in mentions:
        if m.others:
            others = ", ".join(f'"{o}"' for o in m.others)
            notes.append(
                f'"{m.text}" in the question may also mean {others}; "{m.entity}" was taken '
                "(give the topic entities to choose another)."
            )
    return notes


def topic_entities_for(kg: Linkable, question: str, given: list[str] | None) -> dict[str, Any]:
    """The state update every KG strategy starts with: the caller's topic entities when any
    is given (they always win), else those linked in the question, with the linking record
    (`linking`: entities, mentions, notes) for the output's notes.

    Given entities are resolved first: when the KG has none of them there is nothing to walk
    from, and the update says so as if none were given (no topic entities, so no model call)
    with a note naming them (`linking["unknown"]`)."""
    topics = [t for t in given or [] if t.strip()]
    if topics:
        unknown = [t for t in topics if not kg.resolve(t).found]
        if len(unknown) < len(topics):
            return {"topic_entities": topics, "linking": None}
        return {"topic_entities": [], "linking": _not_in_kg(unknown)}
    found = kg.link_topic_entities(question)
    return {"topic_entities": found.entities, "linking": found.record()}


def _not_in_kg(unknown: list[str]) -> dict[str, Any]:
    names = ", ".join(f'"{u}"' for u in unknown)
    verb = "is" if len(unknown) == 1 else "are"
    note = (
        f"{names} {verb} not in the knowledge graph (no node has that label, alias or IRI): "
        "nothing was searched and no model was called; check the spelling, or give no topic "
        "entities to have them found in the question."
    )
    return {"entities": [], "mentions": [], "notes": [note], "unknown": unknown}


def linking_notes(state: Any) -> list[str]:
    """The linking's notes kept in a strategy's state (none when the entities were given)."""
    return list((state.get("linking") or {}).get("notes") or [])


def no_topic_reason(state: Any = None) -> str:
    """Why a run has no topic entity: none given or found, or none of those given in the KG."""
    unknown = list(((state or {}).get("linking") or {}).get("unknown") or [])
    if not unknown:
        return "no topic entity was given or found in the question"
    names = ", ".join(f'"{u}"' for u in unknown)
    return f"{names} {'is' if len(unknown) == 1 else 'are'} not in the knowledge graph (given)"


def no_topic_entity(state: Any = None) -> Diagnosis:
    """The diagnosis of a question with no topic entity given or found, or none of those
    given in the KG: it spends no edit (an edit rewrites paths, never the topic entities)."""
    return Diagnosis([Reason("unknown_entity", no_topic_reason(state))])
