"""The words of the steerable edit feedback: what each error tells the editor to do, and
what the relations it wrote were read as.

The published feedback says what failed ("relation X is not instantiated", "compound node in
the end"). An editor also needs to know what it can do about it: add a relation that leads on
from the compound nodes (in either direction), or back up when nothing leads on; and that a
relation id it wrote is not in the KG and was read as another one (it believes its relation
was walked as written). Each sentence here is built from the instance and the relations
around its stuck nodes (`candidates.py`), never from the question's gold data.
"""

from __future__ import annotations

from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.reasoning.candidates import Pair
from readi_graph.environments.kg.reasoning.instantiation import Instance
from readi_graph.environments.kg.relations.binding import rebound

READ_AS = 3  # bound relations named in a message
BACK_UP = "back up: replace step {n} or an earlier step with a relation from Earlier Relations"
END_AT = "end the path after step {n} if the nodes it reached answer the question, or "


def _names(names: list[str]) -> str:
    return ", ".join(names)


def _verb(names: list[str], one: str, many: str) -> str:
    return one if len(names) == 1 else many


def _only_back(relation: str, leads: dict[Pair, bool]) -> bool:
    """Is `relation` around the stuck nodes, in no direction leading on?"""
    seen = [leads[pair] for pair in ((relation, True), (relation, False)) if pair in leads]
    return bool(seen) and not any(seen)


def _end_or_back_up(end: int, n: int) -> str:
    return (END_AT.format(n=end) if end else "") + BACK_UP.format(n=n)


def failed_message(
    kg: KnowledgeGraph, instance: Instance, leads: dict[Pair, bool], dead_end: bool, end: int
) -> str:
    """A relation that did not connect: what it was read as, and where to go instead (`end`:
    the last step that reached a named entity, where the path could end)."""
    position = instance.failed_at or 0
    path = instance.path
    relation = path.relations[position]
    hop = instance.hops[position]
    where = f'relation "{relation}" (step {position + 1} from "{path.topic}")'
    names = list(dict.fromkeys(kg.relation_name(c.relation) for c in hop.candidates))[:READ_AS]
    if not names:
        what = f"{where} matches no relation of this knowledge graph"
    else:
        missing = rebound(kg.relation_index, relation)
        read = "is not in this knowledge graph and was read as" if missing else "was read as"
        what = (
            f"{where} {read} {_names(names)}, which {_verb(names, 'does', 'do')} not connect here"
        )
        back = [
            kg.relation_name(c.relation) for c in hop.candidates if _only_back(c.relation, leads)
        ]
        if back := list(dict.fromkeys(back))[:READ_AS]:
            lead = _verb(back, "leads", "lead")
            what += f" ({_names(back)} only {lead} back the way the path came)"
    if position == 0:
        action = f'choose a relation of "{path.topic}" from Candidate Relations'
    elif dead_end:
        previous = path.relations[position - 1]
        action = (
            f'nothing leads on from the nodes reached by step {position} ("{previous}"): '
            + _end_or_back_up(end, position)
        )
    else:
        action = (
            "choose one from Candidate Relations (they lead on from where the path stopped), "
            "or change an earlier step with Earlier Relations"
        )
    return f"{what}; {action}"


def compound_message(instance: Instance, dead_end: bool, end: int) -> str:
    """A complete path whose ends are all compound nodes: add a step, or end earlier, or
    back up."""
    path = instance.path
    n = len(path.relations)
    base = (
        f'the path from "{path.topic}" ends in compound nodes (<compound>) after step {n} '
        f'("{path.relations[-1]}"), which are not answers'
    )
    if dead_end:
        return f"{base}, and nothing leads on from them here: {_end_or_back_up(end, n)}"
    return (
        f"{base}: add one more relation from Candidate Relations, from the compound nodes to a "
        "named entity (either direction)"
    )


def empty_message(topic: str) -> str:
    return (
        f'the path from "{topic}" has no relation: write at least one, from Candidate '
        f'Relations (the relations of "{topic}")'
    )


def read_as_notes(kg: KnowledgeGraph, instance: Instance) -> list[str]:
    """What the connected steps' relations were read as, where the editor would not guess:
    an id it wrote that the KG does not have, or a step that walked back the way the path
    came (both seen when an edit's relation was bound back to the one that had just failed)."""
    notes = []
    topic = instance.path.topic
    for k, hop in enumerate(instance.hops):
        if not hop.connected:
            continue
        names = _names(list(dict.fromkeys(kg.relation_name(r) for r, _ in hop.matched)))
        missing = rebound(kg.relation_index, hop.relation)
        came_from = {e.source for e in instance.hops[k - 1].edges} if k else set()
        back = bool(came_from) and {e.target for e in hop.edges} <= came_from
        if not (missing or back):
            continue
        where = f'your relation "{hop.relation}" (step {k + 1} from "{topic}")'
        read = "is not in this knowledge graph and was read as" if missing else "was read as"
        tail = ", which leads back the way the path came" if back else ""
        notes.append(f"{where} {read} {names}{tail}")
    return notes
