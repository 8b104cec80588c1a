"""The bundled local model (SmolLM2-135M in transformers): load time and tokens/s.

Run:  python benchmarks/bench_local_model.py [--tokens 64]
Writes benchmarks/results/local_model.md.

1. Load, each in a fresh process: the first load on a machine (the GGUF converted into a
   transformers checkpoint in an empty cache directory) and a later load (the checkpoint
   read back), until the model can generate.
2. Generation on the same prompt (Readi's plan prompt for a demo question, ~1,000 tokens), side
   by side: free text, a reply constrained to the plan's JSON schema by llguidance (the
   default), each with 1 and 2 torch threads. Greedy decoding, a fixed number of new tokens,
   so every row does the same model work; prompt processing (prefill) is timed apart.
   (lm-format-enforcer 0.11.3, the pure-Python alternative, was tried too: its transformers
   integration does not import with transformers 5.)
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from readi_graph.core.local.chat import SchemaConstraint
from readi_graph.core.local.weights import load

from _report import write_report

LOAD = (
    "import time; t = time.perf_counter()\n"
    "from readi_graph.core.local.weights import load; load()\n"
    "print(time.perf_counter() - t)\n"
)


def load_seconds(cache: str) -> float:
    env = {**os.environ, "READI_CACHE_DIR": cache}
    done = subprocess.run(
        [sys.executable, "-c", LOAD], env=env, capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip().splitlines()[-1])


def plan_prompt() -> tuple[str, dict[str, Any]]:
    from readi_graph.core.prompts import render
    from readi_graph.demo import demo_kg
    from readi_graph.environments.kg.reasoning.adapter import KGAdapter

    state: Any = {
        "question": "which films did Robert Zemeckis direct",
        "topic_entities": ["Robert Zemeckis"],
    }
    adapter = KGAdapter(demo_kg())
    state = {**state, **adapter.prepare(state)}
    prompt = render(adapter.prompts["generate"], **adapter.generate_values(state))
    return prompt, adapter.plan_schema(state)


def generate(mode: str, prompt: str, schema: dict[str, Any], tokens: int) -> tuple[float, float]:
    """(prefill seconds, generated tokens per second) for one reply."""
    import torch

    loaded = load()
    inputs = loaded.tokenizer.apply_chat_template(
        [{"role": "user", "content": prompt}],
        add_generation_prompt=True,
        return_tensors="pt",
        return_dict=True,
    )
    n = int(inputs["input_ids"].shape[1])
    extra: dict[str, Any] = {}
    if mode == "llguidance":
        extra["logits_processor"] = [SchemaConstraint(loaded.grammar_tokenizer, schema, n)]
    with torch.inference_mode():
        started = time.perf_counter()
        loaded.model.generate(**inputs, max_new_tokens=1, do_sample=False)
        prefill = time.perf_counter() - started
        started = time.perf_counter()
        out = loaded.model.generate(
            **inputs, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False, **extra
        )
        total = time.perf_counter() - started
    made = int(out.shape[1]) - n
    return prefill, made / max(total - prefill, 1e-9)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--out", default=str(Path(__file__).parent / "results" / "local_model.md"))
    args = p.parse_args()
    import torch

    with tempfile.TemporaryDirectory(prefix="readi-bench-cache-") as cache:
        first = load_seconds(cache)
        later = load_seconds(cache)
    prompt, schema = plan_prompt()
    modes = ["free text", "llguidance"]
    lines = [
        "# The bundled local model: SmolLM2-135M-Instruct in transformers",
        "",
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"torch {torch.__version__}; `python benchmarks/bench_local_model.py "
        f"--tokens {args.tokens}`",
        "",
        f"- first load on a machine (GGUF converted, fresh process): {first:.1f} s",
        f"- later loads (converted checkpoint read, fresh process): {later:.1f} s",
        "",
        "| decoding | torch threads | prefill (s) | tokens/s |",
        "|---|---|---|---|",
    ]
    loaded = load()
    started = time.perf_counter()
    for _ in range(20):
        SchemaConstraint(loaded.grammar_tokenizer, schema, 0)
    compile_ms = (time.perf_counter() - started) / 20 * 1000
    lines.insert(
        -3, f"- llguidance: a plan schema compiled for the vocabulary in {compile_ms:.1f} ms"
    )
    for threads in (1, 2):
        torch.set_num_threads(threads)
        generate("free text", prompt, schema, 4)  # warm-up
        for mode in modes:
            prefill, rate = generate(mode, prompt, schema, args.tokens)
            lines.append(f"| {mode} | {threads} | {prefill:.2f} | {rate:.1f} |")
            print(lines[-1], flush=True)
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
