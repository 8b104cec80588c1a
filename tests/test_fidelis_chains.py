"""FiDeLiS's departures from the paper (issue 31), each against `FidelisContext.paper()`: one
pick keeps every path of a relation chain (one per end node), tag copies rank after the real
relation, a path may end on an entity it passed, and the call bound still holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from readi_graph.core import markers
from readi_graph.core.base import Term
from readi_graph.environments.kg.answer_evidence import read as evidence_read
from readi_graph.environments.kg.knowledge_graph import KGSettings, KnowledgeGraph
from readi_graph.graph import build_graph
from readi_graph.strategies import get
from readi_graph.strategies.fidelis.context import FidelisContext
from readi_graph.strategies.fidelis.pathrag import Step, Walked, candidates, mark_copies

from fakes import function_model

X = "http://example.org/"
FILMS = {  # film: (director, tag)
    "f1": ("bo", "tag_bo"), "f2": ("bo", None), "f3": ("cy", None),
    "f4": ("dee", None), "f5": ("eve", None), "f6": ("fay", None),
}  # fmt: skip
NAMES = {"ann": "Ann", "bo": "Bo Smith", "cy": "Cy", "dee": "Dee", "eve": "Eve", "fay": "Fay",
         "tag_bo": "bo smith", "tag_war": "war"}  # fmt: skip
DIRECTORS = {"Bo Smith", "Cy", "Dee", "Eve", "Fay"}
RELATIONS = {"starred_actors", "directed_by", "has_tags", "written_by"}


@pytest.fixture()
def films(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KnowledgeGraph:
    """Ann starred in six films by five directors; f1 is tagged with its director's name."""
    monkeypatch.setenv("READI_DENSE", "0")  # BM25 and word overlap score the steps
    lines = ["@prefix : <http://example.org/> ."]
    lines += [f':{k} :label "{v}" .' for k, v in NAMES.items()]
    for film, (director, tag) in FILMS.items():
        lines += [f':{film} :label "Film {film[1]}" .', f":{film} :starred_actors :ann .",
                  f":{film} :directed_by :{director} .", f":{film} :has_tags :tag_war ."]  # fmt: skip
        lines += [f":{film} :has_tags :{tag} ."] if tag else []
    kb = tmp_path / "films.ttl"
    kb.write_text("\n".join(lines) + "\n")
    return KnowledgeGraph.from_file(kb, KGSettings(label_predicates=(X + "label",)))


PLAN = {"keywords": ["starred actors", "directed by"],
        "planning_steps": ["find the films Ann starred in", "find their directors"],
        "declarative_statement": "*placeholder* directed a film starring Ann."}  # fmt: skip
QUESTION = {"question": "who directed the films starred by [Ann]", "topic_entities": ["Ann"]}


def chain_model(chain: list[str], plan: dict[str, object] = PLAN):
    """Picks the candidates that follow `chain` so far, says yes once a path walked it all,
    answers with every end the answer prompt shows."""

    def steps_of(path: str) -> list[str]:
        parts = path.split(" -> ")
        return [p for p in parts[1:-1] if p.removeprefix("<- ") in RELATIONS]

    def follows(path: str) -> bool:
        steps = steps_of(path)
        return bool(steps) and steps == chain[: len(steps)]

    def reply(prompt: str) -> str:
        own = prompt.split("### Your turn")[-1]
        if markers.FIDELIS_SELECT in prompt:
            lines = re.findall(r"(?m)^(\d+)\. (.*)$", own)
            return json.dumps([int(n) for n, path in lines if follows(path)] or [1])
        if markers.FIDELIS_VERIFY in prompt:
            path = own.split(markers.PATH)[-1].splitlines()[0]
            return "yes" if steps_of(path) == chain else "no"
        if markers.FIDELIS_PLAN in prompt:
            return json.dumps(plan)
        ends = re.findall(r"(?m)^\((?:un)?verified\) .* -> ([^>\n]+)$", own)  # the flat layout
        ends += evidence_read.ends(own)  # whole chains (the default layout)
        return json.dumps({"thought": "t", "answers": list(dict.fromkeys(ends))})

    return function_model(reply)


