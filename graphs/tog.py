"""LangGraph Studio entry point: Think-on-Graph over the bundled demo movie KG.

Same input and output as `kgqa` and `fidelis` (plus `answer_source`), so the three strategies
can be run side by side in Studio. The chat model comes from the environment, as for `kgqa`.
Settings (width, depth, pruning mode, ToG-R, a person as the pruner) are in the run's context.

Try: {"question": "which films did the director of Forrest Gump also direct",
      "topic_entities": ["Forrest Gump"]}
"""

from readi_graph.demo import demo_kg
from readi_graph.graph import build_graph

graph = build_graph(demo_kg(), name="tog-kgqa", strategy="tog")
