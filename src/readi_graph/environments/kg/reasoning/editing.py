"""The KG edit step's two ends: what the edit prompt shows of the previous plan, and how the
editor's reply becomes the next plan.

A plan holds, per topic entity, the alternatives the model wrote; the first that instantiates
best is kept (`KGAdapter.connect`). The steerable prompt echoes every alternative with how far
it got (the paper's echoes the kept one only), so an editor never rewrites a path it has
already seen fail. An edit may drop a topic entity's path (`"Topic": []`): the plan then holds
no alternative for it, and nothing is walked or answered from it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from readi_graph.core.diagnosis import diagnosis_from, diagnosis_text, earlier_text
from readi_graph.core.parsing import OutputParseError
from readi_graph.core.state import ReadiState
from readi_graph.environments.kg.reasoning.parsing import parse_kg_edit
from readi_graph.environments.kg.reasoning.render import path_line

Record = dict[str, Any]
ALL_DROPPED = (
    "the reply drops every topic entity's path (an empty list); keep at least one path (a "
    "topic entity left out keeps its previous one)"
)


def dropped_topics(plan: Mapping[str, Any] | None) -> set[str]:
    """The topic entities a plan dropped: those mapped to no path (an empty list)."""
    return {topic for topic, alternatives in (plan or {}).items() if not alternatives}


def _source(state: ReadiState) -> str:
    """The `source` of the attempts of the plan being diagnosed (see `KGAdapter.connect`)."""
    return f"edit {state['edits_used']}" if state.get("edits_used") else "generate"


def chosen_paths(state: ReadiState) -> dict[str, list[str] | None]:
    """The path each topic entity was last instantiated with (None: its path is dropped):
    the kept alternative of the current plan, else the best instance so far (an unreadable
    reply walked nothing), else the plan's first alternative."""
    plan: dict[str, list[list[str]]] = state.get("plan") or {}
    kept = {r["path"]["topic"]: r["path"]["relations"] for r in state.get("instances") or []}
    best = {r["path"]["topic"]: r["path"]["relations"] for r in state.get("best_instances") or []}
    out: dict[str, list[str] | None] = {}
    dropped = dropped_topics(plan)
    for topic in state.get("topic_entities") or []:
        if topic in dropped:
            out[topic] = None
        else:
            out[topic] = kept.get(topic, best.get(topic, (plan.get(topic) or [[]])[0]))
    return out


def parse_edit(text: str, state: ReadiState) -> Record:
    """The next plan: the paths the reply writes, an empty list for each topic it drops, and
    the previous path of each topic it leaves out (a dropped one stays dropped)."""
    topics = state.get("topic_entities") or []
    paths, dropped = parse_kg_edit(text, topics)
    previous = chosen_paths(state)
    plan: Record = {}
    for topic in topics:
        keep = previous.get(topic)
        if paths.get(topic):
            plan[topic] = [list(r) for r in paths[topic]]
        elif topic in dropped or keep is None:
            plan[topic] = []
        else:
            plan[topic] = [list(keep)]
    if topics and not any(plan.values()):
        raise OutputParseError(ALL_DROPPED)
    return plan


def _status(attempt: Record) -> str:
    relations: list[str] = attempt.get("relations") or []
    failed = attempt.get("failed_at")
    if not attempt.get("topic_found", True):
        return "the topic entity is not in the knowledge graph"
    if not relations:
        return "no relation"
    if failed is not None:
        after = f" after {failed} step{'s' if failed > 1 else ''}" if failed else ""
        return f'stuck at step {failed + 1} ("{relations[failed]}"){after}'
    if attempt.get("compound_end"):
        return "complete, but ends in compound nodes"
    return "complete: reaches named entities"


def _latest_attempts(state: ReadiState) -> list[Record]:
    """The attempts of the plan being diagnosed (the last run of its `source`)."""
    source = _source(state)
    out: list[Record] = []
    for attempt in reversed(state.get("attempts") or []):
        if attempt.get("source") != source:
            if out:
                break
            continue
        out.append(attempt)
    return out[::-1]


def attempts_text(state: ReadiState) -> str:
    """Every alternative of the plan with how far it got, one line each; the kept one said
    so (the prompt's "How Far Each Path Got")."""
    plan: dict[str, list[list[str]]] = state.get("plan") or {}
    chosen = chosen_paths(state)
    tried = {(a.get("topic"), tuple(a.get("relations") or ())): a for a in _latest_attempts(state)}
    if not tried:
        return "(nothing: the reply could not be read)"
    lines = []
    for topic in state.get("topic_entities") or []:
        if chosen.get(topic) is None:
            lines.append(f"- {topic}: dropped (no path)")
            continue
        for relations in plan.get(topic) or [chosen[topic] or []]:
            attempt = tried.get((topic, tuple(relations)))
            status = (
                _status(attempt)
                if attempt is not None
                else "not tried (an earlier alternative reached named entities)"
            )
            kept = " (kept)" if list(relations) == chosen[topic] and attempt is not None else ""
            lines.append(f"- {path_line(topic, relations)}: {status}{kept}")
    return "\n".join(lines)


def _paths_json(paths: Mapping[str, Sequence[Sequence[str]]]) -> str:
    return json.dumps(
        {t: [path_line(t, r) for r in alternatives] for t, alternatives in paths.items()},
        ensure_ascii=False,
    )


def edit_values(state: ReadiState, feedback: str) -> dict[str, str]:
    """The edit prompt's values. `steerable`: every alternative of the plan and how far each
    got; `paper`: the kept path of each topic entity alone, as published."""
    chosen = chosen_paths(state)
    diagnosis = diagnosis_from(state.get("diagnosis") or {})
    errors, halfway, candidates = diagnosis_text(diagnosis)
    if feedback == "paper":
        paths = {t: [] if r is None else [r] for t, r in chosen.items()}
        shown, attempts = _paths_json(paths), ""
    else:
        plan: dict[str, list[list[str]]] = state.get("plan") or {}
        paths = {t: [] if r is None else (plan.get(t) or [r]) for t, r in chosen.items()}
        shown, attempts = _paths_json(paths), attempts_text(state)
    return {
        "question": state["question"],
        "topic_entities": json.dumps(state.get("topic_entities") or [], ensure_ascii=False),
        "path": shown,
        "attempts": attempts,
        "errors": errors,
        "instances": halfway,
        "candidates": candidates,
        "earlier": earlier_text(diagnosis),
    }
