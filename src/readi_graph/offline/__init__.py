"""Chat models that need no LLM, for MetaQA: Readi's planners and oracle editors, each other
strategy's oracle, the scripted answer, and the gold planner.
"""
