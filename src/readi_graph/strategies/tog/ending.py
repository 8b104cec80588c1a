"""How a ToG search ended and where its answer came from, in words for the final prompt and
the output: why the search stopped (what the last depth's steps did, not a guess), and
`answer_source` read from the answers themselves."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from readi_graph.core.answer import grounded
from readi_graph.environments.kg.entities.linking import no_topic_reason
from readi_graph.strategies.tog.state import DepthRecord, TogState

CHOICES = {  # frontier entities whose relation step kept nothing, as the prompt says it
    "none listed": "no relation leaves {names}",
    "none chosen": "none of the relations listed was chosen ({{}}) for {names}",
    "unreadable": "the relation choice could not be read for {names}",
    "scored 0": "every relation chosen was scored 0 for {names}",
    "person chose none": "the person pruning chose no relation for {names}",
    "no call left": "no model call was left to choose relations for {names}",
}
MORE_HOPS = "more hops needed"  # the verdict recorded when the sufficiency call was skipped


def source_of(answers: Sequence[str], known: Collection[str]) -> str:
    """graph: every answer names an entity of the evidence (`known`: its normalised names);
    model_knowledge: some answer does not (the model's own knowledge, or a misreading);
    none: no answer."""
    if not answers:
        return "none"
    return "graph" if grounded(answers, known) else "model_knowledge"


def stopped(current: DepthRecord) -> str:
    """Why a depth kept no entity: what its relation and entity steps did."""
    depth = current.get("depth", 0)
    kept = [r for r in current.get("relations") or [] if r.get("kept")]
    if not kept:
        names = [e["name"] for e in current.get("frontier") or []]
        grouped: dict[str, list[str]] = {}
        for name, choice in zip(names, current.get("choices") or [], strict=False):
            grouped.setdefault(choice, []).append(name)
        parts = [
            CHOICES.get(c, "nothing was kept for {names}").format(names=", ".join(group))
            for c, group in grouped.items()
        ]
        return f"at depth {depth} no relation was followed: {'; '.join(parts) or 'none'}."
    if not current.get("candidates"):
        followed = ", ".join(dict.fromkeys(r["name"] for r in kept))
        return (
            f"at depth {depth} the relations followed ({followed}) reached no entity that had "
            "not been visited before."
        )
    return f"at depth {depth} every candidate reached was scored 0 (none of them helps)."


def why(state: TogState, depths: int, emptied: bool) -> str:
    """The final prompt's account of why it is asked: the search stopped, or ran out."""
    current = state.get("current") or {}
    depth = state.get("depth", 0)
    if emptied:
        return stopped(current) + " The search stopped there."
    if current.get("verdict") == "yes":
        return "they were judged enough, but the answers could not be read from that reply."
    if depth >= depths and current.get("verdict") == MORE_HOPS:
        return (
            f"the search used all {depths} depths; its last relation choices said more hops "
            "were needed."
        )
    if depth >= depths:
        return f"the search used all {depths} depths without judging them enough."
    return f"after depth {depth} no entity was left to explore."


def no_evidence(state: TogState) -> str:
    """Why the knowledge graph gave no triples at all."""
    topics = ", ".join(state.get("topic_entities") or [])
    if not topics:
        return no_topic_reason(state)
    if not state.get("topics"):
        return f"no topic entity was found in it ({topics})"
    current = state.get("current") or {}
    if current.get("depth"):
        return stopped(current).rstrip(".")
    return f"nothing around the topic entities was kept ({topics})"
