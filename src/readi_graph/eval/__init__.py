"""The evaluation pipeline: runner, results files, summary, metrics, ledger, reports, runs on
per-question subgraphs.
"""