def test_one_pick_keeps_every_path_of_a_chain(films: KnowledgeGraph) -> None:
    """Six films, five directors: the default keeps them all (Bo Smith once); the paper's
    four picks of paths lose some and ask more."""
    answers, calls = {}, {}
    for name, context in (("chains", FidelisContext()), ("paper", FidelisContext.paper())):
        model = chain_model(["<- starred_actors", "directed_by"])
        out = build_graph(films, model, strategy="fidelis").invoke(QUESTION, context=context)
        answers[name], calls[name] = set(out["answers"]), out["usage"]["llm_calls"]
        assert calls[name] <= get("fidelis").bound(context, 1)
        if name == "chains":
            first, second = out["attempts"]
            assert first["kept"] == 1 and first["candidates"] == 6 and first["choices"] == 1
            assert second["beams"] == 6 and len(out["path"]) == 5  # f1 and f2 both reach Bo
            select = next(p for p in model.prompts if markers.FIDELIS_SELECT in p)
            assert "more paths by the same relations, ending at:" in select
            assert "Choose at most 4:" in select and "choose at most 4 candidates" in select
            assert out["usage"].get("verifications_skipped") == 1  # one step short of the plan
    assert answers["chains"] == DIRECTORS
    assert answers["paper"] < DIRECTORS and calls["paper"] > calls["chains"]


def test_a_chain_keeps_chain_cap_paths_and_says_so(films: KnowledgeGraph) -> None:
    model = chain_model(["<- starred_actors", "directed_by"])
    context = FidelisContext(chain_cap=3)
    out = build_graph(films, model, strategy="fidelis").invoke(QUESTION, context=context)
    first = out["attempts"][0]
    assert first["candidates"] == 3 and first["capped"]  # three of six films kept
    assert len(out["answers"]) <= 3


def test_a_tag_that_copies_a_name_ranks_after_the_real_relation(films: KnowledgeGraph) -> None:
    f1 = Term.iri(X + "f1")
    for copies_last in (False, True):
        found = candidates(films, [f1], "has tags", top_m=10, alpha=0.0,
                           copies_last=copies_last)  # fmt: skip
        steps = [(s.name, s.label, s.copy) for s in found.ranked[0]]
        tag, director = ("has_tags", "bo smith", copies_last), ("directed_by", "Bo Smith", False)
        assert tag in steps and director in steps
        # "has tags" favours the tag; flagged as a copy it ranks after every real step
        assert (steps.index(tag) > steps.index(director)) is copies_last
        if copies_last:
            assert steps[-1] == tag and [s for s in steps if s[2]] == [tag]


def test_mark_copies_needs_another_relation_and_a_stronger_name() -> None:
    def step(relation: str, node: Term, label: str) -> Step:
        return Step(0, relation, True, node, label, 1.0)

    a, b, c = Term.iri(X + "a"), Term.iri(X + "b"), Term.literal("bo smith")
    steps = [step("tags", Term.iri(X + "t"), "bo smith"), step("director", a, "Bo Smith"),
             step("writer", a, "Bo Smith"), step("director", b, "Bo  smith"),
             step("note", c, "bo smith"), step("tags", Term.iri(X + "u"), "<compound>")]  # fmt: skip
    flags = [s.copy for s in mark_copies(steps)]
    # the lower-case tag and the literal copy a capitalised entity; the same node by two
    # relations, a homonym by the same relation's name variant and a compound are not copies
    assert flags == [True, False, False, False, True, False]


