"""ToG's exploration nodes: start -> relations -> entities, once per depth.

Per depth, for each frontier entity one call keeps at most W scored relations (`relations`);
for each kept (entity, relation) one call scores its tails when two or more are named
(`entities`), then entity pruning keeps the W best by relation x entity score, no call. The
calls left live in state (`calls_left`, from `context.call_bound`): a node asks the model only
while some are left, so a question never takes more, whatever the model replies.
"""

from __future__ import annotations

from typing import Any, Literal

from readi_graph.core.base import InputError
from readi_graph.core.context import run_settings
from readi_graph.core.inputs import checked_input
from readi_graph.core.llm import ModelRef
from readi_graph.core.nodes import Meter, ModelNode, Steps, guarded, model_node
from readi_graph.core.prompts import render
from readi_graph.environments.kg.explore import Explorer, Similarity
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.linking import linking_notes, topic_entities_for
from readi_graph.environments.kg.records import term_from
from readi_graph.strategies.tog import scoring, search
from readi_graph.strategies.tog.context import TogContext, call_bound
from readi_graph.strategies.tog.human import ask_person
from readi_graph.strategies.tog.parsing import parse_relations, parse_scores

State = dict[str, Any]
Record = dict[str, Any]
SHOWN_RELATIONS = 8  # relations per entity kept in the depth's record (the run picture)
SHOWN_CANDIDATES = 30  # candidates per depth kept in the record


def similarity(explorer: Explorer, question: str, run: TogContext) -> Similarity:
    """Similarity to the question: BM25/overlap in `bm25` mode, else dense when available."""
    return explorer.similarity(question, dense=False if run.prune == "bm25" else None)


def steps_needed(depth: int) -> int:
    return 3 * depth + 2  # start, (relations, entities, reason) per depth, answer


def make_start(kg: KnowledgeGraph) -> Any:
    explorer = Explorer(kg)

    def start(state: State) -> dict[str, Any]:
        run = run_settings(TogContext)
        checked = checked_input(state)
        question, given = checked["question"], checked["topic_entities"]
        if min(run.width, run.depth, run.max_candidates) < 1:
            raise InputError("ToG needs width, depth and max_candidates of at least 1")
        limit = _recursion_limit()
        if steps_needed(run.depth) > limit:
            raise InputError(
                f"depth {run.depth} takes {steps_needed(run.depth)} graph steps, over the "
                f"recursion limit {limit}: pass config={{'recursion_limit': "
                f"{steps_needed(run.depth)}}} or lower the depth"
            )

        def resolve() -> dict[str, Any]:
            # the given topic entities, else those found in the question (none: no call)
            linked = topic_entities_for(kg, question, given)
            frontier, notes = search.starts(explorer, linked["topic_entities"])
            return {**linked, "frontier": frontier, "notes": linking_notes(linked) + notes}

        with Meter("start") as meter:
            found = guarded(meter, resolve)
        frontier = found.get("frontier", [])
        return {
            "failure": found.get("failure"),
            "error": None,
            "topic_entities": found.get("topic_entities", given or []),
            "linking": found.get("linking"),
            "topics": frontier,
            "frontier": frontier,
            "explored": [],
            "depth": 0,
            "calls_left": call_bound(run.width, run.depth, len(frontier)),
            "sufficient": False,
            "current": {},
            "notes": found.get("notes", []),
            "usage": meter.usage,
        }

    return start


def _recursion_limit() -> int:
    try:
        from langgraph.config import get_config

        return int(get_config().get("recursion_limit", 25))
    except (RuntimeError, KeyError, TypeError, ValueError):
        return 25


def route_after_start(state: State) -> Literal["relations", "answer"]:
    return "relations" if state.get("frontier") and not state.get("failure") else "answer"


