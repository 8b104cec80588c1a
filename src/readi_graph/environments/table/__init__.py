"""A table on DuckDB."""
