"""ToG's entity exploration, once per depth: entity search reads the tails of each kept
(entity, relation) pair, entity scoring asks the model to score them (one call per pair with
two or more candidates), then entity pruning keeps the W best by relation x entity score, no
call.

Where this departs from the official code (each a `TogContext` setting; `TogContext.paper()`
restores it): the prompt shows the relations leaving each candidate (`candidate_relations`);
each candidate is scored on its own, 'all' and 'none' allowed (`entity_scores`); no scoring
call for at most W candidates where they are the answers' candidates (the last depth, or the
relation step said no hops are left): all are kept (`skip_needless_calls`; at an earlier depth
a score of 0 would prune a branch, so the call is made); candidates scored like the W-th kept
one stay in the evidence, not explored, unless the relation step said more hops are needed
(`keep_ties`).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Literal

from readi_graph.core.base import Term
from readi_graph.core.context import run_settings
from readi_graph.core.models.llm import ModelRef, Reply
from readi_graph.core.prompts import render
from readi_graph.core.run.nodes import Ask, Meter, ModelNode, Steps, guarded, model_node
from readi_graph.environments.kg.explore import Explorer
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.records import term_from
from readi_graph.strategies.tog import leads, scoring, search
from readi_graph.strategies.tog.context import TogContext
from readi_graph.strategies.tog.depth import Depth
from readi_graph.strategies.tog.parsing import parse_scores
from readi_graph.strategies.tog.state import (
    Candidate,
    DepthRecord,
    FrontierEntity,
    Pair,
    ShownCandidate,
    Tail,
    TogState,
)

SHOWN_CANDIDATES = 30  # candidates per depth kept in the record
CAPPED = (
    "Some relations reached more entities than were scored: the candidates most similar to "
    "the question were kept (ties in a seeded order)."
)


def make_entities(kg: KnowledgeGraph, model: ModelRef) -> ModelNode:
    explorer = Explorer(kg)

    def entities(state: TogState) -> Steps:
        """Entity search, entity scoring (a call per pair where one can change the search),
        entity pruning (no call); the next frontier."""
        left = int(state.get("calls_left", 0))
        found: list[list[Tail]]
        near: leads.Around | None
        with Meter("entities") as meter:
            at = Depth.of(state, run_settings(TogContext), explorer)
            got = guarded(meter, lambda: {"tails": search_tails(explorer, at, state)})
            if "failure" in got:
                return {"failure": got["failure"], "usage": meter.usage}
            found, capped = got["tails"]
            needless = needless_calls(at, found)
            got = guarded(meter, lambda: {"near": shown_leads(explorer, at, found, needless)})
            if "failure" in got:
                return {"failure": got["failure"], "usage": meter.usage}
            near = got["near"]
            candidates: list[Candidate] = []
            for pair, rows in zip(at.pairs, found, strict=True):
                scores = scores_without_call(meter, at, rows, needless, left)
                if scores is None:
                    prompt = scoring_prompt(explorer, at, pair, rows, near)
                    scores = yield from ask_scores(meter, prompt, len(rows))
                    left -= 1
                candidates += scored(at.frontier[pair["entity"]], pair, rows, scores)
            got = guarded(meter, lambda: {"leads": tie_breaks(explorer, at, candidates, near)})
            if "failure" in got:
                return {"failure": got["failure"], "usage": meter.usage}
        kept, tied = pruned(at, candidates, got["leads"])
        return {**update(state, at, candidates, kept, tied, capped, left), "usage": meter.usage}

    return model_node(model, entities, native=kg.native_async)


def search_tails(explorer: Explorer, at: Depth, state: TogState) -> tuple[list[list[Tail]], bool]:
    """Entity search: the tails of each pair (at most `max_candidates`; whether any had
    more). After the first depth a walk does not come back to a topic entity unless the KG's
    settings say so (`revisit_topic`). Without a model to score them, tails are ranked by
    similarity to the question; else only past the cap (below it, in a seeded order)."""
    run = at.run
    revisit = explorer.kg.settings.revisit_topic or at.number == 1
    avoid = set() if revisit else {term_from(t["node"]) for t in state.get("topics") or []}
    rank = run.prune != "llm" or run.entity_pruning == "dense"
    return search.tails(explorer, at.frontier, at.pairs, cap=run.max_candidates, seed=run.seed,
                        avoid=avoid, similarity=at.similar, rank=rank)  # fmt: skip


def needless_calls(at: Depth, found: Sequence[Sequence[Tail]]) -> bool:
    """At most W candidates where they are the answers' candidates: all are kept, a call
    changes nothing (`skip_needless_calls`). At an earlier depth a score of 0 would prune a
    branch, so the call is made."""
    distinct = {(r["node"]["kind"], r["node"]["value"]) for rows in found for r in rows}
    return at.run.skip_needless_calls and at.answers_here and len(distinct) <= at.run.width


def shown_leads(
    explorer: Explorer, at: Depth, found: Sequence[Sequence[Tail]], needless: bool
) -> leads.Around | None:
    """The relations leaving each candidate, for the scoring prompts to show (one query), so
    the model sees which candidates the question can go on from; None when not shown: no
    scoring call, the last depth (nothing goes on), `candidate_relations=0`, or no pair with
    two or more candidates to tell apart."""
    run = at.run
    asks = run.prune == "llm" and run.entity_pruning == "scored" and not needless
    shows = asks and not at.last and run.candidate_relations > 0
    if not (shows and any(len(rows) >= 2 for rows in found)):
        return None
    return leads.around(explorer, found)


def scores_without_call(
    meter: Meter, at: Depth, rows: Sequence[Tail], needless: bool, left: int
) -> list[float] | None:
    """A pair's entity scores when no call is needed, else None (ask the model): ToG-R's
    seeded draw, similarity when no model prunes, 1 each for one candidate or when all are
    kept anyway, uniform when no call is left (never reached: the bound leaves a call for
    each pair)."""
    run = at.run
    if run.entity_pruning == "random":
        return scoring.drawn(rows, run.seed, at.question)
    if run.entity_pruning == "dense" or run.prune != "llm":
        return scoring.similar_entities(rows, at.similar)
    if len(rows) < 2 or needless:
        meter.count("entity_scores_skipped", len(rows) >= 2)
        return [1.0] * len(rows)
    if left <= 0:
        meter.count("budget_spent")
        return scoring.uniform(len(rows))
    return None


def scoring_prompt(
    explorer: Explorer, at: Depth, pair: Pair, rows: Sequence[Tail], shown: leads.Around | None
) -> str:
    """The entity-scoring prompt of one pair: its candidates numbered (with the relations
    leaving each when `shown`), each scored on its own or the official shares (`entity_scores`)."""
    run, source = at.run, at.frontier[pair["entity"]]
    lines = [
        f"{k}. {_named(r)}"
        + (leads.line(explorer, r, pair, shown, at.similar, run.candidate_relations)
           if shown is not None else "")
        for k, r in enumerate(rows, 1)
    ]  # fmt: skip
    return render(
        "tog_entities" if run.entity_scores == "each" else "tog_entities_share",
        run.prompt_budget,
        question=at.question,
        entity=source["name"],
        path=source["path"],
        relation=pair["name"],
        candidates="\n".join(lines),
        leads=leads.SHOWN if shown is not None else leads.LAST if at.last else "",
    )


def ask_scores(meter: Meter, prompt: str, n: int) -> Generator[Ask, Reply, list[float]]:
    """Entity scoring, one call: an unreadable reply scores the `n` candidates alike (and is
    counted), so a bad reply neither ends nor steers the search."""
    reply = meter.llm((yield prompt, None))
    parsed = parse_scores(reply.text, n)
    meter.count("entity_scores")
    meter.count("entity_scores_unreadable", parsed is None)
    return parsed if parsed is not None else scoring.uniform(n)


def scored(
    source: FrontierEntity, pair: Pair, rows: Sequence[Tail], scores: Sequence[float]
) -> list[Candidate]:
    """The pair's tails as candidates: what each was reached from (its triples and path),
    scored relation score x entity score, as ToG ranks them across pairs."""
    return [
        {**r, "entity": pair["entity"], "source": source["node"], "path": source["path"],
         "topic": source.get("topic"), "relation": pair["relation"], "forward": pair["forward"],
         "relation_name": pair["name"], "score": round(pair["score"] * s, 6)}
        for r, s in zip(rows, scores, strict=True)
    ]  # fmt: skip


def tie_breaks(
    explorer: Explorer, at: Depth, candidates: Sequence[Candidate], shown: leads.Around | None
) -> dict[Term, int]:
    """How many relations lead on from the entities whose order decides which W are kept (a
    dead end cannot continue the search): counted from the scoring prompts' leads, the rest
    read (one query); none at the last depth, where nothing goes on."""
    ties = [] if at.last else search.tied(candidates, at.run.width)
    known = leads.counts(shown or {})
    unread = [t for t in ties if t not in known]
    return {**known, **(search.onward(explorer, unread) if unread else {})}


def pruned(
    at: Depth, candidates: Sequence[Candidate], leads_on: dict[Term, int]
) -> tuple[list[Candidate], list[Candidate]]:
    """Entity pruning, no call: the W best; and with `keep_ties` those scored like the W-th,
    equally valid answers cut only by the width, kept as evidence (not explored), unless the
    relation step said more hops follow (they are not answers yet)."""
    kept = search.prune(candidates, at.run.width, leads_on)
    keeps_ties = at.run.keep_ties and not at.onward
    return kept, search.also_tied(candidates, kept) if keeps_ties else []


def update(
    state: TogState,
    at: Depth,
    candidates: Sequence[Candidate],
    kept: list[Candidate],
    tied: list[Candidate],
    capped: bool,
    left: int,
) -> TogState:
    """The next depth's frontier (the kept entities; a value leads nowhere), the evidence
    (kept and tied), the calls left, the depth's record, and a note when tails were capped."""
    notes = list(state.get("notes") or [])
    if capped and CAPPED not in notes:
        notes.append(CAPPED)
    return {
        "frontier": [
            {"node": c["node"], "name": c["name"], "path": search.path_text(c), "topic": c["topic"]}
            for c in kept
            if c["node"]["kind"] != "literal"
        ],
        "explored": [*(state.get("explored") or []), [*kept, *tied]],
        "depth": at.number,
        "calls_left": left,
        "current": record(state.get("current") or {}, candidates, kept, tied, capped),
        "notes": notes,
    }


