"""Think-on-Graph (ToG, Sun et al., ICLR 2024) on the same KG environment: a beam search in
which the model prunes relations and entities depth by depth and judges when the triples found
are enough.

`build_graph(kg, llm, strategy="tog")` or `build_tog_graph(kg, llm)`; settings in
`TogContext` (`TogContext.paper()`: the published behaviour where the defaults depart from
it); at most `call_bound(W, D, T0)` model calls per question.
"""
