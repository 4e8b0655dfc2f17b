#!/bin/bash
mkdir -p /tmp/speed
# whole-process cold sim run of 1000 expert games; args: ROUNDS TREE...
R=$1; shift
for i in $(seq $R); do for T in "$@"; do
  C=$(mktemp -d /tmp/speed/cache.XXXX); O=$(mktemp -d /tmp/speed/o.XXXX)
  cd $T
  /usr/bin/time -f "%e %U %S" -o /tmp/speed/ct env BOARDSIM_CACHE_DIR=$C NUMBA_CACHE_DIR=$C PYTHONPATH=$T /work/main/.venv/bin/python -m sim.cli run benchmarks/issue17/expert-3p.toml --games 1000 -o $O/x --json > /dev/null 2>&1
  n=$(find $C -name '*.nbc' | wc -l)
  echo "$T $(cat /tmp/speed/ct) $n load=$(cut -d' ' -f1 /proc/loadavg)"
  rm -rf $C $O
done; done
