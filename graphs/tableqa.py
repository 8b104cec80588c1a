"""LangGraph Studio entry point: Readi over the bundled demo league table.

Try: {"question": "in which season did the club score the most goals through its top scorer"}
"""

from readi_graph.demo import demo_table
from readi_graph.graph import build_graph

graph = build_graph(demo_table(), name="readi-tableqa")
