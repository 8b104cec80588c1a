"""The measurements behind `readi bench` and the paper's analyses: binding and linking recall,
replays of real model paths, Path-RAG coverage (apart from the evaluation pipeline).
"""
