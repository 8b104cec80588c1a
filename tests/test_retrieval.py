"""Relation binding: tokenization, BM25 ranking at Freebase scale, RRF fusion with MiniLM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readi_graph.core.text import local_name
from readi_graph.environments.kg.relations.encoder import dense_available
from readi_graph.environments.kg.relations.retrieval import RelationIndex, relation_text, tokens

FB = "http://rdf.freebase.com/ns/"


def test_local_names_and_words() -> None:
    assert local_name(FB + "film.film.directed_by") == "film.film.directed_by"
    assert local_name("urn:readi:metaqa:relation:starred_actors") == "starred_actors"
    assert local_name("http://schema.org/birthPlace") == "birthPlace"
    assert relation_text("http://schema.org/birthPlace") == "birth place"
    assert (
        relation_text(FB + "film.film.directed_by", "Director") == "film film directed by Director"
    )
    assert tokens("Directed by") == tokens("direct")  # stemming; stopwords dropped


@pytest.fixture(scope="module")
def freebase_index(freebase_dir: Path) -> RelationIndex:
    relations = json.loads((freebase_dir / "fb_relations_domain_range_label.json").read_text())
    return RelationIndex([FB + r for r in relations], dense=False)


def test_bm25_binds_at_freebase_scale(freebase_index: RelationIndex) -> None:
    assert len(freebase_index) == 20951
    top = [r for r, _ in freebase_index.search("film directed by", 5)]
    assert FB + "film.film.directed_by" in top
    top = [r for r, _ in freebase_index.search("place of birth", 5)]
    assert FB + "people.person.place_of_birth" in top


def test_search_is_deterministic_and_empty_without_overlap(freebase_index: RelationIndex) -> None:
    assert freebase_index.search("spouse", 5) == freebase_index.search("spouse", 5)
    assert freebase_index.search("qqqzzzxx", 5) == []


def test_rank_orders_candidates_by_similarity(freebase_index: RelationIndex) -> None:
    ranked = freebase_index.rank(
        "who directed the film",
        [FB + "people.person.children", FB + "film.film.directed_by", "urn:unknown"],
    )
    assert ranked[0] == FB + "film.film.directed_by"
    assert ranked[-1] == "urn:unknown"


@pytest.mark.embed
@pytest.mark.skipif(not dense_available(), reason="needs the [embed] extra")
def test_dense_fusion_finds_paraphrases() -> None:
    """'acted in' shares no stem with 'starred actors'; MiniLM bridges it and RRF keeps it."""
    metaqa = [
        "directed_by",
        "written_by",
        "starred_actors",
        "release_year",
        "in_language",
        "has_genre",
        "has_tags",
        "has_imdb_rating",
        "has_imdb_votes",
    ]
    relations = [f"urn:readi:metaqa:relation:{r}" for r in metaqa]
    sparse = RelationIndex(relations, dense=False)
    fused = RelationIndex(relations, dense=True)
    starred = "urn:readi:metaqa:relation:starred_actors"
    assert starred not in [r for r, _ in sparse.search("acted in", 5)]
    assert starred in [r for r, _ in fused.search("acted in", 2)]
    assert "urn:readi:metaqa:relation:written_by" in [r for r, _ in fused.search("screenwriter", 3)]
    # Where BM25 and MiniLM agree, fusion keeps the shared winner first.
    assert fused.search("spoken language", 1)[0][0] == "urn:readi:metaqa:relation:in_language"


@pytest.mark.skipif(not dense_available(), reason="needs the [embed] extra")
def test_dense_scores_are_the_cosines_and_batched_search_agrees() -> None:
    import numpy as np

    from readi_graph.environments.kg.relations.encoder import phrase_vector

    relations = [
        f"urn:r:{name}" for name in ("directed_by", "in_language", "has_genre", "starred_actors")
    ]
    index = RelationIndex(relations, dense=True)
    vector = phrase_vector("language")
    np.testing.assert_allclose(
        index.dense_scores("language"), index._relation_vectors() @ vector, rtol=1e-5, atol=1e-6
    )
    queries = ["language", "director", "actor"]
    # one batch of queries or one at a time: the same relations, scores equal up to the last
    # bits of float32 (the batch shape changes the BLAS kernel), not bit for bit
    many, single = index.search_many(queries, 2), [index.search(q, 2) for q in queries]
    assert [[r for r, _ in hits] for hits in many] == [[r for r, _ in hits] for hits in single]
    scores = [s for hits in single for _, s in hits]
    assert [s for hits in many for _, s in hits] == pytest.approx(scores, rel=1e-5, abs=1e-6)
