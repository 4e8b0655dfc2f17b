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
from synthetic_data import annex_games, annex_true_lift, character_games, plackett_luce_games

from analysis.questions.characters import chi2_homogeneity
from analysis.questions.strategies import bt_goodness_of_fit
from analysis.stats import (
    best_set,
    chi2_equal,
    clustered_equal_shares,
    clustered_wilson,
    equivalence_p,
    holm,
    imbalance_bootstrap,
    influence_diff,
    meta_regression,
    norm_sf,
    permutation_p,
    stratified_lift,
    weighted_mean,
)

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


# --- shares over several seats of one game ---------------------------------------------


def test_clustered_share_covers_when_a_strategy_holds_two_seats():
    # strategy "a" holds seats 0 and 1 of every 3-player game (self-play against "b"): its
    # two seats are dependent (at most one wins); its true win share per seat is known
    weights = np.array([1.5, 1.2, 1.0])
    truth = weights[:2].sum() / weights.sum() / 2
    rng = np.random.default_rng(11)
    games = 500
    lo, hi = np.empty(R), np.empty(R)
    for r in range(R):
        cum = np.cumsum(weights / weights.sum())
        winner = (rng.random(games)[:, None] > cum).sum(axis=1)
        win = np.zeros((games, 3))
        win[np.arange(games), winner] = 1.0
        wa = win[:, :2]
        # the per-game sums clustered_wilson takes: successes, seats
        s = wa.sum(axis=1)
        p, lo[r], hi[r], _ = clustered_wilson(
            2 * games, s.sum(), (s * s).sum(), (2 * s).sum(), 4 * games, games
        )
    rate = _covers(lo, hi, truth).mean()
    assert LOW <= rate <= HIGH, f"coverage {rate:.3f}"


# --- tests of the right size ---------------------------------------------------------------


def test_characters_wald_test_has_the_right_size():
    # 3 of 6 characters dealt per game, one winner by seat (not by character): the null of
    # equal characters is true.  The clustered Wald test rejects about 5%; the 2 x K
    # homogeneity table it replaced rejects about twice as often.
    rng = np.random.default_rng(5)
    wald = naive = 0
    for _ in range(R):
        d = character_games(rng, 1000, 3, 6, [1.0, 1.3, 0.8])
        wald += clustered_equal_shares(d["win"], d["character"], d["game"], 6)[2] < 0.05
        wins = np.bincount(d["character"], weights=d["win"], minlength=6)
        naive += chi2_homogeneity(wins, np.bincount(d["character"], minlength=6))[2] < 0.05
    assert 0.02 <= wald / R <= 0.085, f"size {wald / R:.3f}"
    assert naive / R > 0.075  # the check has power: the old test fails it


def test_characters_wald_test_finds_a_favoured_character():
    rng = np.random.default_rng(6)
    hits = sum(
        clustered_equal_shares(
            **_char(character_games(rng, 1000, 3, 6, [1.0, 1.0, 1.0], 1.5)), n_categories=6
        )[2]
        < 0.05
        for _ in range(50)
    )
    assert hits / 50 > 0.8


def _char(d):
    return {"win": d["win"], "category": d["character"], "game": d["game"]}


def test_seat_chi_square_has_the_right_size():
    rng = np.random.default_rng(8)
    counts = rng.multinomial(2000, [0.25] * 4, size=R)
    rate = np.mean([chi2_equal(c)[2] < 0.05 for c in counts])
    assert 0.02 <= rate <= 0.085, f"size {rate:.3f}"


def test_equivalence_test_size_at_the_margin():
    # two seats, the first exactly 1 pt above 1/2 (the edge of "even"): the cell must be
    # called even at most about 5% of the time; well inside the margin it usually is
    margin, games = 0.01, 40_000
    rng = np.random.default_rng(9)
    for share, lo_rate, hi_rate in ((0.5 + margin, 0.0, 0.075), (0.5, 0.5, 1.0)):
        w0 = rng.binomial(games, share, size=R) / games
        shares = np.stack([w0, 1 - w0], axis=1)
        se = np.sqrt(shares * (1 - shares) / (games - 1))
        p = np.max(equivalence_p(shares - 0.5, se, margin), axis=1)
        rate = np.mean(p < 0.05)
        assert lo_rate <= rate <= hi_rate, f"share {share}: called even in {rate:.3f}"


def test_holm_controls_the_family_wise_error():
    # 9 correlated cells (a shared component, as sweep points from one seed), all null
    rng = np.random.default_rng(10)
    shared = rng.normal(size=(2000, 1))
    zs = 0.6 * shared + 0.8 * rng.normal(size=(2000, 9))
    p = 2 * norm_sf(np.abs(zs))
    fwer_holm = np.mean([np.any(holm(row) < 0.05) for row in p])
    fwer_raw = np.mean(np.any(p < 0.05, axis=1))
    assert fwer_holm <= 0.06 and fwer_raw > 0.2, (fwer_holm, fwer_raw)


@pytest.mark.parametrize("tau", [0.0, 0.02])
def test_meta_regression_slope_test_has_the_right_size(tau):
    # 20 annexes, lift unrelated to rank, each with its own true value (tau) and SE
    rng = np.random.default_rng(12)
    x = np.repeat([0.0, 1.0, 2.0, 3.0], 5)
    rej = cover = 0
    for _ in range(1000):
        se = rng.uniform(0.005, 0.03, x.size)
        y = 0.1 + rng.normal(0, tau, x.size) + rng.normal(0, se)
        rej += meta_regression(x, y, se)["p_value"] < 0.05
        _, lo, hi = weighted_mean(y[:5], se[:5])
        cover += lo <= 0.1 <= hi
    assert 0.015 <= rej / 1000 <= 0.07, f"size {rej / 1000:.3f}"
    assert 0.93 <= cover / 1000 <= 1.0, f"coverage {cover / 1000:.3f}"


