#!/bin/bash
# one sitting: yardstick, bench rows random+expert (3p long), yardstick
cd "$(dirname "$0")/../.."; mkdir -p /tmp/speed; export PYTHONPATH=$PWD; export BOARDSIM_CACHE_DIR=${WARM:-$HOME/.cache/boardsim}; PY=/work/main/.venv/bin/python
S=$1
uptime > /tmp/speed/s$S.load0
$PY /work/shared/bench/yardstick.py > /tmp/speed/s$S.yard0 2>&1
$PY -m sim.cli bench --game bloody_inn --players 3 --mix random --mix expert --seconds 2 --rounds 3 --py-games 0 --no-startup --json > /tmp/speed/s$S.bench.json 2>/tmp/speed/s$S.bench.err
$PY /work/shared/bench/yardstick.py > /tmp/speed/s$S.yard1 2>&1
uptime > /tmp/speed/s$S.load1
