"""What ToG's state carries, typed: the frontier entities, the relations listed around them,
the kept (entity, relation) pairs, their tails scored as candidates, and the record of each
depth (the run's `attempts`, drawn by `trace/tog.py`).

State must stay plain JSON (LangGraph checkpoints it, Studio shows it, a parent graph may read
it): these are TypedDicts over JSON values, the KG's nodes as term records
(`environments/kg/reasoning/records.term_record`); mypy checks every key the nodes read and write.
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import TypedDict

from readi_graph.core.state import RunState

TermRecord = dict[str, Any]  # a KG node as JSON: kind, value, datatype?, lang? (term_record)


class FrontierEntity(TypedDict):
    """An entity the next depth explores from (a topic entity at the first depth)."""

    node: TermRecord
    name: str  # as the prompts show it
    path: str  # how it was reached: `Topic -> relation -> Entity -> ...` (search.path_text)
    topic: str | None  # the topic entity the path started from, as given or found


class ListedRelation(TypedDict):
    """A relation around a frontier entity, in one direction (relation search)."""

    relation: str  # the KG's relation id
    forward: bool  # False: walked against the relation's direction
    edges: int  # how many edges the entity has through it
    name: str  # as the prompt lists it: `<- name` backwards, an id added to tell twins apart


class Pair(TypedDict):
    """A kept (entity, relation): relation pruning's choice, whose tails entity search reads."""

    entity: int  # index into the depth's frontier
    relation: str
    forward: bool
    name: str  # as listed (ListedRelation.name)
    score: float  # the relation's score, in (0, 1]


class Via(TypedDict):
    """The compound node (a Freebase CVT, a Wikidata statement) a tail was reached through,
    and the relation from it to the tail."""

    node: TermRecord
    relation: str
    forward: bool
    name: str  # as shown: `<- name` backwards


class Tail(TypedDict):
    """A tail entity of a pair (entity search), a candidate before it is scored."""

    node: TermRecord
    name: str
    via: Via | None  # reached through a compound node, or directly


class Candidate(Tail):
    """A tail scored (entity scoring), with what it was reached from: what entity pruning
    ranks, and, kept, a frontier entity of the next depth and triples of the evidence."""

    entity: int  # index into the depth's frontier
    source: TermRecord  # that frontier entity's node
    path: str  # that frontier entity's path
    topic: str | None
    relation: str  # the pair's relation id
    forward: bool
    relation_name: str  # the pair's name
    score: float  # relation score x entity score, rounded to 6 places


class ShownEntity(TypedDict):
    name: str
    path: str


class ShownRelation(TypedDict):
    entity: int  # index into the depth's frontier
    name: str
    score: float
    kept: bool


class ShownCandidate(TypedDict):
    entity: int  # index into the depth's frontier
    relation: str  # as listed
    name: str
    via: str | None  # the relation from the compound node, as shown
    score: float
    kept: bool  # explored at the next depth
    tied: bool  # scored like the last kept one: kept as evidence, not explored


class DepthRecord(TypedDict, total=False):
    """One depth as the run reports it (`attempts`, the trace): written by the relation step,
    completed by the entity step, then by the verdict; `{}` before the first depth."""

    kind: Literal["tog"]
    depth: int
    frontier: list[ShownEntity]
    relations: list[ShownRelation]  # per entity the first ones listed, and those chosen
    choices: list[str]  # per entity what its relation step did (ending.CHOICES)
    hops_left: int | None  # the fewest hops left the relation replies said (None: not said)
    capped: bool  # some pair reached more tails than were scored
    candidates: list[ShownCandidate]  # the best scored, best first (entities.SHOWN_CANDIDATES)
    tied: int  # candidates kept as ties (only when some were)
    verdict: str  # yes | no | unreadable | nothing new | more hops needed


class TogState(RunState, total=False):
    topics: list[FrontierEntity]  # the start entities, one per topic entity found
    frontier: list[FrontierEntity]  # entities explored at the next depth
    pairs: list[Pair]  # this depth's kept (entity, relation) pairs with their scores
    explored: list[list[Candidate]]  # the kept candidates of each depth (the triples behind them)
    depth: int  # depths explored
    calls_left: int  # model calls the question may still make (context.call_bound)
    current: DepthRecord  # this depth's record for `attempts` (relations, candidates, verdict)
    sufficient: bool  # the last sufficiency call said yes and gave answers
    answer_source: str  # graph | model_knowledge | none: read from the answers (ending.py)
