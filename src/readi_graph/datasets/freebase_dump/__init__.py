"""`readi kg freebase`: the public Freebase dump filtered, as a stream, into N-Triples parts a
store loads.
"""
