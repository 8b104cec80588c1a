"""The parts of `freebase_shaped.py`: a Freebase-shaped synthetic KG generator (issue 15)."""
