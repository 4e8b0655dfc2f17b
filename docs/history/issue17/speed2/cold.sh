#!/bin/bash
# cold.sh TREE TAG [WARMDIR]: yardstick cold compile, then sim run 1000 expert games from an empty cache
TREE=$1; TAG=$2; PY=/work/main/.venv/bin/python; R=/tmp/speed2/res; mkdir -p $R
cd $TREE; export PYTHONPATH=$TREE
C=${3:-$(mktemp -d /tmp/speed2/cache.XXXX)}; O=$(mktemp -d /tmp/speed2/out.XXXX)
uptime > $R/c$TAG.load0
YC=$(mktemp -d /tmp/speed2/yc.XXXX); NUMBA_CACHE_DIR=$YC $PY /work/shared/bench/yardstick.py 200000 > $R/c$TAG.yard0 2>&1; rm -rf $YC
BOARDSIM_CACHE_DIR=$C NUMBA_CACHE_DIR=$C /usr/bin/time -v $PY -m sim.cli run /work/wt/speed2/benchmarks/issue17/expert-3p.toml --games 1000 -o $O/x --json > $R/c$TAG.json 2> $R/c$TAG.time
find $C -name '*.nbc' | wc -l > $R/c$TAG.nbc; find $C -name '*.nbi' | wc -l >> $R/c$TAG.nbc; ls $C >> $R/c$TAG.nbc
YC=$(mktemp -d /tmp/speed2/yc.XXXX); NUMBA_CACHE_DIR=$YC $PY /work/shared/bench/yardstick.py 200000 > $R/c$TAG.yard1 2>&1; rm -rf $YC
uptime > $R/c$TAG.load1
rm -rf $O
echo $C
