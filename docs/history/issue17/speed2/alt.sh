#!/bin/bash
# alt.sh TAG N: alternate base/cur sim run of N random games, order b c c b b c c b
TAG=$1; N=$2; PY=/work/main/.venv/bin/python; R=/tmp/speed2/res; O=/tmp/speed2/aout; mkdir -p $O
: > $R/a$TAG.txt
$PY /work/shared/bench/yardstick.py 2>&1 | grep hearts >> $R/a$TAG.txt
for t in b c c b b c c b; do
  if [ $t = b ]; then T=/tmp/speed2/base; C=/tmp/speed2/warm_base; else T=/work/wt/speed2; C=/tmp/speed2/warm_cur; fi
  L=$(cut -d' ' -f1 /proc/loadavg)
  J=$(cd $T && BOARDSIM_CACHE_DIR=$C PYTHONPATH=$T $PY -m sim.cli run /work/wt/speed2/benchmarks/issue17/random-3p.toml --games $N -o $O/x --force --no-progress --json | tail -1)
  echo "$t load $L $(echo $J | python3 -c 'import sys,json; print(json.load(sys.stdin)["games_per_s"])')" >> $R/a$TAG.txt
  rm -rf $O/x
done
$PY /work/shared/bench/yardstick.py 2>&1 | grep hearts >> $R/a$TAG.txt
