"""The FiDeLiS oracle on MetaQA (offline/fidelis.py): it plays FiDeLiS's own prompts
from a question's gold relation chain, never its answers, and `readi eval metaqa --strategy
fidelis` runs offline with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from readi_graph.cli import main
from readi_graph.core.prompts import render
from readi_graph.datasets.metaqa import MetaQAQuestion
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph
from readi_graph.offline.fidelis import FidelisOracle, OracleError, statement, walk
from readi_graph.strategies import get

Q = MetaQAQuestion(
    id="q1",
    question="who directed the films starred by [Ann]",
    topic="Ann",
    answers=("NOT SHOWN ANYWHERE",),  # the oracle must never need them
    qtype="actor_to_movie_to_director",
    hops=2,
)


def ask(prompt: str) -> str:
    return str(FidelisOracle.over([Q]).invoke([HumanMessage(prompt)]).content)


def test_a_path_is_read_as_relations_and_its_last_entity() -> None:
    assert walk("Ann -> <- starred_actors -> Up -> directed_by -> Bo") == (
        ["<- starred_actors", "directed_by"],
        "Bo",
    )
    assert walk("Ann -> <- starred_actors -> A -> B") == (["<- starred_actors"], "A -> B")
    assert walk("Ann") == ([], "Ann")


def test_the_plan_names_the_gold_relations_and_carries_the_question() -> None:
    prompt = render("fidelis_plan", question=Q.question, topic_entities='["Ann"]')
    plan = json.loads(ask(prompt))
    assert plan["keywords"] == ["starred actors", "directed by"]
    assert plan["declarative_statement"] == statement(Q.question)
    assert "NOT SHOWN" not in json.dumps(plan)


def _select(candidates: list[str], width: int = 2) -> list[int]:
    listing = "\n".join(f"{i}. {c}" for i, c in enumerate(candidates, 1))
    prompt = render("fidelis_select", question=Q.question, plan="-", candidates=listing,
                    width=str(width))  # fmt: skip
    chosen: list[int] = json.loads(ask(prompt))
    return chosen


def test_selection_keeps_the_paths_that_follow_the_gold_chain_first() -> None:
    candidates = [
        "Ann -> has_tags -> drama",  # Path-RAG's best, off the chain
        "Ann -> <- starred_actors -> Up",
        "Ann -> <- written_by -> Down",
        "Ann -> <- starred_actors -> Big",
        "Ann -> <- starred_actors -> Heat",
    ]
    assert _select(candidates) == [2, 4]  # on the chain, in Path-RAG's order, width 2
    assert _select(candidates, width=5) == [2, 4, 5]  # fewer than the width: allowed
    second = ["Ann -> <- starred_actors -> Up -> in_language -> English",
              "Ann -> <- starred_actors -> Up -> directed_by -> Bo"]  # fmt: skip
    assert _select(second) == [2]
    # nothing follows the chain: the search's own ranking
    assert _select(["Ann -> has_tags -> x", "Ann -> written_by -> y", "Ann -> x -> z"]) == [1, 2]


def test_verification_says_yes_once_the_whole_chain_is_walked() -> None:
    def verdict(path: str) -> str:
        return ask(render("fidelis_verify", statement=statement(Q.question), path=path))

    assert verdict("Ann -> <- starred_actors -> Up -> directed_by -> Bo").startswith("yes")
    assert verdict("Ann -> <- starred_actors -> Up").startswith("no")
    assert verdict("Ann -> <- written_by -> Up -> directed_by -> Bo").startswith("no")
    # a plan the oracle did not write: the statement is the question itself
    assert ask(render("fidelis_verify", statement=Q.question,
                      path="Ann -> <- starred_actors -> Up -> directed_by -> Bo")).startswith("yes")  # fmt: skip


def test_the_answer_is_read_from_the_paths_shown_most_supported_first() -> None:
    paths = "\n".join([
        "(verified) Ann -> <- starred_actors -> Up -> directed_by -> Bo",
        "(verified) Ann -> <- starred_actors -> Big -> directed_by -> Cy",
        "(verified) Ann -> <- starred_actors -> Heat -> directed_by -> Cy",
        "(unverified) Ann -> <- starred_actors -> Red -> in_language -> English",
    ])  # fmt: skip
    prompt = render("fidelis_reason", question=Q.question, paths=paths, instruction="Answer.")
    assert json.loads(ask(prompt))["answers"] == ["Cy", "Bo"]  # verified only; Cy twice
    unverified = "(unverified) Ann -> <- starred_actors -> Up\n(unverified) Ann -> has_tags -> Z"
    prompt = render("fidelis_reason", question=Q.question, paths=unverified, instruction="A.")
    assert json.loads(ask(prompt))["answers"] == ["Up", "Z"]  # none verified: every end


def test_prompts_it_cannot_play_are_typed_errors() -> None:
    with pytest.raises(OracleError, match="not a FiDeLiS prompt"):
        ask("hello")
    with pytest.raises(OracleError, match="no gold chain"):
        ask(render("fidelis_plan", question="an unknown question", topic_entities="[]"))


def test_fidelis_answers_metaqa_within_its_bound(
    metaqa_kg: KnowledgeGraph, metaqa_dir: Path
) -> None:
    """The real search on the real KB, steered by the oracle: 2-hop questions answered."""
    import itertools

    from readi_graph.datasets.metaqa import load_questions
    from readi_graph.eval.metrics import hit1

    questions = list(itertools.islice(load_questions(metaqa_dir, 2), 4))
    graph = build_graph(metaqa_kg, FidelisOracle.over(questions), strategy="fidelis")
    bound = get("fidelis").bound(None, 1)
    assert bound == 4 * 4 + 4 + 2
    hits = 0
    for q in questions:
        out = graph.invoke({"question": q.question, "topic_entities": [q.topic]})
        assert not out.get("error") and 2 <= out["usage"]["llm_calls"] <= bound
        assert out["usage"]["verifications_unreadable"] == 0 and out["path"]
        hits += hit1(list(q.answers), out["answers"])
    assert hits >= 3


def test_readi_eval_runs_fidelis_offline(
    metaqa_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "f.jsonl"
    code = main(["eval", "metaqa", "--data", str(metaqa_dir), "--hops", "1", "--limit", "3",
                 "--strategy", "fidelis", "--out", str(out)])  # fmt: skip
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and summary["n"] == 3 and summary["errors"] == 0
    assert "driver=oracle" in summary["run"] and summary["hit1"] > 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert {line["strategy"] for line in lines} == {"fidelis"}
