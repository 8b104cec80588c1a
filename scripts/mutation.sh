#!/usr/bin/env bash
# Mutation testing (mutmut) of the modules whose bugs would silently change answers: KG
# instantiation and merge, diagnosis, path/plan parsing, table constraints. Slow (minutes per
# module): not part of the CI test command. Scores and the surviving mutants: docs/mutation.md.
#   bash scripts/mutation.sh                          # every module of [tool.mutmut] only_mutate
#   bash scripts/mutation.sh environments.kg.reasoning.parsing  # one module (readi_graph.<MODULE>)
# Needs the dev extra (mutmut) and ../shared/data (MetaQA) beside the project. On a shared
# machine run it under the CPU lock: nice -n 10 flock /work/notes/cpu.lock bash scripts/mutation.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# mutmut runs the tests from a copy in mutants/: point them at the data beside the project
export READI_SHARED_DATA="${READI_SHARED_DATA:-$(cd .. && pwd)/shared/data}"
export READI_HYPOTHESIS="${READI_HYPOTHESIS:-mutation}"  # tests/conftest.py: 60 examples
# mutmut forks each mutant from the process that ran the tests once: a child forked after
# torch started its OpenMP pool spins until the time limit (mutants their tests kill in 9 s
# "timed out"). One thread each: no pool to inherit (mutmut's forkserver mode also works, 10x
# slower: every mutant loads the encoder and the relation index again).
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
if [ "$#" -gt 0 ]; then
  .venv/bin/mutmut run "readi_graph.$1.*"
else
  .venv/bin/mutmut run
fi
.venv/bin/python scripts/mutation_scores.py
