"""The scores every results file is made of, pinned value by value: a wrong key, a lenient
rule that forgives everything, or an evidence check that matches anything changes them."""

from __future__ import annotations

from readi_graph.eval.metrics import answer_in_evidence, hit_lenient, kgqa_scores, normalize


def test_kgqa_scores_names_each_figure_and_rounds_f1() -> None:
    gold = [["Paris", "City of Light"], ["Lyon"], ["Nice"]]
    # first prediction right; 1 of 2 predictions right (P 1/2), 1 of 3 answers found (R 1/3)
    assert kgqa_scores(gold, ["Paris", "Rome"]) == {
        "correct": 1.0,
        "hit1": 1.0,
        "hit_lenient": 1.0,
        "f1": 0.4,
    }
    # P 2/3, R 2/3: f1 0.666666... written with five decimals
    assert kgqa_scores(gold, ["Rome", "lyon", "NICE"]) == {
        "correct": 0.0,
        "hit1": 0.0,
        "hit_lenient": 1.0,
        "f1": 0.66667,
    }
    assert kgqa_scores(gold, ["Marseille"]) == {
        "correct": 0.0,
        "hit1": 0.0,
        "hit_lenient": 0.0,
        "f1": 0.0,
    }


def test_lenient_needs_a_gold_answer_inside_a_prediction() -> None:
    assert not hit_lenient(["Paris"], ["Rome", "Lyon"])
    assert hit_lenient(["Paris"], ["Rome", "Paris, France"])
    assert not hit_lenient([["", "!!"]], ["anything"])  # an answer that normalises to nothing
    assert not hit_lenient(["Paris"], [])


def test_answer_in_evidence_looks_for_a_gold_answer_in_any_cell() -> None:
    triples = [("Forrest Gump", "directed_by", "Robert Zemeckis"), ("Forrest Gump", "year", 1994)]
    assert answer_in_evidence(["robert zemeckis"], triples) == 1.0  # normalised
    assert answer_in_evidence([["Bob Zemeckis", "Robert Zemeckis"]], triples) == 1.0  # an alias
    assert answer_in_evidence(["1994"], triples) == 1.0  # a cell that is not text
    assert answer_in_evidence(["Tom Hanks"], triples) == 0.0
    assert answer_in_evidence(["Zemeckis"], triples) == 0.0  # a whole cell, not a part of one
    assert answer_in_evidence(["Tom Hanks"], []) == 0.0


def test_normalize_is_squad_normalisation() -> None:
    assert normalize("  The  Eiffel-Tower!  ") == "eiffel tower"
    assert normalize("Émile Zola, a writer") == "emile zola writer"
