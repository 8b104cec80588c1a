"""What every strategy and environment uses, knowing none of them: terms and errors, state, run
settings, the diagnosis shape, the adapter protocol, prompts, parsing.
"""
