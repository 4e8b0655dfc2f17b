"""Statistics helpers against values computed independently (textbook formulas/tables)."""

import math

import numpy as np
import pytest

from analysis.questions.strategies import fit_bradley_terry
from analysis.stats import (
    chi2_equal,
    chi2_sf,
    equivalence_p,
    holm,
    newcombe,
    permutation_p,
    spearman,
    t_quantile,
    t_sf,
    wilson,
)


def test_wilson_matches_the_closed_form():
    # 60 of 100: centre (0.6 + z²/200)/(1 + z²/100), half-width z*sqrt(.24/100 + z²/40000)/(1+z²/100)
    z = 1.959963984540054
    lo, hi = wilson(60, 100)
    centre = (0.6 + z * z / 200) / (1 + z * z / 100)
    half = z * math.sqrt(0.24 / 100 + z * z / 40000) / (1 + z * z / 100)
    assert lo == pytest.approx(centre - half, abs=1e-12)
    assert hi == pytest.approx(centre + half, abs=1e-12)
    assert (round(lo, 4), round(hi, 4)) == (0.5020, 0.6906)


def test_wilson_edges():
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(10, 10)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.7225, abs=1e-4)
    lo, hi = wilson(np.array([1.0]), np.array([0.0]))
    assert np.isnan(lo[0]) and np.isnan(hi[0])


@pytest.mark.parametrize(
    "stat,df,p",
    [
        (3.841458820694124, 1, 0.05),
        (6.634896601021214, 1, 0.01),
        (5.991464547107979, 2, 0.05),
        (7.814727903251178, 3, 0.05),
        (0.11483180189911703, 3, 0.99),
    ],
)
def test_chi2_sf_against_table_values(stat, df, p):
    assert chi2_sf(stat, df) == pytest.approx(p, rel=1e-7)


@pytest.mark.parametrize("x", [0.01, 0.5, 2.0, 7.3, 30.0, 120.0])
def test_chi2_sf_closed_forms(x):
    # even df have closed forms: df=2 -> exp(-x/2); df=4 -> exp(-x/2) (1 + x/2)
    assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-10, abs=1e-300)
    assert chi2_sf(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-10, abs=1e-300)


def test_chi2_equal_counts():
    stat, df, p = chi2_equal([600, 400])
    assert stat == pytest.approx(40.0) and df == 1
    assert p == pytest.approx(math.erfc(math.sqrt(40.0 / 2)), rel=1e-9)  # chi2(1) tail
    stat, df, p = chi2_equal([300, 300, 300])
    assert stat == 0.0 and df == 2 and p == 1.0


def test_spearman_and_permutation():
    x = [0, 1, 2, 3, 4, 5]
    assert spearman(x, [10, 20, 30, 40, 50, 60]) == pytest.approx(1.0)
    assert spearman(x, [6, 5, 4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2, 2], [1, 2, 3, 4]) == pytest.approx(0.894427, abs=1e-6)
    p1 = permutation_p(list(range(12)), list(range(12)))
    p2 = permutation_p(list(range(12)), list(range(12)))
    assert p1 == p2 and p1 < 0.01  # same seed, same p; perfect order is rare
    rng = np.random.default_rng(3)
    assert permutation_p(np.arange(20), rng.random(20)) > 0.05


def test_bradley_terry_recovers_known_strengths():
    # Expected wins from strengths 4 : 2 : 1 (i beats j with p_i / (p_i + p_j)), 3000 meetings
    p = np.array([4.0, 2.0, 1.0])
    w = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            if i != j:
                w[i, j] = 3000 * p[i] / (p[i] + p[j])
    r = fit_bradley_terry(w, prior=0.0)
    target = np.log(p) - np.log(p).mean()
    assert r == pytest.approx(target, abs=1e-6)


def test_bradley_terry_two_players_closed_form():
    r = fit_bradley_terry(np.array([[0.0, 75.0], [25.0, 0.0]]), prior=0.5)
    assert r[0] - r[1] == pytest.approx(math.log(75.5 / 25.5), abs=1e-9)
    # a strategy that never wins still gets a finite rating thanks to the prior
    r = fit_bradley_terry(np.array([[0.0, 10.0], [0.0, 0.0]]))
    assert np.isfinite(r).all() and r[0] > r[1]


def test_newcombe_hybrid_score_matches_the_published_example():
    # Newcombe (1998), Stat Med 17:873, table II, example (a): 56/70 vs 48/80, method 10
    d, lo, hi = newcombe(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)


def test_holm_by_hand():
    # sorted 0.01, 0.02, 0.03, 0.5 -> x4, x3, x2, x1 with a running maximum
    adj = holm([0.03, 0.01, np.nan, 0.5, 0.02])
    assert adj[1] == pytest.approx(0.04) and adj[4] == pytest.approx(0.06)
    assert adj[0] == pytest.approx(0.06) and adj[3] == pytest.approx(0.5) and np.isnan(adj[2])


def test_equivalence_p_is_the_larger_one_sided_p():
    # estimate 0.002, se 0.004, margin 0.01: z = 3.0 and 2.0 -> p = sf(2.0) = 0.02275
    assert equivalence_p(0.002, 0.004, 0.01) == pytest.approx(0.0227501, abs=1e-6)
    assert equivalence_p(0.02, 0.004, 0.01) > 0.99  # outside the margin


def test_student_t_against_table_values():
    assert t_sf(2.0, 5) == pytest.approx(0.050970, abs=1e-6)
    assert t_quantile(0.975, 10) == pytest.approx(2.228139, abs=1e-5)
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-3)
