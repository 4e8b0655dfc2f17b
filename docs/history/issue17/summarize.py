import json
import math
import sys

D = "/tmp/speed/"


def yard(f):
    try:
        rows = [json.loads(l) for l in open(D + f) if l.startswith("{")]
    except FileNotFoundError:
        return None
    t = [r for r in rows if "hearts" in r.get("game", "")]
    return t[0] if t else None


def tv(f):
    out = {}
    for l in open(D + f):
        if "Elapsed" in l:
            m = l.split()[-1].split(":")
            out["wall"] = float(m[-1]) + 60 * float(m[-2])
        if "User time" in l:
            out["user"] = float(l.split()[-1])
        if "System time" in l:
            out["sys"] = float(l.split()[-1])
        if "Maximum resident" in l:
            out["rss_mb"] = int(l.split()[-1]) / 1024
    return out


for S in sys.argv[1:]:
    print(f"== sitting {S}")
    for pre in "s", "r", "c":
        try:
            print(
                pre,
                "load",
                open(D + f"{pre}{S}.load0").read().split("average:")[1].strip(),
                "->",
                open(D + f"{pre}{S}.load1").read().split("average:")[1].strip(),
            )
        except Exception as e:
            print(pre, "load ?", e)
    y0, y1 = yard(f"s{S}.yard0"), yard(f"s{S}.yard1")
    if y0 and y1:
        g = math.sqrt(y0["games_per_s"] * y1["games_per_s"])
        print(f"bench yardstick {y0['games_per_s']:,} / {y1['games_per_s']:,} geo {g:,.0f}")
        b = json.load(open(D + f"s{S}.bench.json"))
        for r in b["throughput"]:
            print(
                f"  bench {r['mix']:7s} 1t {r['games_per_s_1']:>9,.0f} all {r['games_per_s_all']:>9,.0f} pipeline {r['pipeline_games_per_s']:>9,.0f}"
                f" ratio(pipeline) {r['pipeline_games_per_s'] / g:.3f} speedup {r['speedup']} range {r.get('speedup_range')} cpu1 {r['cpu_us_per_game_1']} cpuall {r['cpu_us_per_game_all']} kernel {r['kernel_us_per_game_all']} peakMB {r['peak_rss_bytes'] / 2**20:.0f}"
            )
    y0, y1 = yard(f"r{S}.yard0"), yard(f"r{S}.yard1")
    if y0 and y1:
        g = math.sqrt(y0["games_per_s"] * y1["games_per_s"])
        print(f"run yardstick {y0['games_per_s']:,} / {y1['games_per_s']:,} geo {g:,.0f}")
        for k in "random", "expert":
            j = json.load(open(D + f"r{S}.{k}.json"))
            t = tv(f"r{S}.{k}.time")
            print(
                f"  run {k} games {j['games']:,} elapsed {j['elapsed_s']} gps {j['games_per_s']:,.0f} ratio {j['games_per_s'] / g:.3f} proc wall {t['wall']} cpu {t['user'] + t['sys']:.1f} cpu_us/game {1e6 * (t['user'] + t['sys']) / j['games']:.1f} rss {t['rss_mb']:.0f} MB"
            )
    y = yard(f"c{S}.yard0")
    try:
        t = tv(f"c{S}.time")
        print(
            f"cold: yardstick cold compile {y['first_call_s']} s; sim run 1000 expert wall {t['wall']} cpu {t['user'] + t['sys']:.1f} rss {t['rss_mb']:.0f} MB ratio {t['wall'] / y['first_call_s']:.1f}x; nbc/nbi",
            open(D + f"c{S}.nbc").read().split()[:3],
        )
    except Exception as e:
        print("cold ?", e)
