"""The KG adapter: relation paths from topic entities, instantiated on a `KnowledgeGraph`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, cast

from readi_graph.core.adapter import Material, Record, no_evidence
from readi_graph.core.answer import triple_names
from readi_graph.core.base import InputError
from readi_graph.core.context import ReadiContext
from readi_graph.core.diagnosis import Diagnosis
from readi_graph.core.parsing import parse_answer
from readi_graph.core.prompts import instruction, notes_text
from readi_graph.core.state import ReadiState
from readi_graph.environments.kg.entities import linking
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.diagnosis import diagnose
from readi_graph.environments.kg.reasoning.editing import dropped_topics, edit_values, parse_edit
from readi_graph.environments.kg.reasoning.instantiation import Instance, bind, connect
from readi_graph.environments.kg.reasoning.material import (
    READI_LAYOUT,
    chains_evidence,
    fallback,
    final_instances,
    flat_evidence,
)
from readi_graph.environments.kg.reasoning.parsing import parse_kg_paths
from readi_graph.environments.kg.reasoning.records import (
    candidate_from,
    candidate_record,
    instance_from,
    instance_record,
    step_record,
)
from readi_graph.environments.kg.reasoning.render import path_line
from readi_graph.environments.kg.reasoning.topics import ambiguity_notes
from readi_graph.environments.kg.relations.paths import Binding, KGPath


def _rank(kg: KnowledgeGraph, instance: Instance) -> tuple[int, int]:
    """Higher is better: complete with a named end > complete > deeper."""
    if instance.complete:
        labels = kg.labels(instance.frontier)
        named = any(not kg.is_compound(t, labels.get(t)) for t in instance.frontier)
        return (2 if named else 1, instance.depth)
    return (0, instance.depth)


class KGAdapter:
    prompts: Mapping[str, str] = MappingProxyType(
        {
            "generate": "kg_generate",
            "edit": "kg_edit",
            "edit_paper": "kg_edit_paper",  # ReadiContext(edit_feedback="paper")
            "answer": "kg_answer",
        }
    )

    def __init__(self, kg: KnowledgeGraph) -> None:
        self.kg = kg
        self.native_async = kg.native_async

    def prepare(self, state: ReadiState) -> Record:
        """Given topic entities, else those found in the question (none: no plan, no call)."""
        question = (state.get("question") or "").strip()
        if not question:
            raise InputError('a KG question needs {"question": "..."} (topic entities optional)')
        updates = linking.topic_entities_for(self.kg, question, state.get("topic_entities"))
        return updates if updates["topic_entities"] else {**updates, "plan": {}}

    def generate_values(self, state: ReadiState) -> dict[str, str]:
        topics = state.get("topic_entities") or []
        return {
            "question": state["question"],
            "topic_entities": json.dumps(topics, ensure_ascii=False),
        }

    # --- plans -------------------------------------------------------------------------------
    def parse_plan(self, text: str, state: ReadiState, editing: bool) -> Record:
        if editing:  # paths rewritten, dropped (`[]`) or, left out, kept (editing.py)
            return parse_edit(text, state)
        parsed = parse_kg_paths(text, state.get("topic_entities") or [])
        return {t: [list(r) for r in alternatives] for t, alternatives in parsed.items()}

    def bind(self, state: ReadiState, ctx: ReadiContext) -> Record:
        question = state.get("question")
        plan: dict[str, list[list[str]]] = state.get("plan") or {}
        # every phrase of every alternative encoded in one batch, then bound one by one
        self.kg.relation_index.prepare([r for alts in plan.values() for rs in alts for r in rs])
        return {
            topic: [
                [
                    [candidate_record(c) for c in candidates]
                    for candidates in bind(
                        self.kg, KGPath(topic, tuple(relations)), ctx.top_k, question=question
                    )
                ]
                for relations in alternatives
            ]
            for topic, alternatives in (state.get("plan") or {}).items()
        }

    def connect(self, state: ReadiState) -> tuple[list[Record], list[Record]]:
        """Each topic's alternatives in order; the first that works is kept (no LLM cost)."""
        source = f"edit {state['edits_used']}" if state.get("edits_used") else "generate"
        attempts: list[Record] = []
        bindings: dict[str, Any] = state.get("bindings") or {}
        question = state.get("question")
        best: dict[str, tuple[Instance, list[Binding]]] = {}
        for topic, alternatives in (state.get("plan") or {}).items():
            start = self.kg.resolve(topic)
            for relations, bound in zip(alternatives, bindings.get(topic, []), strict=True):
                path = KGPath(topic, tuple(relations))
                candidates = [tuple(candidate_from(c) for c in b) for b in bound]
                instance = connect(self.kg, path, candidates, start, question=question)
                attempts.append(self._attempt(source, instance))
                if topic not in best or _rank(self.kg, instance) > _rank(self.kg, best[topic][0]):
                    best[topic] = (instance, candidates)
                if _rank(self.kg, best[topic][0])[0] == 2:
                    break
        # A constraint whose last hop hit a cap walks again, keeping first the nodes the other
        # constraints reached, so the cap does not throw the intersection away.
        for topic, (instance, candidates) in best.items():
            others = [
                t for name, (i, _) in best.items() if name != topic and i.complete
                for t in i.frontier
            ]  # fmt: skip
            last = instance.hops[-1] if instance.hops else None
            if others and instance.complete and last and (last.capped or last.truncated):
                again = connect(
                    self.kg, instance.path, candidates, instance.start, question=question,
                    prefer=others,
                )  # fmt: skip
                best[topic] = (again, candidates)
        return [cast(Record, instance_record(i)) for i, _ in best.values()], attempts

    def _attempt(self, source: str, instance: Instance) -> Record:
        return {
            "source": source,
            "path": path_line(instance.path.topic, instance.path.relations),
            "topic": instance.path.topic,
            "relations": list(instance.path.relations),
            "complete": instance.complete,
            "depth": instance.depth,
            "failed_at": instance.failed_at,
            # the walk hit the frontier cap or the row limit: answers may be missing
            "capped": any(h.capped or h.truncated for h in instance.hops),
            # steps bound among the relations around the frontier (none of the top-k
            # connected there): see instantiation.bind_locally
            "local": [i for i, h in enumerate(instance.hops) if h.local],
            # complete, but every end is a compound node (the paper's Table 8)
            "compound_end": _rank(self.kg, instance)[0] == 1,
            "topic_found": instance.start.found,
            "steps": [step_record(h) for h in instance.hops],  # for `readi trace`
        }

    def unreadable_plan(self, state: ReadiState) -> Record:
        """Topics the plan had dropped (an empty list) stay dropped; the others are walked no
        more until a readable reply (`chosen_paths` keeps their last path for the editor)."""
        return {topic: [] for topic in dropped_topics(state.get("plan"))}

    def keep_best(
        self, previous: list[Record], current: list[Record], plan: Record
    ) -> list[Record]:
        """Per topic entity, the earlier instance if it ranks higher (`_rank`); ties go to
        the newer one, which the edit meant as an improvement. An edit that walked nothing
        from a topic (an unreadable reply) keeps its earlier instance; one that dropped the
        topic's path (no alternative in `plan`) keeps none."""
        dropped = dropped_topics(plan)
        earlier = {r["path"]["topic"]: r for r in previous if r["path"]["topic"] not in dropped}
        walked = {r["path"]["topic"] for r in current}
        kept = [r for topic, r in earlier.items() if topic not in walked]
        for record in current:
            old = earlier.get(record["path"]["topic"])
            better = old is not None and _rank(self.kg, instance_from(old)) > _rank(
                self.kg, instance_from(record)
            )
            kept.append(old if better and old is not None else record)
        return kept

    def diagnose(self, state: ReadiState, ctx: ReadiContext) -> Diagnosis:
        if not state.get("topic_entities"):  # none given, none found: no edit can help
            return linking.no_topic_entity(state)
        # With the budget spent (or the person done) no edit reads it: the reasons alone.
        offer = state.get("edits_used", 0) < ctx.max_edits and not state.get("editor_done")
        return diagnose(
            self.kg,
            state["question"],
            [instance_from(r) for r in state.get("instances") or []],
            feedback=ctx.edit_feedback,
            offer=offer,
            halfway_cap=ctx.halfway_cap,
            candidate_cap=ctx.candidate_cap,
        )

    def edit_values(self, state: ReadiState, ctx: ReadiContext) -> dict[str, str]:
        return edit_values(state, ctx.edit_feedback)

    # --- answers -----------------------------------------------------------------------------
    def material(self, state: ReadiState, ctx: ReadiContext) -> Material:
        """The final plan's instances as evidence: whole chains (the default) or the
        paper's flat set of triples (`evidence_layout`), with notes on what was left out."""
        instances, dropped = final_instances(state)
        topics = list(state.get("topic_entities") or [])
        question = state.get("question") or ""
        if ctx.evidence_layout == "flat":
            shown, notes = flat_evidence(self.kg, instances, question, topics, ctx.evidence_cap)
        else:
            shown, notes = chains_evidence(self.kg, instances, question, ctx.evidence_cap)
        notes = linking.linking_notes(state) + dropped + notes + shown.notes
        if any(h.capped or h.truncated for i in instances for h in i.hops):
            cap = self.kg.settings.frontier_cap
            notes.append(f"The walk kept {cap} nodes per step; more exist and are not shown.")
        for topic in topics:
            notes += ambiguity_notes(self.kg, self.kg.resolve(topic))
        source = "the knowledge triples (subject, relation, object) below"
        nodes = fallback(instances)
        labels = self.kg.labels(nodes)
        return Material(
            evidence=shown.rows,
            prompt_values={
                "triples": shown.text,
                "layout": READI_LAYOUT,
                "instruction": instruction(ctx.answer_from, source),
                "notes": notes_text(notes),
            },
            notes=notes,
            fallback=sorted({self.kg.display(t, labels.get(t)) for t in nodes}),
            known=triple_names(shown.rows),
            path=[path_line(i.path.topic, i.path.relations) for i in instances],
            no_evidence=None
            if shown.rows
            else no_evidence(state, "knowledge graph", "no path was instantiated"),
            names=shown.names,
            prompt="kg_answer_flat" if ctx.evidence_layout == "flat" else None,
        )

    def parse_answer(self, text: str) -> list[str] | None:
        return parse_answer(text)

    def plan_schema(self, state: ReadiState) -> Record:
        paths = {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3}
        topics = state.get("topic_entities") or []
        return {
            "type": "object",
            "properties": {
                "thought": {"type": "string", "maxLength": 400},
                "path": {
                    "type": "object",
                    "properties": {t: paths for t in topics},
                    "required": topics,
                },
            },
            "required": ["thought", "path"],
        }
