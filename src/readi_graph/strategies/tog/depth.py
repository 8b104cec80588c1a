"""One depth of ToG's search as the entity steps read it (`entities.py`): the settings, the
question, the frontier and the pairs its relation step kept, what that step said of the hops
left; and what follows from them: the last depth, the answers' candidates, more hops to go.
"""

from __future__ import annotations

from dataclasses import dataclass

from readi_graph.environments.kg.explore import Explorer, Similarity
from readi_graph.strategies.tog.context import TogContext
from readi_graph.strategies.tog.nodes import similarity
from readi_graph.strategies.tog.state import FrontierEntity, Pair, TogState


@dataclass(frozen=True)
class Depth:
    """One depth of the search, as its steps read it."""

    run: TogContext
    question: str
    number: int  # from 1
    frontier: list[FrontierEntity]
    pairs: list[Pair]  # the (entity, relation) pairs this depth's relation step kept
    hops_left: int | None  # what this depth's relation step said is left (None: not said)
    similar: Similarity  # to the question

    @classmethod
    def of(cls, state: TogState, run: TogContext, explorer: Explorer) -> Depth:
        """The depth the entity step explores, read from the state the relation step left."""
        current = state.get("current") or {}
        return cls(
            run=run,
            question=state["question"],
            number=state.get("depth", 0) + 1,
            frontier=state.get("frontier") or [],
            pairs=state.get("pairs") or [],
            hops_left=current.get("hops_left"),
            similar=similarity(explorer, state["question"], run),
        )

    @property
    def last(self) -> bool:
        """Nothing leads on from the search's last depth: nothing is read for that."""
        return self.number >= self.run.depth

    @property
    def answers_here(self) -> bool:
        """Its candidates are the answers' candidates: the last depth, or no hops left."""
        return self.last or self.hops_left == 0

    @property
    def onward(self) -> bool:
        """The relation step said more hops follow: its candidates are not answers yet."""
        return (self.hops_left or 0) >= 1
