#!/bin/bash
# Interleaved A/B of the CPU time per expert game (ab_time.py) over several trees:
#   benchmarks/issue17/ab_rounds.sh ROUNDS TREE...   (each TREE a checkout with its caches warm)
R=$1; shift
HERE=$(cd "$(dirname "$0")" && pwd)
for i in $(seq "$R"); do
  for T in "$@"; do
    echo "$T $(PYTHONPATH=$T /work/main/.venv/bin/python "$HERE/ab_time.py" ${STRAT:-expert} ${GAMES:-40000})"
  done
done | sort | awk '{a[$1]=a[$1]" "$4} END {for (t in a) print t, a[t]}'
