"""ToG's first nodes: start, then relations once per depth (entities: `entities.py`).

Per depth, for each frontier entity one call keeps at most W scored relations (`relations`);
for each kept (entity, relation) one call scores its tails when two or more are named
(`entities`), then entity pruning keeps the W best by relation x entity score, no call. The
calls left live in state (`calls_left`, from `context.call_bound`): a node asks the model only
while some are left, so a question never takes more, whatever the model replies. The relation
prompt also asks how many hops the question needs after the chosen relations (`Hops left: N`,
with `skip_needless_calls`): the sufficiency call is skipped while every reply says one or more.
"""

from __future__ import annotations

from typing import Any, Literal

from readi_graph.core.base import InputError
from readi_graph.core.context import run_settings
from readi_graph.core.inputs import checked_input
from readi_graph.core.models.llm import ModelRef
from readi_graph.core.prompts import render
from readi_graph.core.run.nodes import Meter, ModelNode, Steps, guarded, model_node
from readi_graph.environments.kg.entities.linking import linking_notes, topic_entities_for
from readi_graph.environments.kg.explore import Explorer, Similarity
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.strategies.tog import scoring, search
from readi_graph.strategies.tog.context import TogContext, call_bound
from readi_graph.strategies.tog.human import ask_person
from readi_graph.strategies.tog.parsing import parse_hops_left, parse_relations
from readi_graph.strategies.tog.state import (
    DepthRecord,
    FrontierEntity,
    ListedRelation,
    Pair,
    TogState,
)

SHOWN_RELATIONS = 8  # relations per entity kept in the depth's record (the run picture)
HOPS_RULE = (
    " After the chosen relations write, on a line of its own, `Hops left: N`: how many more "
    "relations the question needs after them (0 when they reach the answers)."
)


def similarity(explorer: Explorer, question: str, run: TogContext) -> Similarity:
    """Similarity to the question: BM25/overlap in `bm25` mode, else dense when available
    (`dense` modes are refused at `start` when it is not)."""
    return explorer.similarity(question, dense=False if run.prune == "bm25" else None)


def refuse_missing_dense(explorer: Explorer, run: TogContext) -> None:
    """A `dense` mode without the [embed] extra would silently score by BM25: refused."""
    modes = (("prune", run.prune), ("entity_pruning", run.entity_pruning))
    asked = [f"{k}='dense'" for k, v in modes if v == "dense"]
    if asked and not explorer.dense:
        raise InputError(
            f"ToG {' and '.join(asked)} needs dense similarity, which needs the [embed] extra "
            "(pip install 'readi-graph[embed]'; READI_DENSE=0 turns it off): without it use "
            "prune='bm25' / entity_pruning='random'"
        )


def steps_needed(depth: int) -> int:
    return 3 * depth + 2  # start, (relations, entities, reason) per depth, answer


def make_start(kg: KnowledgeGraph) -> Any:
    explorer = Explorer(kg)

    def start(state: TogState) -> dict[str, Any]:
        run = run_settings(TogContext)
        checked = checked_input(state)
        question, given = checked["question"], checked["topic_entities"]
        if min(run.width, run.depth, run.max_candidates) < 1:
            raise InputError("ToG needs width, depth and max_candidates of at least 1")
        refuse_missing_dense(explorer, run)
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
            "calls_left": call_bound(run.width, run.depth, len(frontier))
            if frontier
            else int(run.no_evidence == "model_knowledge"),  # the answer from knowledge
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


def route_after_start(state: TogState) -> Literal["relations", "answer"]:
    return "relations" if state.get("frontier") and not state.get("failure") else "answer"


def make_relations(kg: KnowledgeGraph, model: ModelRef) -> ModelNode:
    explorer = Explorer(kg)

    def relations(state: TogState) -> Steps:
        run = run_settings(TogContext)
        frontier: list[FrontierEntity] = state.get("frontier") or []
        left = int(state.get("calls_left", 0))
        depth = state.get("depth", 0) + 1
        with Meter("relations") as meter:
            similar = similarity(explorer, state["question"], run)
            got = guarded(meter, lambda: {"listed": search.listings(explorer, frontier, similar)})
            if "failure" in got:
                return {"failure": got["failure"], "pairs": [], "usage": meter.usage}
            listed: list[list[ListedRelation]] = got["listed"]
            hops: dict[int, int] = {}  # what each entity's reply said of the hops left
            if run.pruner == "human":
                chosen = ask_person(state["question"], depth, run.width, frontier, listed)
                meter.count("human_prunes")
                said = ["person" if picks else "person chose none" for picks in chosen]
            else:
                chosen, said = [], []
                for entity, rows in zip(frontier, listed, strict=True):
                    if not rows:
                        chosen.append([])
                        said.append("none listed")
                    elif run.prune != "llm":
                        chosen.append(scoring.top_relations(rows, similar, run.width))
                        said.append("similarity")
                    elif len(rows) == 1:  # nothing to choose: no call
                        chosen.append([(0, 1.0)])
                        said.append("only one")
                    elif left <= 0:  # never reached: the bound leaves a call for each entity
                        meter.count("budget_spent")
                        chosen.append([])
                        said.append("no call left")
                    else:
                        asks = run.skip_needless_calls
                        prompt = render(
                            "tog_relations",
                            run.prompt_budget,
                            question=state["question"],
                            entity=entity["name"],
                            path=entity["path"],
                            relations="\n".join(r["name"] for r in rows),
                            width=str(run.width),
                            hops_rule=HOPS_RULE if asks else "",
                            hops_example="\nHops left: 1" if asks else "",
                        )
                        reply = meter.llm((yield prompt, None))
                        left -= 1
                        parsed = parse_relations(reply.text, [r["name"] for r in rows], run.width)
                        meter.count("relation_choices")
                        meter.count("relation_choices_unreadable", parsed is None)
                        chosen.append(parsed or [])
                        said.append(_said(parsed))
                        hops_left = parse_hops_left(reply.text) if asks else None
                        if hops_left is not None:
                            hops[len(chosen) - 1] = hops_left
        pairs: list[Pair] = [
            {"entity": i, "relation": listed[i][k]["relation"], "forward": listed[i][k]["forward"],
             "name": listed[i][k]["name"], "score": score}
            for i, picks in enumerate(chosen)
            for k, score in picks
            if score > 0  # a relation scored 0 can only give entities scored 0
        ]  # fmt: skip
        record: DepthRecord = {
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
            "choices": said,
            "hops_left": _hops_left(chosen, hops),
        }  # fmt: skip
        return {"pairs": pairs, "calls_left": left, "current": record, "usage": meter.usage}

    return model_node(model, relations, native=kg.native_async)


def _said(parsed: list[tuple[int, float]] | None) -> str:
    """What one relation reply chose, in the words the final prompt reports it with."""
    if parsed is None:
        return "unreadable"
    if not parsed:
        return "none chosen"
    return "chosen" if any(score > 0 for _, score in parsed) else "scored 0"


def _hops_left(chosen: list[list[tuple[int, float]]], hops: dict[int, int]) -> int | None:
    """The fewest hops left that the replies said, over every entity that leads on (None
    when one of them said nothing: no call is skipped on a guess)."""
    leading = [i for i, picks in enumerate(chosen) if any(score > 0 for _, score in picks)]
    if not leading or any(i not in hops for i in leading):
        return None
    return min(hops[i] for i in leading)
