"""Readi: generate, bind, connect, diagnose, edit, answer."""
