"""ToG's entity step, once per depth: the tails of each kept (entity, relation) are read and
scored (one call per pair with two or more candidates), then entity pruning keeps the W best
by relation x entity score, no call.

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

from typing import Literal

from readi_graph.core.context import run_settings
from readi_graph.core.llm import ModelRef
from readi_graph.core.nodes import Meter, ModelNode, Steps, guarded, model_node
from readi_graph.core.prompts import render
from readi_graph.environments.kg.explore import Explorer
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.records import term_from
from readi_graph.strategies.tog import leads, scoring, search
from readi_graph.strategies.tog.context import TogContext
from readi_graph.strategies.tog.nodes import similarity
from readi_graph.strategies.tog.parsing import parse_scores
from readi_graph.strategies.tog.state import (
    Candidate,
    DepthRecord,
    FrontierEntity,
    Pair,
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
        run = run_settings(TogContext)
        question = state["question"]
        frontier: list[FrontierEntity] = state.get("frontier") or []
        pairs: list[Pair] = state.get("pairs") or []
        current: DepthRecord = state.get("current") or {}
        left = int(state.get("calls_left", 0))
        depth = state.get("depth", 0) + 1
        last = depth >= run.depth  # nothing leads on from the last depth: no query for it
        revisit = kg.settings.revisit_topic or depth == 1
        avoid = set() if revisit else {term_from(t["node"]) for t in state.get("topics") or []}
        with Meter("entities") as meter:
            similar = similarity(explorer, question, run)
            rank = run.prune != "llm" or run.entity_pruning == "dense"
            got = guarded(meter, lambda: {"tails": search.tails(
                explorer, frontier, pairs, cap=run.max_candidates, seed=run.seed, avoid=avoid,
                similarity=similar, rank=rank)})  # fmt: skip
            if "failure" in got:
                return {"failure": got["failure"], "usage": meter.usage}
            found: list[list[Tail]] = got["tails"][0]
            capped: bool = got["tails"][1]
            distinct = {(r["node"]["kind"], r["node"]["value"]) for rows in found for r in rows}
            # at most W candidates where they are the answers' candidates (the last depth, or
            # no hops left, said the relation step): all are kept, a call changes nothing
            answers_here = last or current.get("hops_left") == 0
            needless = run.skip_needless_calls and answers_here and len(distinct) <= run.width
            asks = run.prune == "llm" and run.entity_pruning == "scored" and not needless
            shows = asks and not last and run.candidate_relations > 0
            shows = shows and any(len(rows) >= 2 for rows in found)
            near = guarded(meter, lambda: {"n": leads.around(explorer, found) if shows else {}})
            if "failure" in near:
                return {"failure": near["failure"], "usage": meter.usage}
            candidates: list[Candidate] = []
            for pair, rows in zip(pairs, found, strict=True):
                if run.entity_pruning == "random":
                    scores = scoring.drawn(rows, run.seed, question)
                elif run.entity_pruning == "dense" or run.prune != "llm":
                    scores = scoring.similar_entities(rows, similar)
                elif len(rows) < 2 or needless:  # one candidate, or all kept: no call
                    meter.count("entity_scores_skipped", len(rows) >= 2)
                    scores = [1.0] * len(rows)
                elif left <= 0:  # never reached: the bound leaves a call for each pair
                    meter.count("budget_spent")
                    scores = scoring.uniform(len(rows))
                else:
                    source = frontier[pair["entity"]]
                    shown = [
                        f"{k}. {_shown(r)}"
                        + (leads.line(explorer, r, pair, near["n"], similar,
                                      run.candidate_relations) if shows else "")
                        for k, r in enumerate(rows, 1)
                    ]  # fmt: skip
                    prompt = render(
                        "tog_entities" if run.entity_scores == "each" else "tog_entities_share",
                        run.prompt_budget,
                        question=question,
                        entity=source["name"],
                        path=source["path"],
                        relation=pair["name"],
                        candidates="\n".join(shown),
                        leads=leads.SHOWN if shows else leads.LAST if last else "",
                    )
                    reply = meter.llm((yield prompt, None))
                    left -= 1
                    parsed = parse_scores(reply.text, len(rows))
                    meter.count("entity_scores")
                    meter.count("entity_scores_unreadable", parsed is None)
                    scores = parsed if parsed is not None else scoring.uniform(len(rows))
                source = frontier[pair["entity"]]
                candidates += [
                    {**r, "entity": pair["entity"], "source": source["node"],
                     "path": source["path"], "topic": source.get("topic"),
                     "relation": pair["relation"], "forward": pair["forward"],
                     "relation_name": pair["name"], "score": round(pair["score"] * s, 6)}
                    for r, s in zip(rows, scores, strict=True)
                ]  # fmt: skip
            ties = [] if last else search.tied(candidates, run.width)
            known = leads.counts(near["n"])
            unread = [t for t in ties if t not in known]
            more = guarded(meter, lambda: {"n": search.onward(explorer, unread) if unread else {}})
            if "failure" in more:
                return {"failure": more["failure"], "usage": meter.usage}
        kept = search.prune(candidates, run.width, {**known, **more["n"]})
        onward = (current.get("hops_left") or 0) >= 1  # the relation step said: not answers yet
        tied = search.also_tied(candidates, kept) if run.keep_ties and not onward else []
        chosen, extra = {id(c) for c in kept}, {id(c) for c in tied}
        notes = list(state.get("notes") or [])
        if capped and CAPPED not in notes:
            notes.append(CAPPED)
        record: DepthRecord = {**current, "capped": capped, "candidates": [
            {"entity": c["entity"], "relation": c["relation_name"], "name": c["name"],
             "via": c["via"]["name"] if c["via"] else None, "score": c["score"],
             "kept": id(c) in chosen, "tied": id(c) in extra}
            for c in sorted(candidates, key=lambda c: -c["score"])[:SHOWN_CANDIDATES]
        ]}  # fmt: skip
        if tied:
            record["tied"] = len(tied)
        return {
            "frontier": [
                {
                    "node": c["node"],
                    "name": c["name"],
                    "path": search.path_text(c),
                    "topic": c.get("topic"),
                }
                for c in kept
                if c["node"]["kind"] != "literal"
            ],
            "explored": [*(state.get("explored") or []), [*kept, *tied]],
            "depth": depth,
            "calls_left": left,
            "current": record,
            "notes": notes,
            "usage": meter.usage,
        }

    return model_node(model, entities, native=kg.native_async)


def _shown(row: Tail) -> str:
    via = row.get("via")
    return f"{row['name']} ({via['name']})" if via else str(row["name"])


def route_after_entities(state: TogState) -> Literal["reason", "answer"]:
    explored = state.get("explored") or []
    return "reason" if explored and explored[-1] and not state.get("failure") else "answer"
