"""FiDeLiS (Path-RAG + deductive-verification beam search) on the same KG environment.

`build_graph(kg, llm, strategy="fidelis")` or `build_fidelis_graph(kg, llm)`.
"""
