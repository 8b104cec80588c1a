"""LangGraph Studio entry point: FiDeLiS over the bundled demo movie KG.

Same input and output as `kgqa`, so the two strategies can be run side by side in Studio. The
chat model comes from the environment, as for `kgqa`.

Try: {"question": "which languages are the films directed by Joel Zwick in",
      "topic_entities": ["Joel Zwick"]}
"""

from readi_graph.demo import demo_kg
from readi_graph.graph import build_graph

graph = build_graph(demo_kg(), name="fidelis-kgqa", strategy="fidelis")
