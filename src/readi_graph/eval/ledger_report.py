"""`readi report` over several strategies: the ledger side by side, then each one's report.

`readi eval ... --strategy a,b --out r.jsonl` writes `r.a.jsonl` and `r.b.jsonl`; `readi report
r.jsonl --out DIR` (or the files themselves) writes `DIR/report.md` with the ledger
(eval/ledger.py) of those runs, and each strategy's own report in `DIR/<strategy>/`.
"""

from __future__ import annotations

from pathlib import Path

from readi_graph import strategies
from readi_graph.core.base import ReadiError
from readi_graph.eval import ledger
from readi_graph.eval.report import write_report
from readi_graph.eval.runner import read_results
from readi_graph.eval.summary import summarize


def runs_of(results: str | Path) -> dict[str, Path]:
    """The per-strategy results files of one comparison, by strategy: `r.jsonl` stands for
    `r.<strategy>.jsonl` when it does not exist itself (a comparison's `--out`)."""
    path = Path(results)
    if path.exists():
        return {}
    found = sorted(path.parent.glob(f"{path.stem}.*{path.suffix}"))
    named = {p.name[len(path.stem) + 1 : -len(path.suffix) or None]: p for p in found}
    return {name: p for name, p in named.items() if name in strategies.STRATEGIES}


def strategy_of(path: Path) -> str:
    """The strategy a results file holds: its lines say so, else its name (`r.<s>.jsonl`)."""
    for record in read_results(path)[:1]:
        if record.get("strategy"):
            return str(record["strategy"])
    return path.suffixes[-2].lstrip(".") if len(path.suffixes) >= 2 else path.stem


def write_side_by_side(runs: dict[str, Path], out: str | Path, *, traces: int = 500) -> Path:
    """`out/report.md`: the ledger of `runs` ({strategy: results file}), linked to each
    strategy's own report (`out/<strategy>/report.md`)."""
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for strategy, path in runs.items():
        records = read_results(path)
        if not records:
            raise ReadiError(f"{path}: no results to report")
        summary = summarize(records, label=f"{path.name}")
        rows.append(ledger.row(strategy, summary, records, context=None))
        write_report(path, out_dir / strategy, traces=traces)
    lines = ["# Strategies side by side", "", ledger.table(rows), "", "## Each strategy", ""]
    lines += [f"- [{s}]({s}/report.md): `{p}`" for s, p in runs.items()]
    report = out_dir / "report.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return report
