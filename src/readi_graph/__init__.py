"""readi-graph: Readi reasoning-path editing over knowledge graphs and tables."""
