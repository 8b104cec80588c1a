"""Which chains an answer prompt shows (`environments/kg/answer_evidence/chains.py`, `selection.py`): whole
chains, counted exactly, on-path and complete chains first, every end once before any end
twice, ties in an order that is not the alphabet, a node reached twice continued once;
checked against a brute-force enumeration."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from readi_graph.core.base import Term, Triple
from readi_graph.environments.kg.answer_evidence.chains import (
    Chain,
    Link,
    Paths,
    Step,
    Walk,
    group_of,
    tie,
)
from readi_graph.environments.kg.answer_evidence.selection import Selection, Tree, select

TOPIC = Term.iri("urn:topic")


def node(name: str) -> Term:
    return Term.iri(f"urn:{name}")


def link(source: Term, target: Term, relation: str = "r") -> Link:
    return Link(source, target, (Triple(source, relation, target),), relation)


def walk(links: list[list[Link]], steps: list[tuple[str, ...]], **kw: object) -> Walk:
    return Walk(
        topic="T",
        starts=frozenset({TOPIC}),
        steps=[Step(f"hop {i}", r) for i, r in enumerate(steps)],
        links=links,
        status="reached its end",
        **kw,  # type: ignore[arg-type]
    )


def brute(w: Walk) -> list[Chain]:
    """Every chain of `w` by plain enumeration: from the topic, hop by hop, to a link
    nothing goes on from (or, with `ends`, a last hop ending there)."""
    out: list[Chain] = []

    def go(chain: Chain, at: Term, hop: int) -> None:
        nxt = [x for x in (w.links[hop] if hop < len(w.links) else []) if x.source == at]
        if chain and not nxt:
            last = hop == len(w.steps)
            if not (last and w.ends is not None and at not in w.ends):
                out.append(chain)
        for x in dict.fromkeys(nxt):
            go((*chain, x), x.target, hop + 1)

    go((), TOPIC, 0)
    return out


def displayed(tree: Tree) -> list[Chain]:
    """Every chain a tree shows: each way from a root to a link nothing shown continues."""
    out: list[Chain] = []

    def go(chain: Chain) -> None:
        nxt = tree.children.get((len(chain) - 1, chain[-1].target), [])
        if not nxt:
            out.append(chain)
        for x in nxt:
            go((*chain, x))

    for root in tree.roots:
        go((root,))
    return out


def shown_chains(selection: Selection) -> list[Chain]:
    return [c for tree in selection.trees.values() for c in displayed(tree)]


def test_on_path_chains_come_first_and_every_end_before_a_second_chain() -> None:
    films = [node(f"film{i}") for i in range(4)]
    people = [node(f"p{i}") for i in range(4)]
    hop1 = [link(TOPIC, f, "starred") for f in films]
    # each film: its director (on the path) and its writer (bound too, a neighbour)
    hop2 = [link(f, p, "directed_by") for f, p in zip(films, people, strict=True)]
    hop2 += [link(f, node(f"writer{i}"), "written_by") for i, f in enumerate(films)]
    hop2 += [link(films[0], people[1], "directed_by")]  # p1 is reached twice
    w = walk([hop1, hop2], [("starred",), ("directed_by", "written_by")])
    p = Paths(w, lambda t: False)
    selection = select([p], cap=8, facts={})
    shown = shown_chains(selection)
    ends = [link.target for tree in selection.trees.values() for _, link in tree.leaves()]
    # 8 lines: the four directors first (one chain each), nothing of the writers
    assert set(ends) == set(people) and len(ends) == len(set(ends)) == 4
    assert all(c[-1].relation == "directed_by" for c in shown)
    assert selection.chains == len(brute(w)) == 9
    assert selection.ends == 8 and selection.ends_shown == 4
    # p1, reached by two chains, is the end most supported: it comes first
    assert ends[0] == people[1]


def test_a_neighbour_relations_chains_wait_until_the_first_bound_relations_are_all_shown() -> None:
    """A hop "has genre" also walked `has_tags`: every tag is an end of its own, yet the genre
    chains (two genres, each reached from six films) are all shown before any tag chain,
    where "every end once before twice" over all ends would show the tags first."""
    actor = node("actor")
    films = [node(f"film{i}") for i in range(6)]
    genres = [node("drama"), node("musical")]
    tags = [[node(f"tag{i}.{j}") for j in range(5)] for i in range(6)]
    hop3 = [link(f, g, "has_genre") for f in films for g in genres]
    hop3 += [link(f, t, "has_tags") for f, ts in zip(films, tags, strict=True) for t in ts]
    hop2 = [link(actor, f, "<- starred") for f in films]
    w = walk([[link(TOPIC, actor, "starred")], hop2, hop3],
             [("starred",), ("<- starred",), ("has_genre", "has_tags")])  # fmt: skip
    selection = select([Paths(w, lambda t: False)], cap=1 + 6 + 12 + 4, facts={})
    shown = shown_chains(selection)
    genre = [c for c in shown if c[-1].relation == "has_genre"]
    assert len(genre) == 12 and selection.first_whole  # every genre chain
    assert len(shown) - len(genre) == 4 and selection.lines == 23  # then tags, to the cap
    assert selection.chains == 12 + 30 and selection.ends == 2 + 30
    few = select([Paths(w, lambda t: False)], cap=10, facts={})
    assert all(c[-1].relation == "has_genre" for c in shown_chains(few))
    assert not few.first_whole  # the cap came before every genre chain was shown


def test_one_tree_per_path_lists_what_two_relations_reach_once() -> None:
    """A hop "directed by" walked `directed_by` and `written_by`, both reaching the director (and
    from him both reach one film): one tree, the film's genres once, the other ways in say
    "as above" (four trees of the same triples before)."""
    director, film, drama, music = node("director"), node("film"), node("drama"), node("music")
    w = walk(
        [[link(TOPIC, director, "directed_by"), link(TOPIC, director, "written_by")],
         [link(director, film, "<- directed_by"), link(director, film, "<- written_by")],
         [link(film, drama, "has_genre"), link(film, music, "has_genre")]],
        [("directed_by", "written_by"), ("<- directed_by", "<- written_by"), ("has_genre",)],
    )  # fmt: skip
    selection = select([Paths(w, lambda t: False)], cap=20, facts={})
    (tree,) = selection.trees.values()
    laid = [(d, x if isinstance(x, Term) else x.predicate) for d, x in tree.layout({})]
    assert laid == [
        (0, "directed_by"), (1, "<- directed_by"), (2, "has_genre"), (2, "has_genre"),
        (1, "<- written_by"), (2, film), (0, "written_by"), (1, director),
    ]  # fmt: skip
    assert selection.chains == selection.chains_shown == 8 and selection.lines == 8


def test_a_cut_does_not_follow_the_alphabet() -> None:
    """Which of many equal ends is shown depends on a hash of the node, never on its name:
    relabelled ends (the alphabet reversed) give the same selection."""
    ends = [node(f"end{i:02d}") for i in range(30)]
    w = walk([[link(TOPIC, e) for e in ends]], [("r",)])
    tree = select([Paths(w, lambda t: False)], 10, {}).trees[group_of(w)]
    kept = {link.target for _, link in tree.leaves()}
    assert kept == set(sorted(ends, key=tie)[:10])
    assert kept != set(ends[:10]) and kept != set(ends[-10:])


def test_complete_chains_before_partial_ones_and_bare_compounds_hidden() -> None:
    a, b, c, cvt = node("a"), node("b"), node("c"), node("cvt")
    hop1 = [link(TOPIC, a), link(TOPIC, b), link(TOPIC, cvt)]
    hop2 = [link(a, c, "s")]
    w = walk([hop1, hop2], [("r",), ("s",)])
    p = Paths(w, lambda t: t == cvt)
    selection = select([p], cap=2, facts={})
    (tree,) = selection.trees.values()
    assert displayed(tree) == [(hop1[0], hop2[0])] and tree.complete
    assert selection.hidden == 1 and selection.hidden_via == ("r",)
    assert selection.chains == 2  # a -> c, and the partial chain to b
    everything = select([p], cap=10, facts={})
    (tree,) = everything.trees.values()  # one tree per topic and path, the partial one after
    assert displayed(tree) == [(hop1[0], hop2[0]), (hop1[1],)]


def test_ends_both_paths_reach_come_first() -> None:
    x, y, z = node("x"), node("y"), node("z")
    first = walk([[link(TOPIC, x), link(TOPIC, y)]], [("r",)])
    other_topic = node("other")
    second = Walk("U", frozenset({other_topic}), [Step("", ("q",))],
                  [[link(other_topic, y, "q"), link(other_topic, z, "q")]], "reached its end")  # fmt: skip
    selection = select([Paths(first, lambda t: False), Paths(second, lambda t: False)], 2, {})
    shown = {c[-1].target for c in shown_chains(selection)}
    assert shown == {y}  # y meets both constraints: both its chains, before x or z
    assert selection.ends == 3 and selection.ends_shown == 1


def test_compound_facts_count_against_the_cap_once_per_tree() -> None:
    cvt, spouse = node("cvt"), node("spouse")
    w = walk([[link(TOPIC, cvt)], [link(cvt, spouse)]], [("spouse_s",), ("spouse",)])
    selection = select([Paths(w, lambda t: False)], cap=10, facts={cvt: 3})
    assert selection.lines == 2 + 3


@st.composite
def layered(draw: st.DrawFn) -> Walk:
    """A random walk: 1-3 hops over a few nodes per layer, edges drawn at random."""
    hops = draw(st.integers(1, 3))
    layers = [[TOPIC]] + [[node(f"{h}.{i}") for i in range(draw(st.integers(1, 4)))]
                          for h in range(hops)]  # fmt: skip
    links = []
    for h in range(hops):
        pairs = list(itertools.product(layers[h], layers[h + 1]))
        chosen = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=len(pairs)))
        links.append([link(s, t, draw(st.sampled_from(["r", "q"]))) for s, t in chosen])
    ends = draw(st.none() | st.sets(st.sampled_from(layers[-1])).map(frozenset))
    return walk(links, [("r", "q")] * hops, ends=ends)


def test_a_node_reached_twice_is_continued_once() -> None:
    """Two actors of the topic film starred in one film: its director is listed once, under
    the first actor; the second actor's line says the film continues as above."""
    a, b, film, director = node("a"), node("b"), node("film"), node("director")
    w = walk([[link(TOPIC, a), link(TOPIC, b)], [link(a, film), link(b, film)],
              [link(film, director)]], [("r",), ("r",), ("r",)])  # fmt: skip
    selection = select([Paths(w, lambda t: False)], cap=10, facts={})
    (tree,) = selection.trees.values()
    layout = tree.layout({})
    shown = [(d, x if isinstance(x, Term) else x.object) for d, x in layout]
    first, second = shown[0][1], shown[3][1]  # the two actors, in a hash order
    assert {first, second} == {a, b}
    assert shown == [
        (0, first), (1, film), (2, director), (0, second), (1, film), (2, film),
    ]  # fmt: skip
    assert isinstance(layout[-1][1], Term)  # "film continues as above", not a triple
    assert selection.lines == len(layout) == 6 and selection.chains_shown == 2


@given(layered(), st.integers(1, 12))
def test_counts_and_chains_match_a_brute_force_enumeration(w: Walk, cap: int) -> None:
    every = brute(w)
    p = Paths(w, lambda t: False)
    selection = select([p], cap, {})
    shown = shown_chains(selection)
    assert selection.chains == len(every)
    assert set(shown) <= set(every) and len(shown) == len(set(shown)) == selection.chains_shown
    assert selection.ends == len({c[-1].target for c in every})
    assert selection.ends_shown == len({c[-1].target for c in shown})
    # the lines counted are the lines laid out; within the cap unless one chain passes it
    laid = sum(len(tree.layout({})) for tree in selection.trees.values())
    assert selection.lines == laid
    assert selection.lines <= max(cap, max((len(c) for c in every), default=0))
    # when every chain fits, every chain is shown
    whole: dict[object, Tree] = {}
    for c in every:
        whole.setdefault(group_of(w), Tree({}, True, 0)).add(c)
    if sum(tree.lines for tree in whole.values()) <= cap:
        assert len(shown) == len(every)
