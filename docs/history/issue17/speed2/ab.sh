#!/bin/bash
# ab.sh CONFIG N THREADS ROUNDS
PY=/work/main/.venv/bin/python
for i in $(seq 1 $4); do
  for t in base cur; do
    if [ $t = base ]; then T=/tmp/speed2/base; C=/tmp/speed2/warm_base; else T=/work/wt/speed2; C=/tmp/speed2/warm_cur; fi
    echo "$t $(cd $T && BOARDSIM_CACHE_DIR=$C PYTHONPATH=$T $PY $(dirname "$(readlink -f "$0")")/ab_kernel.py $1 $2 $3) $(cut -d' ' -f1 /proc/loadavg)"
  done
done
