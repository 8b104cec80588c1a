"""A small demo KG (a slice of MetaQA, CC BY 3.0) for Studio and quickstarts."""
