"""Ratios of one ``sitting.sh TAG`` run: ``python summ.py TAG``."""

import json
import re
import sys

R = "/tmp/speed2/res"


def yardstick(path):
    for line in open(path):
        if "hearts" in line:
            d = json.loads(line)
            return d["games_per_s"], d["first_call_s"]
    return None


def time_v(path):
    """(CPU s, wall s, peak RSS MB) from ``/usr/bin/time -v``."""
    text = open(path).read()

    def field(key):
        return re.search(key + r": (.*)", text).group(1)

    parts = field(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\)").split(":")
    wall = float(parts[-1]) + 60 * float(parts[-2])
    cpu = float(field(r"User time \(seconds\)")) + float(field(r"System time \(seconds\)"))
    return cpu, wall, int(field(r"Maximum resident set size \(kbytes\)")) / 1024


tag = sys.argv[1]
ys = [yardstick(f"{R}/s{tag}.yard{i}") for i in range(3)]
print("yardstick g/s:", [y[0] for y in ys])
print(open(f"{R}/s{tag}.load").read())
for i, label in enumerate(["base1", "cur1", "cur2", "base2"]):
    run = json.load(open(f"{R}/s{tag}.{label}.json"))
    cpu, wall, rss = time_v(f"{R}/s{tag}.{label}.time")
    y = (ys[0][0] * ys[1][0]) ** 0.5 if i < 2 else (ys[1][0] * ys[2][0]) ** 0.5
    gps = run["games_per_s"]
    us = cpu / run["games_played"] * 1e6
    print(
        f"{label}: {gps:,.0f} g/s  ratio {gps / y:.3f}  cpu {cpu:.1f}s = {us:.1f} us/game  wall {wall:.1f}s  rss {rss:.0f} MB"
    )