def test_permutation_p_has_the_right_size():
    rng = np.random.default_rng(13)
    x = np.repeat([0.0, 1.0, 2.0, 3.0], 5)
    rej = np.mean(
        [permutation_p(x, rng.normal(size=20), seed=int(rng.integers(1 << 30))) < 0.05 for _ in range(300)]
    )
    assert 0.02 <= rej <= 0.09, f"size {rej:.3f}"


def _fit_p(a, b, ahead_by_game):
    games = ahead_by_game.shape[0]
    pair = np.tile(np.arange(a.size), games)
    game = np.repeat(np.arange(games), a.size)
    return bt_goodness_of_fit(a, b, pair, game, ahead_by_game.ravel(), np.ones(pair.size), 3)[5]


def test_bradley_terry_fit_test_has_the_right_size_and_power():
    # Plackett-Luce finishing orders obey Bradley-Terry exactly: the transitivity test
    # rejects ~5%; a rock-paper-scissors field (A > B > C > A) is flagged
    rng = np.random.default_rng(14)
    a, b = np.array([0, 0, 1]), np.array([1, 2, 2])
    rej = 0
    for _ in range(R):
        place = plackett_luce_games(rng, 1000, [3.0, 1.5, 1.0])
        rej += _fit_p(a, b, (place[:, a] < place[:, b]).astype(float)) < 0.05
    assert 0.02 <= rej / R <= 0.085, f"size {rej / R:.3f}"
    # cyclic: each game one pair is played (A beats B 60%, C beats A 60%, B beats C 60%)
    cyc = (rng.random((3000, 3)) < np.array([0.6, 0.4, 0.6])).astype(float)
    assert _fit_p(a, b, cyc) < 1e-6


# --- "which deck is best" ------------------------------------------------------------------


@pytest.mark.parametrize(
    "seat0",
    [
        pytest.param([0.505, 0.51, 0.52, 0.49, 0.53], id="clear"),
        pytest.param([0.50, 0.502, 0.51, 0.49, 0.53], id="near-tie"),
    ],
)
def test_best_set_holds_the_true_best(seat0):
    # 2-player cells with known first-player shares: the truly most even deck must be in
    # the "not detectably worse" set at least ~95% of the time
    seat0 = np.asarray(seat0)
    true_best = int(np.argmin(np.abs(2 * seat0 - 1)))
    rng = np.random.default_rng(15)
    games, reps = 1500, 60
    hits = 0
    for _ in range(reps):
        wins = []
        for s in seat0:
            w0 = (rng.random(games) < s).astype(float)
            wins.append(np.stack([w0, 1 - w0], axis=1))
        observed = [abs(w[:, 0].mean() - w[:, 1].mean()) for w in wins]
        boots = imbalance_bootstrap(
            wins, [np.arange(games)] * 5, games, n_boot=200, seed=int(rng.integers(1 << 30))
        )
        _, in_set, prob = best_set(observed, boots)
        hits += bool(in_set[true_best])
        assert prob.sum() == pytest.approx(1.0)
    assert hits / reps >= 0.87, f"true best in the set {hits / reps:.2f}"  # 3 MC errors below 95%


# --- a real (small) run split into sub-samples ------------------------------------------


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    from sim import runner

    cfg = {
        "game": "bloody_inn",
        "players": 3,
        "games": 8000,
        "seed": 18,
        "rotate": True,
        "rules": {"length": "long"},
        "seats": [{"strategy": "expert"}],
    }
    out = tmp_path_factory.mktemp("real") / "run"
    runner.run_dataset(cfg, out)
    return out


def test_lift_intervals_cover_the_full_run_value_in_sub_samples(real_run):
    # split a real 8,000-game expert run into 10 sub-samples of 800 games: each
    # sub-sample's interval should hold the full run's lift about 96% of the time (the
    # full-run value carries a tenth of a sub-sample's variance: P(|Z| < 1.96/sqrt(0.9)))
    import polars as pl

    from analysis.dataset import open_dataset
    from analysis.game_facts import annex_kinds

    ds = open_dataset(real_run)
    seats = ds.seats.select("game_id", "seat", "win", "annex_mask").collect().sort("game_id", "seat")
    win = seats["win"].cast(pl.Float64).to_numpy()
    mask = seats["annex_mask"].cast(pl.Int64).to_numpy()
    seat = seats["seat"].cast(pl.Int64).to_numpy()
    game = seats["game_id"].cast(pl.Int64).to_numpy()
    hits = total = 0
    for k in annex_kinds(ds.config):
        built = (mask >> k["bit"]) & 1 == 1
        full = stratified_lift(win, built, seat, game)
        if full["builders"] < 2000:
            continue  # keep annexes whose sub-samples have enough builders for an interval
        for part in range(10):
            sel = game % 10 == part
            r = stratified_lift(win[sel], built[sel], seat[sel], game[sel] // 10)
            total += 1
            hits += bool(r["lift_lo"] <= full["lift"] <= r["lift_hi"])
    assert total >= 50
    assert 0.9 <= hits / total <= 1.0, f"{hits}/{total}"
