"""The ``--precision`` stop rule on simulated runs (no games played): a run stopped by it
has an interval that covers the truth, it does not stop on chunks that all lost (or all
won), and the mean rounds does not stop on a spread of 0.

A run is a sequence of chunks of Bernoulli(p) games; the rule (``sim.precision``) is applied
after every chunk, as the runner does, and the interval at the stop is checked against p.
R runs per case: the Monte Carlo error of a coverage rate is about 0.5 points at R = 2,000.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.precision import PrecisionStop, stop_interval

R = 2000


def stopped_intervals(p, target, chunk, cap, rng):
    """Per simulated run: whether it stopped before the cap and the interval it ended on."""
    chunks = cap // chunk
    wins = rng.binomial(chunk, p, size=(R, chunks)).astype(np.float64)
    s = wins.cumsum(axis=1)
    n = chunk * np.arange(1, chunks + 1, dtype=np.float64)[None, :].repeat(R, axis=0)
    # one game per unit, won or lost: the sum of squares is the sum
    m, lo, hi, enough = stop_interval("seat", n, s, s, s, n)
    stop = enough & ((hi - lo) / 2 <= target)
    first = np.where(stop.any(axis=1), stop.argmax(axis=1), chunks - 1)
    rows = np.arange(R)
    return stop.any(axis=1), lo[rows, first], hi[rows, first], n[rows, first]


@pytest.mark.parametrize(
    "p, target, chunk",
    [(0.05, 0.1, 5), (0.25, 0.1, 5), (0.5, 0.1, 5), (0.02, 0.02, 50), (0.25, 0.02, 100)],
)
def test_a_stopped_run_covers_the_truth(p, target, chunk):
    rng = np.random.default_rng(int(p * 1000) + chunk)
    stopped, lo, hi, n = stopped_intervals(p, target, chunk, cap=10_000, rng=rng)
    assert stopped.mean() > 0.99
    rate = float(np.mean((lo <= p) & (p <= hi)))
    assert rate >= 0.93, f"p = {p}, H = {target}, chunks of {chunk}: coverage {rate:.3f}"


def _stop(players=2, on="seat0"):
    return PrecisionStop({"players": players, "games": 100_000}, 0.1, on)


def test_chunks_that_all_lost_do_not_stop_the_run():
    s = _stop()
    gid = 0
    for _ in range(40):  # 200 games, seat 0 never wins
        s.add_values(np.arange(gid, gid + 5), np.zeros(5), 5)
        gid += 5
        assert not s.reached()
    assert s.half_width > 0
    # ...and the same for chunks that all won
    s = _stop()
    s.add_values(np.arange(200), np.ones(200), 200)
    assert not s.reached() and s.half_width > 0


def test_enough_wins_and_losses_then_it_stops():
    s = _stop()
    rng = np.random.default_rng(2)
    s.add_values(np.arange(400), (rng.random(400) < 0.3).astype(float), 400)
    assert s.reached() and s.half_width <= 0.1


def test_rounds_with_no_spread_do_not_stop():
    s = _stop(on="rounds")
    s.add_values(np.arange(500), np.full(500, 15.0), 500)
    assert not s.reached()
    rng = np.random.default_rng(4)
    s.add_values(np.arange(500, 1000), 15.0 + rng.integers(-2, 3, 500), 500)
    assert s.reached()
