"""ToG's answers read against the official code (issue 31): the verdict from its braces first,
`answer_source` from the answers themselves, the model-knowledge fallback as an option, and
`dense` modes refused without the [embed] extra."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from readi_graph.core.base import InputError
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph
from readi_graph.strategies import get
from readi_graph.strategies.tog.context import TogContext, call_bound
from readi_graph.strategies.tog.parsing import (
    parse_hops_left,
    parse_relations,
    parse_scores,
    parse_verdict,
)

from fakes import tog_kind
from tog_films import LANGUAGES, films_kg, tog_script

NOBODY = {"question": "what did [Nobody Atall] direct", "topic_entities": ["Nobody Atall"]}


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeGraph:
    return films_kg(tmp_path_factory.mktemp("films"))


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("There is no doubt here. {Yes}. {Spanish}", (True, ["Spanish"])),  # issue 31
        ("No doubt: {yes}. It is {Paris | Lyon}", (True, ["Paris", "Lyon"])),
        ("{No}. Yes, a film is there, but not its language.", (False, None)),
        ("{ Yes. } {A | B}", (True, ["A", "B"])),
        ("{No}. {Yes}. {C}", (False, ["C"])),  # the first braced verdict, as the official code
        ("{Yes}.", (True, None)),
        ("{Yes} {}", (True, [])),
        ("Yes. The triples say so. {Madrid}", (True, ["Madrid"])),  # a reply opening bare
        ("**No**, the year is missing.", (False, None)),
        ("I am not sure; no idea.", (None, None)),  # a bare word inside: no verdict
        ("yesterday it was {Paris}", (None, None)),
        ('{"sufficient": "yes", "thought": "no doubt", "answers": ["A"]}', (True, ["A"])),
        ('{"sufficient": "no", "thought": "yes, but", "answers": []}', (False, [])),
        ("```\n{Yes}. {Rome}\n```", (True, ["Rome"])),
        ("", (None, None)),
    ],
)
def test_the_verdict_is_read_from_its_braces_first(
    reply: str, expected: tuple[bool | None, list[str] | None]
) -> None:
    assert parse_verdict(reply) == expected


def test_scores_all_none_and_hops_left_are_read() -> None:
    assert parse_scores("Scores: all\nThey help equally.", 3) == [1.0, 1.0, 1.0]
    assert parse_scores("scores: None of these helps.", 2) == [0.0, 0.0]
    assert parse_scores("Scores: 1, 1, 0", 3) == [1.0, 1.0, 0.0]
    assert parse_scores("Scores: 0.5, 0.5, 0.5", 3) == [0.5] * 3  # need not add to 1
    assert parse_scores("all of them, I think", 2) is None  # no `Scores:` line
    assert parse_scores("Scores: allow 1, 0", 2) == [1.0, 0.0]  # a word, not `all`
    assert parse_hops_left("{a (Score: 1)}\nHops left: 2") == 2
    assert parse_hops_left("hops left = 0\nHops left: 1") == 1  # the last one said
    assert parse_hops_left("{a (Score: 1)}") is None


def test_answer_source_is_read_from_the_answers(films: KnowledgeGraph) -> None:
    def run(answer: str, **settings: Any) -> dict[str, Any]:
        model = tog_script({1: "{<- directed_by (Score: 1.0)}", 2: "{in_language (Score: 1)}"},
                           answer=answer)  # fmt: skip
        context = TogContext(depth=2, **settings)
        return dict(build_graph(films, model, strategy="tog").invoke(LANGUAGES, context=context))

    assert run("{Spanish | English}")["answer_source"] == "graph"
    assert run("{Spanish | Greek}")["answer_source"] == "model_knowledge"  # Greek: no triple
    assert run("{Greek}")["answer_source"] == "model_knowledge"
    assert run("I cannot tell. {}")["answer_source"] == "none"
    knowing = run("{Spanish}", answer_from="evidence_and_knowledge")  # allowed, not used
    assert knowing["answer_source"] == "graph" and knowing["grounded"]


def test_no_evidence_says_so_by_default_and_asks_the_model_as_an_option(
    metaqa_kg: KnowledgeGraph, films: KnowledgeGraph
) -> None:
    said = tog_script({}, answer="{Pedro Almodóvar}")
    out = build_graph(metaqa_kg, said, strategy="tog").invoke(NOBODY)
    assert said.prompts == [] and out["answer_source"] == "none" and out["answers"] == []
    assert out["answer"] == (
        'The knowledge graph gave no evidence: "Nobody Atall" is not in the knowledge graph (given).'
    )
    assert TogContext().no_evidence == "say_so" and TogContext.paper().no_evidence != "say_so"

    asked = tog_script({}, answer="From what I know. {Pedro Almodóvar}")
    context = TogContext(no_evidence="model_knowledge")
    out = build_graph(metaqa_kg, asked, strategy="tog").invoke(NOBODY, context=context)
    (prompt,) = asked.prompts
    assert tog_kind(prompt) == "knowledge" and "Nobody Atall" in prompt
    assert '"Nobody Atall" is not in the knowledge graph' in prompt
    assert out["answers"] == ["Pedro Almodóvar"] and out["answer_source"] == "model_knowledge"
    assert not out["grounded"] and out["evidence"] == []
    assert out["usage"]["llm_calls"] == 1 <= get("tog").bound(context, 0) == call_bound(3, 3, 1)

    # found, but the model kept no relation: the fallback says so, with no triples
    none_kept = tog_script({1: "{}"}, answer="{Spanish}")
    out = build_graph(films, none_kept, strategy="tog").invoke(LANGUAGES, context=context)
    assert [tog_kind(p) for p in none_kept.prompts] == ["relations", "knowledge"]
    assert (
        "none of the relations listed was chosen ({}) for Ines Calloway" in (none_kept.prompts[-1])
    )
    assert out["answer_source"] == "model_knowledge"  # no triple: not grounded, whatever it says


def test_dense_modes_are_refused_without_the_embed_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READI_DENSE", "0")  # as without the [embed] extra
    sparse = films_kg(tmp_path)
    for settings in ({"prune": "dense"}, {"entity_pruning": "dense"}):
        model = tog_script({1: "{<- directed_by (Score: 1.0)}"})
        graph = build_graph(sparse, model, strategy="tog")
        with pytest.raises(InputError, match=r"needs the \[embed\] extra"):
            graph.invoke(LANGUAGES, context=TogContext(**settings))  # type: ignore[arg-type]
        assert model.prompts == []  # refused before any call
    bm25 = tog_script({1: "{<- directed_by (Score: 1.0)}"})
    out = build_graph(sparse, bm25, strategy="tog").invoke(
        LANGUAGES, context=TogContext(prune="bm25", entity_pruning="random", depth=1)
    )
    assert out["attempts"] and not any(tog_kind(p) == "relations" for p in bm25.prompts)


@pytest.mark.timeout(20)
def test_a_flood_of_digits_is_read_in_linear_time() -> None:
    """A reply of 200,000 digits and a letter: the number pattern has one way to read each
    number (the former `[0-9]*\\.?[0-9]+` backtracked quadratically: minutes here)."""
    flood = "Scores: " + "7" * 200_000 + "x"
    assert parse_scores(flood, 3) is None
    assert (
        parse_relations("{" + "9" * 200_000 + "x (Score: 1." + "0" * 200_000 + ")}", ["r"], 3)
        is None
    )
