"""perf samples of the block kernel placed on source lines (issue 17).

The entry point runs its own copies of every callee, inlined into one machine-code body, so
perf's symbols say little ("action 63 %").  Compiled with ``NUMBA_DEBUGINFO=1`` the object code
carries DWARF line tables; this maps each sample to a line, and sums lines by function.

Usage (a cold cache, so the object code is there to dump)::

    mkdir -p /tmp/speed; rm -f /tmp/speed/ready
    BOARDSIM_CACHE_DIR=$(mktemp -d) NUMBA_DEBUGINFO=1 DUMP_OBJECT=/tmp/speed/obj.o \\
        PYTHONPATH=. python benchmarks/issue17/perf_map_play.py expert 40 &
    benchmarks/issue17/perfwait.sh
    perf script -i /tmp/speed/perf.data -G -F ip | awk 'NF{print $1}' > /tmp/speed/ips.txt
    python benchmarks/issue17/line_profile.py 40            # top 40 lines, then by function

Caveat: an inlined callee's lines carry its *caller's* file name with the callee's own line
number (numba's debug info), so a line of ``strat_tools.clock`` shows as
``strat_heuristic.py:54``.  Lines below 300 of ``strat_heuristic.py`` are such lines (that file
has only imports and tables there); the by-function sums list them apart.
"""

import ast
import bisect
import collections
import re
import subprocess
import sys
from pathlib import Path

SPEED = Path("/tmp/speed")
HEURISTIC = Path(__file__).resolve().parents[2] / "kernels" / "bloody_inn" / "strat_heuristic.py"


def line_table(obj):
    """(address, file, line) rows of the object's DWARF line table, sorted by address."""
    out = subprocess.run(["objdump", "--dwarf=decodedline", str(obj)], capture_output=True, text=True).stdout
    rows = []
    for text in out.splitlines():
        m = re.match(r"^(\S+\.py)\s+(\d+)\s+(0x[0-9a-f]+)", text)
        if m:
            rows.append((int(m.group(3), 16), m.group(1), int(m.group(2))))
    return sorted(rows)


def samples_by_line(rows, base, ips):
    """Samples per (file, line); a sample on a line-0 row counts for the last numbered row."""
    addrs = [r[0] for r in rows]
    counts = collections.Counter()
    outside = 0
    for ip in ips:
        off = ip - base
        i = bisect.bisect_right(addrs, off) - 1
        if i < 0 or off > addrs[-1] + 100_000:
            outside += 1
            continue
        while i > 0 and rows[i][2] == 0:
            i -= 1
        counts[(rows[i][1], rows[i][2])] += 1
    return counts, outside


def heuristic_functions(counts):
    """Samples of ``strat_heuristic.py`` lines summed by the function holding the line."""
    tree = ast.parse(HEURISTIC.read_text())
    defs = [(n.lineno, n.end_lineno, n.name) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    out = collections.Counter()
    for (f, ln), n in counts.items():
        if f != "strat_heuristic.py":
            continue
        name = "(inlined from another file: line < 300)" if ln < 300 else "(module)"
        for a, b, nm in defs:
            if a <= ln <= b and ln >= 300:
                name = nm
        out[name] += n
    return out


def main(top):
    base = int((SPEED / "obj.o.sections").read_text().split()[1], 16)
    ips = [int(x, 16) for x in (SPEED / "ips.txt").read_text().split()]
    counts, outside = samples_by_line(line_table(SPEED / "obj.o"), base, ips)
    total = len(ips)
    print(f"{total} samples, {outside} outside the kernel's code")
    files = collections.Counter()
    for (f, _), n in counts.items():
        files[f] += n
    for f, n in files.most_common():
        print(f"{100 * n / total:6.2f}% {f}")
    print()
    for (f, ln), n in counts.most_common(top):
        print(f"{100 * n / total:6.2f}% {f}:{ln}")
    print()
    for name, n in heuristic_functions(counts).most_common():
        print(f"{100 * n / total:6.2f}% {name}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
