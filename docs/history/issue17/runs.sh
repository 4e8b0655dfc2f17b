#!/bin/bash
# sim run targets with /usr/bin/time -v, yardstick before/after; $1 = sitting
cd "$(dirname "$0")/../.."; mkdir -p /tmp/speed; export PYTHONPATH=$PWD; export BOARDSIM_CACHE_DIR=${WARM:-$HOME/.cache/boardsim}; PY=/work/main/.venv/bin/python; S=$1; O=/tmp/speed/out$S
rm -rf $O; mkdir -p $O
uptime > /tmp/speed/r$S.load0
$PY /work/shared/bench/yardstick.py > /tmp/speed/r$S.yard0 2>&1
/usr/bin/time -v $PY -m sim.cli run benchmarks/issue17/random-3p.toml --games ${RG:-1000000} -o $O/random --json > /tmp/speed/r$S.random.json 2> /tmp/speed/r$S.random.time
/usr/bin/time -v $PY -m sim.cli run benchmarks/issue17/expert-3p.toml --games ${EG:-300000} -o $O/expert --json > /tmp/speed/r$S.expert.json 2> /tmp/speed/r$S.expert.time
$PY /work/shared/bench/yardstick.py > /tmp/speed/r$S.yard1 2>&1
uptime > /tmp/speed/r$S.load1
rm -rf $O
