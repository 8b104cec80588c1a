"""The Readi authors' CWQ fragment as per-question subgraphs in RoG's release format.

    .venv/bin/python benchmarks/readi_cwq_subgraphs.py --out /tmp/cwq100-subgraphs.jsonl
    .venv/bin/readi bench replay --real ../shared/data/readi_cwq \\
        --subgraphs /tmp/cwq100-subgraphs.jsonl --freebase ../shared/data/freebase

Each of the 100 CWQ test questions of `../shared/data/readi_cwq/` gets, as its `graph`, the
Freebase triples the authors' GPT-3.5 run retrieved for it (`kg_triples_set`), its gold
answer as `answer`/`a_entity` and its topic entities' names as `q_entity`. Printed: how many
questions have their answer in their own subgraph, and in the union of all of them (the
fragment `readi bench replay --run` builds one KG from).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "readi_cwq"


def records(data: Path) -> list[dict[str, object]]:
    questions = {q["ID"]: q for q in json.loads((data / "cwq_test_gpt35_0103.json").read_text())}
    out = []
    for line in (data / "gpt35_readi_run_cwq100.jsonl").read_text().splitlines():
        run = json.loads(line)
        q = questions[run["id"]]
        answer = [str(q["answer"])]
        out.append({
            "id": run["id"],
            "question": q["question"],
            "answer": answer,
            "q_entity": list((q.get("topic_entity") or {}).values()),
            "a_entity": answer,
            "graph": [[str(x).strip() for x in t] for t in run.get("kg_triples_set") or []],
            "choices": [],
        })  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    from readi_graph.eval.subgraph_paths import answer_nodes

    rows = records(args.data)
    with args.out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    union = [tuple(t) for row in rows for t in row["graph"]]  # type: ignore[attr-defined]
    own = sum(bool(answer_nodes([tuple(t) for t in r["graph"]], r["answer"])) for r in rows)  # type: ignore[attr-defined,arg-type]
    anywhere = sum(bool(answer_nodes(union, r["answer"])) for r in rows)  # type: ignore[arg-type]
    print(json.dumps({"questions": len(rows), "triples": len(set(union)),
                      "answer_in_own_subgraph": own, "answer_in_the_union": anywhere}))  # fmt: skip


if __name__ == "__main__":
    main()
