"""A made-up MetaQA-shaped KG for ToG's tests (`subject|relation|object`, as MetaQA's kb.txt):
a director of five films, two of them with no language, an actor of two films who wrote a
third; and a scripted ToG model whose replies are chosen per prompt by the test."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph

from fakes import FunctionModel, function_model, tog_kind, tog_own

FILMS = """\
Harbor Lights|directed_by|Ines Calloway
Harbor Lights|in_language|Spanish
Harbor Lights|starred_actors|Lena Marsh
Harbor Lights|release_year|2001
Paper Moons|directed_by|Ines Calloway
Paper Moons|in_language|English
Paper Moons|starred_actors|Dara Quill
Winter Ferry|directed_by|Ines Calloway
Winter Ferry|release_year|2004
Salt Road|directed_by|Ines Calloway
Salt Road|in_language|Spanish
Salt Road|starred_actors|Dara Quill
Salt Road|written_by|Ines Calloway
Glass Orchard|directed_by|Ines Calloway
Glass Orchard|starred_actors|Lena Marsh
Glass Orchard|written_by|Dara Quill
"""
LANGUAGES = {  # the question of most tests: two hops, films with no language on the way
    "question": "which languages are the films directed by [Ines Calloway] in",
    "topic_entities": ["Ines Calloway"],
}
DIRECTED = {  # one hop, five equally valid answers
    "question": "which films did [Ines Calloway] direct",
    "topic_entities": ["Ines Calloway"],
}


def films_kg(directory: Path) -> KnowledgeGraph:
    kb = directory / "kb.txt"
    kb.write_text(FILMS, encoding="utf-8")
    return KnowledgeGraph.from_metaqa(kb)


def candidates(prompt: str) -> list[str]:
    """The candidate lines of an entity-scoring prompt."""
    return re.findall(r"(?m)^\d+\. (.*)$", tog_own(prompt))


def listed(prompt: str) -> list[str]:
    """The relations a relation prompt lists."""
    return tog_own(prompt).split("Relations:\n")[1].split("\nChoose")[0].splitlines()


def tog_script(
    relations: dict[int, str],
    *,
    hops: dict[int, int] | None = None,
    scores: Callable[[list[str]], str] = lambda lines: "Scores: all",
    verdict: Callable[[str], str] = lambda triples: "{No}. Not yet.",
    answer: str = "{x}",
) -> FunctionModel:
    """Replies by prompt kind: at depth d (relations walked so far + 1) the relation reply
    `relations[d]` (a whole reply), then `Hops left: hops[d]` when given; the entity scores
    from the candidate lines; the verdict from the triples; the final `answer`."""

    def reply(prompt: str) -> str:
        kind = tog_kind(prompt)
        if kind == "relations":
            depth = tog_own(prompt).split("Reached by: ")[1].split("\n")[0].count(" -> ") // 2 + 1
            text = relations.get(depth, "{}")
            return text + (f"\nHops left: {hops[depth]}" if hops and depth in hops else "")
        if kind == "entities":
            return scores(candidates(prompt))
        if kind == "reason":
            return verdict(tog_own(prompt).split("Knowledge Triples:\n")[1])
        return answer

    return function_model(reply)
