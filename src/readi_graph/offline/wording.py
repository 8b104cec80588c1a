"""How a model words each MetaQA relation, never with the KG's ids: what the evidence
benchmark and the answer-evidence tests have a stub model write, so that binding brings the
neighbours a real model's words bring (`written_by` beside "directed by")."""

from __future__ import annotations

from readi_graph.datasets.metaqa import MetaQAQuestion, gold_plan
from readi_graph.environments.kg.store.local import METAQA_RELATION

# Per relation: its words walked forwards (film -> x), and backwards (x -> film).
WORDS = {
    "directed_by": ("directed by", "films directed"),
    "written_by": ("written by", "films written"),
    "starred_actors": ("starring actors", "films starring"),
    "release_year": ("release year", "films released in"),
    "in_language": ("language", "films in language"),
    "has_genre": ("genre", "films of genre"),
    "has_tags": ("tags", "films tagged"),
    "has_imdb_rating": ("imdb rating", "films rated"),
    "has_imdb_votes": ("imdb votes", "films with votes"),
}
# The relations as the answer prompts name them, both directions (for reading triples back).
RELATIONS = sorted({*WORDS, *(f"<- {r}" for r in WORDS)})


def model_words(question: MetaQAQuestion) -> list[str]:
    """The question's gold path, one hop at a time, in a model's words."""
    return [
        WORDS[c.relation.removeprefix(METAQA_RELATION)][c.direction == "backward"]
        for c in gold_plan(question.qtype)
    ]
