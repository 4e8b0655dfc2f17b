"""The sequential test (sim/sequential.py): its confidence sequence holds the truth at every
look at once (a fixed-sample interval looked at after every chunk does not), and it stops
early when the effect is far from the threshold."""

from __future__ import annotations

import numpy as np

from sim import sequential


def test_the_sequence_holds_the_truth_at_every_look():
    rng = np.random.default_rng(2)
    paths, n, p = 300, 3000, 0.25
    looks = np.arange(100, n + 1, 100)
    rho2 = sequential.rho2_for(1000)
    miss_cs = miss_fixed = 0
    for _ in range(paths):
        y = (rng.random(n) < p).astype(float)
        _, mean, lo, hi = sequential.confidence_sequence(y, rho2, looks=looks)
        miss_cs += ((lo > p) | (hi < p)).any()
        s = np.sqrt(mean * (1 - mean) / looks)
        miss_fixed += ((mean - 1.96 * s > p) | (mean + 1.96 * s < p)).any()
    assert miss_cs / paths <= 0.06  # at most alpha (Monte Carlo sd ~1.3 pts)
    assert miss_fixed / paths > 0.15  # peeking at a 95% interval 30 times


def test_it_stops_early_on_a_large_effect_and_not_on_none():
    rng = np.random.default_rng(4)
    # a first player at -8 pts (3 players, expert): "at least 1 pt" long before +-0.5 pts
    y = (rng.random(20_000) < 1 / 3 - 0.08).astype(float) - 1 / 3
    t = sequential.effect_test(y, 0.01, planned_units=2000, looks=np.arange(100, 20_001, 100))
    assert t["decision"] == "at least d" and t["units"] < 2000 and t["high"] < -0.01
    z = (rng.random(20_000) < 1 / 3).astype(float) - 1 / 3
    t0 = sequential.effect_test(z, 0.01, planned_units=2000, looks=np.arange(100, 20_001, 100))
    assert t0["decision"] != "at least d"
