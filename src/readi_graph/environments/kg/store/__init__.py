"""The store and its queries: backends, the only place SPARQL text is made, bounded reads, how a KG
is read (settings, vocabulary).
"""
