#!/bin/bash
# One sitting comparing two commits (#31): the yardstick, a 1,000,000-game expert-3p run of
# commit A, one of commit B, the yardstick again; ratios to the geometric mean of the two
# readings.  Each commit is checked out as a worktree under $WORK (default /tmp/sitting-trees)
# with its own compile cache, compiled by a short warm-up run the first time.
#   docs/history/issue31/sitting_trees.sh e9de2ed HEAD
set -e
cd "$(dirname "$0")/../../.."
ROOT=$PWD
PY=${PY:-$ROOT/.venv/bin/python}
YARD=${YARD:-$ROOT/../shared/bench/yardstick.py}
WORK=${WORK:-/tmp/sitting-trees}
CONFIG=$ROOT/configs/bloody_inn/strategies/expert-3p.toml
mkdir -p "$WORK"
echo 0 > /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || true
tree() {  # the worktree of commit $1, created and compiled once
  local c; c=$(git rev-parse --short "$1")
  if [ ! -d "$WORK/wt-$c" ]; then
    git worktree add -f "$WORK/wt-$c" "$c" >/dev/null 2>&1
    (cd "$WORK/wt-$c" && BOARDSIM_CACHE_DIR=$WORK/cache-$c PYTHONPATH=$WORK/wt-$c \
      $PY -m sim.cli run "$CONFIG" --games 20000 -o "$WORK/out-$c" --json --force >/dev/null)
  fi
  echo "$c"
}
run() {
  (cd "$WORK/wt-$1" && BOARDSIM_CACHE_DIR=$WORK/cache-$1 PYTHONPATH=$WORK/wt-$1 \
    $PY -m sim.cli run "$CONFIG" --games 1000000 -o "$WORK/out-$1" --json --force \
    | $PY -c "import json,sys;print(json.load(sys.stdin)['games_per_s'])")
}
y() { $PY "$YARD" | sed -n 2p | $PY -c "import json,sys;print(json.load(sys.stdin)['games_per_s'])"; }
a=$(tree "$1"); b=$(tree "$2")
y1=$(y); ga=$(run "$a"); gb=$(run "$b"); y2=$(y)
$PY -c "
import math
y1, y2, ga, gb = $y1, $y2, $ga, $gb
g = math.sqrt(y1 * y2)
print(f'$(date -u +%H:%M) yardstick {y1:,.0f} / {y2:,.0f}  $a {ga:,.0f} ({ga/g:.4f})  $b {gb:,.0f} ({gb/g:.4f})')"
