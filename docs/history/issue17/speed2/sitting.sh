#!/bin/bash
# sitting.sh TAG: ABBA random 1M (base, cur, cur, base) with yardstick before/middle/after
TAG=$1; PY=/work/main/.venv/bin/python; R=/tmp/speed2/res; O=/tmp/speed2/sout; mkdir -p $O
run() { # tree cache label
  (cd $1 && BOARDSIM_CACHE_DIR=$2 PYTHONPATH=$1 /usr/bin/time -v $PY -m sim.cli run /work/wt/speed2/benchmarks/issue17/random-3p.toml --games ${G:-1000000} -o $O/$3 --force --no-progress --json > $R/s$TAG.$3.json 2> $R/s$TAG.$3.time); rm -rf $O/$3
  echo "$3 $(uptime | sed 's/.*average: //')" >> $R/s$TAG.load
}
: > $R/s$TAG.load
echo "start $(date +%T) $(uptime | sed 's/.*average: //')" >> $R/s$TAG.load
$PY /work/shared/bench/yardstick.py > $R/s$TAG.yard0 2>&1
run /tmp/speed2/base /tmp/speed2/warm_base base1
run /work/wt/speed2 /tmp/speed2/warm_cur cur1
$PY /work/shared/bench/yardstick.py > $R/s$TAG.yard1 2>&1
run /work/wt/speed2 /tmp/speed2/warm_cur cur2
run /tmp/speed2/base /tmp/speed2/warm_base base2
$PY /work/shared/bench/yardstick.py > $R/s$TAG.yard2 2>&1
echo "end $(date +%T) $(uptime | sed 's/.*average: //')" >> $R/s$TAG.load
