"""Per-module mutation scores from mutmut's results in mutants/ (scripts/mutation.sh).

score = killed / (killed + survived + timeout + no tests), over the mutants that were checked;
a mutant no test reaches counts against the score. Surviving mutants are listed by name
(`.venv/bin/mutmut show NAME` prints the change).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from mutmut.stats import status_by_exit_code

KILLED = ("killed", "caught by type check")
COUNTED = (*KILLED, "survived", "timeout", "no tests", "suspicious", "segfault")


def main(root: Path = Path("mutants")) -> int:
    metas = sorted(root.glob("src/**/*.py.meta"))
    if not metas:
        print("no results in mutants/: run scripts/mutation.sh first", file=sys.stderr)
        return 1
    for meta in metas:
        codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        status = {name: status_by_exit_code[code] for name, code in codes.items()}
        counts = Counter(status.values())
        checked = sum(counts[s] for s in COUNTED)
        if not checked:
            continue
        killed = sum(counts[s] for s in KILLED)
        module = str(meta.relative_to(root / "src")).removesuffix(".py.meta").replace("/", ".")
        print(f"{module}: {killed}/{checked} killed ({100 * killed / checked:.1f}%)")
        for name, s in sorted(status.items()):
            if s in COUNTED and s not in KILLED:
                print(f"  {s}: {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
