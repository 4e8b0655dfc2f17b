"""CPU time per game of one strategy, 3-player long game, 1 thread (for A/B of two trees).

Usage: ``PYTHONPATH=TREE python benchmarks/issue17/ab_time.py expert 60000 [players]``
prints ``strategy games cpu_us_per_game wall_games_per_s`` after a warm-up (the kernels
compile or load from the cache first).  CPU time (``time.process_time``) hardly depends on
other load on a shared machine; wall time does.
"""

import os
import sys
import time

from sim import api

strategy, games = sys.argv[1], int(sys.argv[2])
players = int(sys.argv[3]) if len(sys.argv) > 3 else 3
cfg = {
    "game": "bloody_inn",
    "players": players,
    "rules": {"length": "long"},
    "seed": 1,
    "seats": [{"strategy": strategy}],
    "games": games,
}
r = api.resolve(cfg)
api.set_threads(1)
api.play_range(r, 0, int(os.environ.get("WARMUP", "2000")))  # warm-up
best = None
for _ in range(3):
    c0, w0 = time.process_time(), time.perf_counter()
    api.play_range(r, 0, games)
    c, w = time.process_time() - c0, time.perf_counter() - w0
    us = 1e6 * c / games
    best = us if best is None or us < best else best
print(f"{strategy} {games} {best:.2f} {games / w:.0f}")
