#!/bin/bash
cd "$(dirname "$0")/../.."; mkdir -p /tmp/speed; export PYTHONPATH=$PWD; export BOARDSIM_CACHE_DIR=${WARM:-$HOME/.cache/boardsim}; PY=/work/main/.venv/bin/python; O=/tmp/speed/out20m
rm -rf $O; uptime > /tmp/speed/big.load0
nice -n 10 /usr/bin/time -v $PY -m sim.cli run benchmarks/issue17/random-3p.toml --games 20000000 -o $O --json > /tmp/speed/big.json 2> /tmp/speed/big.time
uptime > /tmp/speed/big.load1; rm -rf $O