def test_a_path_may_end_on_an_entity_it_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer who also directed: F0 -> directed_by -> Ann -> <- directed_by -> F1 ->
    written_by -> Ann ends on Ann; never back along the edge it came by, never onto the topic,
    never walked on."""
    monkeypatch.setenv("READI_DENSE", "0")
    kb = tmp_path / "w.ttl"
    kb.write_text(
        "@prefix : <http://example.org/> .\n"
        ':f0 :label "Zero" . :f1 :label "One" . :ann :label "Ann" . :bob :label "Bob" .\n'
        ":f0 :directed_by :ann . :f1 :directed_by :ann . :f1 :written_by :ann .\n"
        ":f1 :written_by :bob . :f0 :written_by :bob .\n"
    )
    kg = KnowledgeGraph.from_file(kb, KGSettings(label_predicates=(X + "label",)))
    plan = {"keywords": ["directed by", "written by"], "planning_steps": ["a", "b", "c"],
            "declarative_statement": "*placeholder* wrote a film by Zero's director."}  # fmt: skip
    question = {"question": "who wrote the films directed by the director of [Zero]",
                "topic_entities": ["Zero"]}  # fmt: skip
    chain = ["directed_by", "<- directed_by", "written_by"]
    found = {}
    for revisit in ("end", "never"):
        model = chain_model(chain, plan)
        context = FidelisContext(revisit=revisit)  # type: ignore[arg-type]
        out = build_graph(kg, model, strategy="fidelis").invoke(question, context=context)
        found[revisit] = set(out["answers"])
        assert all(p.count(" -> ") <= 6 for p in out["path"])
        for prompt in model.prompts:  # no step back along the edge just walked, none to Zero
            assert "Ann -> <- directed_by -> One -> directed_by -> Ann" not in prompt
            assert "-> <- directed_by -> Zero" not in prompt
    assert found == {"end": {"Ann", "Bob"}, "never": {"Bob"}}
    closed = Walked(frozenset({Term.iri(X + "f0"), Term.iri(X + "ann")}), Term.iri(X + "f0"),
                    (Term.iri(X + "f0"), X + "directed_by"))  # fmt: skip
    assert closed.onto(X + "directed_by", Term.iri(X + "f0"), True) == "barred"  # the topic
    assert closed.onto(X + "written_by", Term.iri(X + "ann"), True) == "end"
    assert closed.onto(X + "written_by", Term.iri(X + "ann"), False) == "barred"
    assert closed.onto(X + "written_by", Term.iri(X + "bob"), False) == "new"
    at_start = Walked(frozenset({Term.iri(X + "f0")}), Term.iri(X + "f0"))
    assert at_start.onto(X + "remake_of", Term.iri(X + "f0"), True) == "end"  # a self-loop
    assert at_start.onto(X + "remake_of", Term.iri(X + "f0"), False) == "barred"


def test_the_paper_preset_sets_every_departure_back() -> None:
    paper = FidelisContext.paper(beam_width=2)
    assert (paper.verify_from, paper.selection, paper.copies, paper.revisit) == (
        "first_step", "paths", "keep", "never")  # fmt: skip
    assert paper.beam_width == 2 and FidelisContext().selection == "chains"
    assert get("fidelis").bound(paper, 1) == get("fidelis").bound(FidelisContext(beam_width=2), 1)


def test_an_unreadable_choice_among_fewer_chains_than_the_width_keeps_them(
    films: KnowledgeGraph,
) -> None:
    inner = chain_model(["<- starred_actors", "directed_by"])

    def reply(prompt: str) -> str:
        return "none of them" if markers.FIDELIS_SELECT in prompt else str(inner.reply(prompt))

    out = build_graph(films, function_model(reply), strategy="fidelis").invoke(QUESTION)
    assert out["usage"]["selections_unreadable"] == 1 and not out.get("error")
    assert out["attempts"][1]["choices"] == 2  # directed_by and has_tags, both kept
    assert set(out["answers"]) >= DIRECTORS


def test_a_closed_path_is_verified_before_the_plans_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path that ends on a node it passed (here the topic's self-loop at depth 1) cannot walk
    on: it is verified when it is found, even before it is as long as the plan, instead of
    being skipped while the other beam walks on and replaces it."""
    monkeypatch.setenv("READI_DENSE", "0")
    kb = tmp_path / "r.ttl"
    kb.write_text(
        "@prefix : <http://example.org/> .\n"
        ':f0 :label "Zero" . :ann :label "Ann" . :f1 :label "One" .\n'
        ":f0 :remake_of :f0 . :f0 :directed_by :ann . :f1 :directed_by :ann .\n"
    )
    kg = KnowledgeGraph.from_file(kb, KGSettings(label_predicates=(X + "label",)))
    plan = {"keywords": ["remake of", "directed by"], "planning_steps": ["a", "b"],
            "declarative_statement": "Zero is a remake of *placeholder*."}  # fmt: skip

    def reply(prompt: str) -> str:
        own = prompt.split("### Your turn")[-1]
        if markers.FIDELIS_PLAN in prompt:
            return json.dumps(plan)
        if markers.FIDELIS_SELECT in prompt:  # keep every candidate
            return json.dumps([int(n) for n in re.findall(r"(?m)^(\d+)\. ", own)])
        if markers.FIDELIS_VERIFY in prompt:
            return "yes" if "remake_of -> Zero" in own.split(markers.PATH)[-1] else "no"
        return "{" + " | ".join(evidence_read.ends(own)) + "}"

    model = function_model(reply)
    question = {"question": "which film is [Zero] a remake of", "topic_entities": ["Zero"]}
    out = build_graph(kg, model, strategy="fidelis").invoke(
        question, context=FidelisContext(beam_width=2, beam_depth=2)
    )
    assert out["answers"] == ["Zero"] and len(out["path"]) == 1
    assert out["path"][0].endswith("remake_of -> Zero")
