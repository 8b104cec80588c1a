"""A KG behind SPARQL, and its two public faces: `KnowledgeGraph` (what the nodes hold) and
`Explorer` (what a search strategy asks of a KG). Rooms import downwards: store, relations,
entities, then these faces, then reasoning.
"""
