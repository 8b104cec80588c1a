"""Environments: knowledge graphs (SPARQL) and tables (DuckDB)."""
