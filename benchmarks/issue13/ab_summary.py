"""Summary of ``ab_bench.sh``: per pass, the bench rows' games/s (all cores) and CPU us per
game, each also as a ratio to the yardstick (trick-taking kernel, geometric mean of its
readings before and after the pass); then branch / main of those ratios per strategy."""

import json
import math
import sys
from pathlib import Path


def yard(path):
    for line in Path(path).read_text().splitlines():
        row = json.loads(line)
        if "hearts" in row.get("game", ""):
            return row["games_per_s"]
    raise SystemExit(f"no yardstick reading in {path}")


def main(out):
    out = Path(out)
    ratios = {}
    for js in sorted(out.glob("*.json")):
        tag = js.stem
        side = tag.split("-")[0]
        y = math.sqrt(yard(out / f"{tag}.yard-before") * yard(out / f"{tag}.yard-after"))
        for row in json.loads(js.read_text())["throughput"]:
            gps, cpu = row["games_per_s_all"], row["cpu_us_per_game_all"]
            print(
                f"{tag:8s} {row['mix']:7s} {gps:9.0f} g/s  {cpu:6.2f} cpu us/game  yard {y:8.0f}  g/s / yard {gps / y:.4f}"
            )
            ratios.setdefault((row["mix"], side), []).append((gps / y, cpu))
    for mix in sorted({m for m, _ in ratios}):
        b, h = ratios.get((mix, "base"), []), ratios.get((mix, "here"), [])
        if not b or not h:
            continue
        gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
        speed = gm([r for r, _ in h]) / gm([r for r, _ in b])
        cpu = gm([c for _, c in h]) / gm([c for _, c in b])
        print(
            f"{mix}: branch/main games/s per yardstick {speed:.3f}; CPU us per game {cpu:.3f} (n={len(b)}+{len(h)})"
        )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/cols_ab")