def record(
    current: DepthRecord,
    candidates: Sequence[Candidate],
    kept: Sequence[Candidate],
    tied: Sequence[Candidate],
    capped: bool,
) -> DepthRecord:
    """The depth's record, completed for the trace and the final prompt: the best candidates
    (kept, tied or pruned), whether tails were capped, how many ties were kept."""
    chosen, extra = {id(c) for c in kept}, {id(c) for c in tied}

    def entry(c: Candidate) -> ShownCandidate:
        via = c["via"]
        return {"entity": c["entity"], "relation": c["relation_name"], "name": c["name"],
                "via": via["name"] if via else None, "score": c["score"],
                "kept": id(c) in chosen, "tied": id(c) in extra}  # fmt: skip

    best = sorted(candidates, key=lambda c: -c["score"])[:SHOWN_CANDIDATES]
    out: DepthRecord = {**current, "capped": capped, "candidates": [entry(c) for c in best]}
    if tied:
        out["tied"] = len(tied)
    return out


def _named(row: Tail) -> str:
    via = row["via"]
    return f"{row['name']} ({via['name']})" if via else str(row["name"])


def route_after_entities(state: TogState) -> Literal["reason", "answer"]:
    explored = state.get("explored") or []
    return "reason" if explored and explored[-1] and not state.get("failure") else "answer"
