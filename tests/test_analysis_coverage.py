"""Coverage and size of the analyses' interval methods and tests, on synthetic data with a
known truth.

Each test replicates a model many times (vectorised NumPy, a second or two) and checks that
a nominal 95% interval covers the truth about 95% of the time, or that a 5% test rejects a
true null about 5% of the time.  Tolerances are stated per test: the Monte Carlo error of a
rate from R replicates is sqrt(0.95 x 0.05 / R) (about 1.1 points at R = 400), and a method
fails when it is more than about 3 of those away on the side that misleads (too narrow /
rejecting too often), or grossly conservative.  docs/analysis.md quotes the rates measured.
"""

import numpy as np
import pytest

from analysis.stats import influence_diff, stratified_lift
from analysis.synthetic import annex_games, annex_true_lift

R = 400
LOW, HIGH = 0.92, 0.99  # allowed coverage of a nominal 95% interval at R = 400


def _covers(lo, hi, truth):
    return (np.asarray(lo) <= truth) & (truth <= np.asarray(hi))


# lift: common annexes, rare ones (about 20-40 builders), a losing annex, no effect
LIFT_CASES = [
    pytest.param(3000, [0.20, 0.30, 0.25], 2.0, id="common-winning"),
    pytest.param(3000, [0.003, 0.004, 0.003], 2.0, id="rare-30-builders"),
    pytest.param(3000, [0.003, 0.004, 0.003], -0.9, id="rare-losing"),
    pytest.param(2000, [0.05, 0.08, 0.06], 0.0, id="no-effect"),
]


@pytest.mark.parametrize("games,build_prob,power", LIFT_CASES)
def test_stratified_lift_interval_covers(games, build_prob, power):
    weights = [1.0, 1.2, 0.9]  # seats differ: the strata matter
    truth = annex_true_lift(build_prob, weights, power)
    rng = np.random.default_rng(18)
    hits, used = 0, 0
    for _ in range(R):
        d = annex_games(rng, games, build_prob, weights, power)
        r = stratified_lift(d["win"], d["built"], d["seat"], d["game"])
        if r["builders"] < 20 or not np.isfinite(r["lift"]):
            continue  # the analyses show no interval below 20 builders
        used += 1
        hits += bool(_covers(r["lift_lo"], r["lift_hi"], truth))
    assert used >= 0.8 * R
    assert LOW <= hits / used <= HIGH, (
        f"coverage {hits / used:.3f} over {used} replicates (truth {truth:+.3f})"
    )


def test_lift_difference_interval_covers():
    # annex A has power, annex B is built at random on the same games: A - B has truth lift(A)
    q, weights = [0.15, 0.2, 0.15], [1.0, 1.2, 0.9]
    truth = annex_true_lift(q, weights, 0.3)
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(R):
        d = annex_games(rng, 3000, q, weights, 0.3, extra_build_prob=[0.5, 0.5, 0.5])
        a = stratified_lift(d["win"], d["built"], d["seat"], d["game"])
        b = stratified_lift(d["win"], d["built2"], d["seat"], d["game"])
        _, lo, hi, _ = influence_diff(a["lift"], a["influence"], b["lift"], b["influence"])
        hits += bool(_covers(lo, hi, truth))
    assert LOW <= hits / R <= HIGH, f"coverage {hits / R:.3f}"
