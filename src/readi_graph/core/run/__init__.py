"""How a node runs: its meter and model steps (one body for sync and async), progress events, the
bridge that awaits environment I/O, query counting.
"""
