#!/bin/sh
# Issue 13: `sim bench` random and expert 3p rows, main (BASE) and this branch (HERE) in
# turn, with the shared yardstick right before and after each pass.
#   BASE=/tmp/cols_base HERE=$PWD OUT=/tmp/cols_ab ROUNDS=2 sh benchmarks/issue13/ab_bench.sh
# BASE is an export of main (git archive <commit> | tar -x -C $BASE), warmed once so its
# kernels are compiled.  Summary: python benchmarks/issue13/ab_summary.py $OUT
PY=${PY:-/work/main/.venv/bin/python}
YARD=${YARD:-/work/shared/bench/yardstick.py}
OUT=${OUT:-/tmp/cols_ab}
ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT"
i=0
while [ $i -lt "$ROUNDS" ]; do
  for side in base here; do
    if [ $side = base ]; then tree=$BASE; else tree=$HERE; fi
    tag=$side-$i
    uptime > "$OUT/$tag.load"
    $PY "$YARD" > "$OUT/$tag.yard-before" 2>/dev/null
    (cd "$tree" && PYTHONPATH="$tree" $PY -m sim.cli bench --game bloody_inn --players 3 \
      --mix random --mix expert --no-startup --py-games 0 --json > "$OUT/$tag.json" 2> "$OUT/$tag.err")
    $PY "$YARD" > "$OUT/$tag.yard-after" 2>/dev/null
    uptime >> "$OUT/$tag.load"
  done
  i=$((i + 1))
done
