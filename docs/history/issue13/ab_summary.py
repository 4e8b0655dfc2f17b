"""Summary of ``ab_bench.sh`` runs: per pass, the bench rows' games/s (all cores), CPU us per
game and games/s as a ratio to the yardstick (trick-taking kernel, geometric mean of its
readings right before and after the pass); then, per strategy, branch / main of the CPU time
per game and of the yardstick ratio, with a 95% interval (Welch t on the logs).

    python benchmarks/issue13/ab_summary.py /tmp/cols_ab [/tmp/cols_ab2 ...]
"""

import json
import math
import statistics as st
import sys
from pathlib import Path

# Student t 0.975 quantiles by degrees of freedom (df rounded down: a wider interval)
T975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
)


def yard(path):
    for line in Path(path).read_text().splitlines():
        row = json.loads(line)
        if "hearts" in row.get("game", ""):
            return row["games_per_s"]
    raise SystemExit(f"no yardstick reading in {path}")


def ratio_ci(here, base):
    """Ratio of geometric means here/base and its 95% interval (Welch t on the logs)."""
    a, b = [math.log(x) for x in here], [math.log(x) for x in base]
    d = st.mean(a) - st.mean(b)
    va, vb = st.variance(a) / len(a), st.variance(b) / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    t = T975[min(int(df), len(T975)) - 1] if df < len(T975) + 1 else 1.96
    return math.exp(d), math.exp(d - t * se), math.exp(d + t * se)


def main(dirs):
    samples = {}
    for out in map(Path, dirs):
        for js in sorted(out.glob("*.json")):
            tag = js.stem
            side = tag.split("-")[0]
            y = math.sqrt(yard(out / f"{tag}.yard-before") * yard(out / f"{tag}.yard-after"))
            for row in json.loads(js.read_text())["throughput"]:
                gps, cpu = row["games_per_s_all"], row["cpu_us_per_game_all"]
                print(
                    f"{out.name}/{tag:7s} {row['mix']:7s} {gps:7.0f} g/s {cpu:6.2f} cpu us/game "
                    f"arrow {row['arrow_us_per_game_all']:5.2f} us  yard {y:7.0f}  g/s per yard {gps / y:.4f}"
                )
                s = samples.setdefault((row["mix"], side), {"cpu": [], "yard": [], "arrow": []})
                s["cpu"].append(cpu)
                s["yard"].append(gps / y)
                s["arrow"].append(row["arrow_us_per_game_all"])
    for mix in sorted({m for m, _ in samples}):
        b, h = samples.get((mix, "base")), samples.get((mix, "here"))
        if not b or not h or len(b["cpu"]) < 2 or len(h["cpu"]) < 2:
            continue
        for what, label in (
            ("cpu", "CPU us per game"),
            ("yard", "games/s per yardstick"),
            ("arrow", "arrow us per game"),
        ):
            r, lo, hi = ratio_ci(h[what], b[what])
            print(
                f"{mix:7s} branch/main {label:22s} {r:.3f}  (95% CI {lo:.3f} to {hi:.3f}; n = {len(b[what])} + {len(h[what])})"
            )


if __name__ == "__main__":
    main(sys.argv[1:] or ["/tmp/cols_ab"])
