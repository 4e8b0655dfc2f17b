#!/bin/bash
# Simulated L1 data-cache misses and instructions per expert-3p game of a source tree (#31):
# valgrind's cachegrind with cache simulation (D1 32 KB 8-way, 64-byte lines, as this
# machine's cores; "LL" = the 1 MB L2).  The kernels are compiled natively for a generic
# x86-64 CPU (NUMBA_CPU_NAME=generic, ~40 s) into their own cache, which valgrind then loads
# as is: a compile under valgrind takes ~10 minutes.  Per game = (run with GAMES games - run
# with none) / GAMES.
#   docs/history/issue31/cache_misses.sh /path/to/tree [GAMES]
set -e
TREE=$(cd "$1" && pwd); G=${2:-10000}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
PY=${PY:-$ROOT/.venv/bin/python}
CACHE=${CACHE:-/tmp/cache-misses-$(basename "$TREE")}
CONFIG=$ROOT/configs/bloody_inn/strategies/expert-3p.toml
export NUMBA_CPU_NAME=generic BOARDSIM_CACHE_DIR=$CACHE PYTHONPATH=$TREE
child() { (cd "$TREE" && $PY "$ROOT/benchmarks/instructions.py" --child "$1" --first 1000 "$CONFIG"); }
child 0  # compile natively
sim() {
  (cd "$TREE" && valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --I1=32768,8,64 \
    --LL=1048576,16,64 --smc-check=all-non-file --cachegrind-out-file=/dev/null \
    $PY "$ROOT/benchmarks/instructions.py" --child "$1" --first 1000 "$CONFIG" 2>&1 | tr -d ,)
}
sim 0 > "$CACHE.0.txt" & sim "$G" > "$CACHE.g.txt" & wait
$PY - "$CACHE" "$G" <<'P'
import re, sys
base, g = sys.argv[1], int(sys.argv[2])
def read(f):
    s = open(f).read()
    d = re.search(r"D1\s+misses:\s+(\d+)\s+\(\s*(\d+) rd\s+\+\s+(\d+) wr", s)
    return int(re.search(r"I\s+refs:\s+(\d+)", s).group(1)), int(d.group(1)), int(d.group(2)), int(d.group(3))
a, b = read(base + ".0.txt"), read(base + ".g.txt")
i, d, rd, wr = ((y - x) / g for x, y in zip(a, b))
print(f"{i:,.0f} instructions a game, {d:.0f} D1 misses a game ({rd:.0f} read + {wr:.0f} write)")
P
