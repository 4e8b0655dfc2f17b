#!/bin/bash
cd "$(dirname "$0")/../.."; mkdir -p /tmp/speed; export PYTHONPATH=$PWD; PY=/work/main/.venv/bin/python; S=$1
C=$(mktemp -d /tmp/speed/cache.XXXX); O=$(mktemp -d /tmp/speed/coldout.XXXX)
uptime > /tmp/speed/c$S.load0
YC=$(mktemp -d /tmp/speed/ycache.XXXX); NUMBA_CACHE_DIR=$YC $PY /work/shared/bench/yardstick.py 200000 > /tmp/speed/c$S.yard0 2>&1; rm -rf $YC
BOARDSIM_CACHE_DIR=$C NUMBA_CACHE_DIR=$C /usr/bin/time -v $PY -m sim.cli run benchmarks/issue17/expert-3p.toml --games 1000 -o $O/x --json > /tmp/speed/c$S.json 2> /tmp/speed/c$S.time
find $C -name '*.nbc' | wc -l > /tmp/speed/c$S.nbc; find $C -name '*.nbi' | wc -l >> /tmp/speed/c$S.nbc
ls $C >> /tmp/speed/c$S.nbc
uptime > /tmp/speed/c$S.load1
rm -rf $C $O
