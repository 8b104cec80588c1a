"""Questions run on their own subgraphs (RoG's release format): one KG per question.

A question's KG is built when its question starts (`PerQuestionKGs.kg_for`, a few
milliseconds for a few thousand triples) and nothing keeps it once the question is done, so a
run holds at most `concurrency` subgraph KGs at once, whatever the number of questions; the
relations' vectors are pooled across questions (`environments/kg/name_triples.py`). What the
subgraph holds of the answers (`eval/subgraph_paths.py`) is added to each question's record.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from readi_graph.datasets.subgraphs import SubgraphQuestion, SubgraphSet
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph, Settings
from readi_graph.environments.kg.name_triples import name_triples_kg, walkable
from readi_graph.environments.kg.relations.binding import BindingOptions
from readi_graph.environments.kg.relations.schema import RelationSchema
from readi_graph.eval.runner import Item, Record
from readi_graph.eval.subgraph_paths import SubgraphFacts, subgraph_facts


def subgraph_items(questions: Sequence[SubgraphQuestion]) -> list[Item]:
    """Runner items: the record's question, its own topic entities, each answer its own gold."""
    return [
        Item(
            q.id,
            {"question": q.question, "topic_entities": list(q.topics)},
            [[a] for a in q.answers],
        )
        for q in questions
    ]


class PerQuestionKGs:
    """Builds each question's KG from its subgraph on demand, and remembers what the subgraph
    holds of its answers until the question's record is written (`annotate`)."""

    def __init__(
        self,
        subgraphs: SubgraphSet,
        questions: Sequence[SubgraphQuestion],
        *,
        settings: Settings = "freebase",
        schema: RelationSchema | None = None,
        binding: BindingOptions | None = None,
    ) -> None:
        self.subgraphs = subgraphs
        self.by_id = {q.id: q for q in questions}
        self.settings = settings
        self.schema = schema
        self.binding = binding
        self._facts: dict[str, SubgraphFacts] = {}
        self._lock = threading.Lock()

    def kg(self, question_id: str) -> KnowledgeGraph:
        question = self.by_id[question_id]
        triples, malformed = self.subgraphs.triples(question)
        kg = name_triples_kg(
            triples,
            self.settings,
            schema=self.schema,
            binding=self.binding,
            name=f"subgraph {question_id}",
        )
        facts = subgraph_facts(
            triples, question.topics, question.answers, malformed, walkable(kg, triples)
        )
        with self._lock:
            self._facts[question_id] = facts
        return kg

    def kg_for(self, item: Item) -> KnowledgeGraph:
        return self.kg(item.id)

    def facts(self, question_id: str) -> SubgraphFacts | None:
        """What the question's subgraph holds (once its KG was built), and forget it."""
        with self._lock:
            return self._facts.pop(question_id, None)

    def annotate(self, item: Item, record: Record) -> None:
        found = self.facts(item.id)
        if found is not None:
            record.update(found.record())
