"""Chat models: which model a run uses (`ModelRef`), the reply cache, token counts."""