def make_relations(kg: KnowledgeGraph, model: ModelRef) -> ModelNode:
    explorer = Explorer(kg)

    def relations(state: State) -> Steps:
        run = run_settings(TogContext)
        frontier: list[Record] = state.get("frontier") or []
        left = int(state.get("calls_left", 0))
        depth = state.get("depth", 0) + 1
        with Meter("relations") as meter:
            similar = similarity(explorer, state["question"], run)
            got = guarded(meter, lambda: {"listed": search.listings(explorer, frontier, similar)})
            if "failure" in got:
                return {"failure": got["failure"], "pairs": [], "usage": meter.usage}
            listed: list[list[Record]] = got["listed"]
            if run.pruner == "human":
                chosen = ask_person(state["question"], depth, run.width, frontier, listed)
                meter.count("human_prunes")
            else:
                chosen = []
                for entity, rows in zip(frontier, listed, strict=True):
                    if not rows:
                        chosen.append([])
                    elif run.prune != "llm":
                        chosen.append(scoring.top_relations(rows, similar, run.width))
                    elif len(rows) == 1:  # nothing to choose: no call
                        chosen.append([(0, 1.0)])
                    elif left <= 0:  # never reached: the bound leaves a call for each entity
                        meter.count("budget_spent")
                        chosen.append([])
                    else:
                        prompt = render(
                            "tog_relations",
                            run.prompt_budget,
                            question=state["question"],
                            entity=entity["name"],
                            path=entity["path"],
                            relations="\n".join(r["name"] for r in rows),
                            width=str(run.width),
                        )
                        reply = meter.llm((yield prompt, None))
                        left -= 1
                        parsed = parse_relations(reply.text, [r["name"] for r in rows], run.width)
                        meter.count("relation_choices")
                        meter.count("relation_choices_unreadable", parsed is None)
                        chosen.append(parsed or [])
        pairs = [
            {"entity": i, "relation": listed[i][k]["relation"], "forward": listed[i][k]["forward"],
             "name": listed[i][k]["name"], "score": score}
            for i, picks in enumerate(chosen)
            for k, score in picks
            if score > 0  # a relation scored 0 can only give entities scored 0
        ]  # fmt: skip
        record = {
            "kind": "tog",
            "depth": depth,
            "frontier": [{"name": e["name"], "path": e["path"]} for e in frontier],
            "relations": [
                {"entity": i, "name": r["name"], "score": dict(picks).get(k, 0.0),
                 "kept": any(k == j and s > 0 for j, s in picks)}
                for i, (rows, picks) in enumerate(zip(listed, chosen, strict=True))
                for k, r in enumerate(rows)
                if k < SHOWN_RELATIONS or any(k == j for j, _ in picks)
            ],
        }  # fmt: skip
        return {"pairs": pairs, "calls_left": left, "current": record, "usage": meter.usage}

    return model_node(model, relations, native=kg.native_async)


def make_entities(kg: KnowledgeGraph, model: ModelRef) -> ModelNode:
    explorer = Explorer(kg)

    def entities(state: State) -> Steps:
        run = run_settings(TogContext)
        question = state["question"]
        frontier: list[Record] = state.get("frontier") or []
        pairs: list[Record] = state.get("pairs") or []
        left = int(state.get("calls_left", 0))
        depth = state.get("depth", 0) + 1
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
            found, capped = got["tails"]
            candidates: list[Record] = []
            for pair, rows in zip(pairs, found, strict=True):
                if run.entity_pruning == "random":
                    scores = scoring.drawn(rows, run.seed, question)
                elif run.entity_pruning == "dense" or run.prune != "llm":
                    scores = scoring.similar_entities(rows, similar)
                elif len(rows) < 2:  # one candidate: its relation's score, no call
                    scores = [1.0] * len(rows)
                elif left <= 0:  # never reached: the bound leaves a call for each pair
                    meter.count("budget_spent")
                    scores = scoring.uniform(len(rows))
                else:
                    prompt = render(
                        "tog_entities",
                        run.prompt_budget,
                        question=question,
                        entity=frontier[pair["entity"]]["name"],
                        relation=pair["name"],
                        candidates="\n".join(f"{k}. {_shown(r)}" for k, r in enumerate(rows, 1)),
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
            last = depth >= run.depth  # at the last depth nothing leads on: no tie query
            ties = [] if last else search.tied(candidates, run.width)
            leads = guarded(meter, lambda: {"n": search.onward(explorer, ties) if ties else {}})
            if "failure" in leads:
                return {"failure": leads["failure"], "usage": meter.usage}
        kept = search.prune(candidates, run.width, leads["n"])
        chosen = {id(c) for c in kept}
        notes = list(state.get("notes") or [])
        if capped and CAPPED not in notes:
            notes.append(CAPPED)
        record = {**(state.get("current") or {}), "capped": capped, "candidates": [
            {"entity": c["entity"], "relation": c["relation_name"], "name": c["name"],
             "via": (c.get("via") or {}).get("name"), "score": c["score"], "kept": id(c) in chosen}
            for c in sorted(candidates, key=lambda c: -c["score"])[:SHOWN_CANDIDATES]
        ]}  # fmt: skip
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
            "explored": [*(state.get("explored") or []), kept],
            "depth": depth,
            "calls_left": left,
            "current": record,
            "notes": notes,
            "usage": meter.usage,
        }

    return model_node(model, entities, native=kg.native_async)


CAPPED = (
    "Some relations reached more entities than were scored: the candidates most similar to "
    "the question were kept (ties in a seeded order)."
)


def _shown(row: Record) -> str:
    via = row.get("via")
    return f"{row['name']} ({via['name']})" if via else str(row["name"])


def route_after_entities(state: State) -> Literal["reason", "answer"]:
    explored = state.get("explored") or []
    return "reason" if explored and explored[-1] and not state.get("failure") else "answer"
