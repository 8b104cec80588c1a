"""What a path's words mean in the KG: the path and binding types, the relation index (BM25 +
MiniLM), the schema's reverse twins, binding.
"""
