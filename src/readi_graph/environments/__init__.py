"""What a strategy searches, a KG or a table; an environment never imports another."""
