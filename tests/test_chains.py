"""Which chains an answer prompt shows (`environments/kg/chains.py`): whole chains, counted
exactly, on-path and complete chains first, every end once before any end twice, ties in an
order that is not the alphabet; checked against a brute-force enumeration."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from readi_graph.core.base import Term, Triple
from readi_graph.environments.kg.chains import Chain, Link, Paths, Step, Walk, select, tie

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
    shown = [c for chains in selection.groups.values() for c in chains]
    ends = [c[-1].target for c in shown]
    # 8 lines: the four directors first (one chain each), nothing of the writers
    assert set(ends) == set(people) and len(ends) == len(set(ends)) == 4
    assert all(c[-1].relation == "directed_by" for c in shown)
    assert selection.chains == len(brute(w)) == 9
    assert selection.ends == 8 and selection.ends_shown == 4
    # p1, reached by two chains, is the end most supported: it comes first
    assert ends[0] == people[1]


def test_a_cut_does_not_follow_the_alphabet() -> None:
    """Which of many equal ends is shown depends on a hash of the node, never on its name:
    relabelled ends (the alphabet reversed) give the same selection."""
    ends = [node(f"end{i:02d}") for i in range(30)]
    w = walk([[link(TOPIC, e) for e in ends]], [("r",)])
    kept = {c[-1].target for c in select([Paths(w, lambda t: False)], 10, {}).groups[("T", ("r",))]}
    assert kept == set(sorted(ends, key=tie)[:10])
    assert kept != set(ends[:10]) and kept != set(ends[-10:])


def test_complete_chains_before_partial_ones_and_bare_compounds_hidden() -> None:
    a, b, c, cvt = node("a"), node("b"), node("c"), node("cvt")
    hop1 = [link(TOPIC, a), link(TOPIC, b), link(TOPIC, cvt)]
    hop2 = [link(a, c, "s")]
    w = walk([hop1, hop2], [("r",), ("s",)])
    p = Paths(w, lambda t: t == cvt)
    selection = select([p], cap=2, facts={})
    (group,) = selection.groups
    assert group == ("T", ("r", "s")) and selection.complete[group]
    assert selection.hidden == 1 and selection.hidden_via == ("r",)
    assert selection.chains == 2  # a -> c, and the partial chain to b
    everything = select([p], cap=10, facts={})
    assert list(everything.groups) == [("T", ("r", "s")), ("T", ("r",))]
    assert not everything.complete[("T", ("r",))]


def test_ends_both_paths_reach_come_first() -> None:
    x, y, z = node("x"), node("y"), node("z")
    first = walk([[link(TOPIC, x), link(TOPIC, y)]], [("r",)])
    other_topic = node("other")
    second = Walk("U", frozenset({other_topic}), [Step("", ("q",))],
                  [[link(other_topic, y, "q"), link(other_topic, z, "q")]], "reached its end")  # fmt: skip
    selection = select([Paths(first, lambda t: False), Paths(second, lambda t: False)], 2, {})
    shown = {c[-1].target for chains in selection.groups.values() for c in chains}
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


@given(layered(), st.integers(1, 12))
def test_counts_and_chains_match_a_brute_force_enumeration(w: Walk, cap: int) -> None:
    every = brute(w)
    p = Paths(w, lambda t: False)
    selection = select([p], cap, {})
    shown = [c for chains in selection.groups.values() for c in chains]
    assert selection.chains == len(every)
    assert set(shown) <= set(every) and len(shown) == len(set(shown))
    assert selection.ends == len({c[-1].target for c in every})
    assert selection.ends_shown == len({c[-1].target for c in shown})
    # lines: one per distinct prefix of a tree; within the cap unless one chain alone passes it
    lines = {(g, c[: i + 1]) for g, cs in selection.groups.items() for c in cs
             for i in range(len(c))}  # fmt: skip
    assert selection.lines == len(lines)
    assert selection.lines <= cap or len(shown) == 1
    # when every chain fits, every chain is shown
    every_line = {(("T", tuple(x.relation for x in c)), c[: i + 1]) for c in every
                  for i in range(len(c))}  # fmt: skip
    if len(every_line) <= cap:
        assert len(shown) == len(every)
