"""Reasoning paths on the KG (Readi's machinery): read from the model, instantiated, diagnosed,
kept as JSON records, shown in prompts; the KG adapter.
"""
