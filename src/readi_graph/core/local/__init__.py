"""The bundled local model (SmolLM2-135M): found, converted once, loaded once; transformers
in-process, or llama.cpp opt-in.
"""
