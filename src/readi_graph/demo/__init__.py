"""Small demo environments for Studio, notebooks and first runs.

`movies.txt` is a slice of MetaQA's knowledge base (every triple about the 69 films that star
Tom Hanks or Meg Ryan, or that Robert Zemeckis or Joel Zwick directed or wrote; 1,049 lines).
MetaQA is licensed CC BY 3.0 (Zhang et al., 2018; see LICENSE-MetaQA.txt beside this file).
`seasons.csv` is a made-up club's league record, written for this project.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.store.local import LazyBackend, load_metaqa
from readi_graph.environments.table.table import Table

DEMO_KB = Path(str(resources.files(__name__).joinpath("movies.txt")))
DEMO_TABLE = Path(str(resources.files(__name__).joinpath("seasons.csv")))


def demo_kg() -> KnowledgeGraph:
    """The demo movie KG; nothing is read until the first query."""
    return KnowledgeGraph(LazyBackend(lambda: load_metaqa(DEMO_KB)), name="demo-movies")


def demo_table() -> Table:
    """The demo league table (ten rows; loads in milliseconds)."""
    return Table.from_csv(DEMO_TABLE)
