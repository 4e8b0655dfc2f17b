#!/bin/bash
# One sitting of the expert ratio (#31): the yardstick, two 1,000,000-game `sim run`s of
# configs/bloody_inn/strategies/expert-3p.toml, the yardstick again; each run's games/s over
# the geometric mean of the two yardstick readings.  Run from anywhere; warm the compile
# cache first (a 20,000-game run).  Needs root for sched_autogroup (as measured).
set -e
cd "$(dirname "$0")/../../.."
PY=${PY:-.venv/bin/python}
YARD=${YARD:-../shared/bench/yardstick.py}
echo 0 > /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || true
y() { $PY "$YARD" | sed -n 2p | $PY -c "import json,sys;print(json.load(sys.stdin)['games_per_s'])"; }
e() { $PY -m sim.cli run configs/bloody_inn/strategies/expert-3p.toml --games 1000000 -o "${TMPDIR:-/tmp}/sitting-expert" --json --force | $PY -c "import json,sys;print(json.load(sys.stdin)['games_per_s'])"; }
y1=$(y); e1=$(e); e2=$(e); y2=$(y)
$PY -c "
import math
y1, y2, e1, e2 = $y1, $y2, $e1, $e2
g = math.sqrt(y1 * y2)
print(f'$(date -u +%H:%M) yardstick {y1:,.0f} / {y2:,.0f}  expert {e1:,.0f}, {e2:,.0f}  ratios {e1/g:.4f}, {e2/g:.4f}  mean {(e1+e2)/2/g:.4f}')"
