"""LangGraph Studio entry point: Readi over the bundled demo movie KG.

`graph` is compiled without a checkpointer (the server brings its own). The KG loads on its
first query, not at import, so `langgraph dev` starts fast. The chat model comes from the
environment (OPENAI_API_KEY, or OPENAI_BASE_URL + READI_MODEL for a local server), else it
is the bundled local model (the [local] extra).

Try: {"question": "which films starring Tom Hanks did Robert Zemeckis direct",
      "topic_entities": ["Tom Hanks", "Robert Zemeckis"]}
"""

from readi_graph.demo import demo_kg
from readi_graph.graph import build_graph

graph = build_graph(demo_kg(), name="readi-kgqa")
