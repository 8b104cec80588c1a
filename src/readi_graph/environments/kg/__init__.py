"""A KG behind SPARQL, and its two public faces: `KnowledgeGraph` (what the nodes hold) and
`Explorer` (what a search strategy asks of a KG). Rooms import downwards: store, relations,
entities, then these faces, then reasoning.
"""

from readi_graph.environments.kg.explore import Explorer
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph

__all__ = ["Explorer", "KnowledgeGraph"]
