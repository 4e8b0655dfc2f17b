"""Causal power's intervals and claims: coverage per arm when the paired differences are
sparse or constant, the family of "helps / hurts" claims controlled, one lift for the
``cards`` and ``power`` questions, and the murder headline's scope.

The coverage tests draw per-deal differences from arms shaped like the quick study's power
entry (2 players, expert self-play with duplicate deals: in the baseline the two rotations
of a deal are the same game, so entry 0 wins exactly one of them and the per-deal
difference is 0.5 minus the restricted seat's share of the deal): a seat that never wins
(bury), an annex that is never built, an annex whose bar changes one deal in 140
(Workshop), kill, build, Room-like arms and fractional 3-player ones.  Sampling deals from
such an arm is sub-sampling a long run; R replicates (Monte Carlo error of a rate about
sqrt(0.95 x 0.05 / R) = 0.5 points at R = 2,000).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from synthetic_data import bloody_inn_config, bloody_inn_tables, write_sweep

from analysis.dataset import open_dataset
from analysis.metrics import run_question
from analysis.questions.power import headlines
from analysis.stats import holm, paired_diff_interval, paired_diff_p, stratified_lift

R = 2000

#: per-deal difference -> probability; "constant" marks arms whose deals (nearly) all differ
#: alike or not at all
ARMS = {
    "bury (seat never wins)": ({0.5: 1 - 1e-4, 0.25: 1e-4}, True),
    "never built": ({0.0: 1 - 1e-4, 0.5: 1e-4}, True),
    "never binds": ({0.0: 1.0}, True),
    "workshop (1 deal in 140)": ({0.5: 0.0050, -0.5: 0.0022, 0.0: 1 - 0.0072}, False),
    "kill": ({0.5: 0.92, 0.0: 0.076, -0.5: 0.004}, False),
    "build": ({0.5: 0.992, 0.0: 0.008}, False),
    "room": ({0.5: 0.03, -0.5: 0.02, 0.0: 0.95}, False),
    "bishop": ({0.5: 0.08, -0.5: 0.02, 0.0: 0.90}, False),
    "even": ({0.5: 0.2, -0.5: 0.2, 0.0: 0.6}, False),
    "3 players": ({1 / 3: 0.1, 0.0: 0.7, -1 / 3: 0.15, -2 / 3: 0.05}, False),
    "shared wins": ({0.25: 0.02, 0.5: 0.03, -0.25: 0.01, -0.5: 0.01, 0.0: 0.93}, False),
}


def draw_sums(arm, n, reps, rng):
    """The sums paired_diff_interval takes, for ``reps`` samples of ``n`` deals, and the
    arm's true mean difference."""
    vals = np.array(list(arm))
    p = np.array(list(arm.values()))
    p = p / p.sum()
    counts = rng.multinomial(n, p, size=reps)
    pos, neg = np.maximum(vals, 0), np.maximum(-vals, 0)
    seen = counts > 0
    sums = (
        np.full(reps, float(n)),
        counts @ pos,
        counts @ pos**2,
        np.where(seen, pos, 0).max(axis=1),
        counts @ neg,
        counts @ neg**2,
        np.where(seen, neg, 0).max(axis=1),
    )
    return sums, float(vals @ p), counts @ (vals != 0)


@pytest.mark.parametrize("n", [250, 1000])
@pytest.mark.parametrize("name", list(ARMS))
def test_power_interval_covers_every_arm(name, n):
    arm, constant = ARMS[name]
    rng = np.random.default_rng(35)
    sums, truth, differing = draw_sums(arm, n, R, rng)
    d, lo, hi = paired_diff_interval(*sums)
    rate = float(np.mean((lo <= truth) & (truth <= hi)))
    assert rate >= 0.93, f"{name}, {n} deals: coverage {rate:.3f}"
    # an arm that differs alike in every deal (or in none) still gets an interval, not a point
    assert np.all(hi - lo > 0), f"{name}: a zero-width interval"
    # where the differing deals are too few to be seen in most samples, any interval that
    # covers when none is seen covers nearly always: only arms with enough of them are held
    # to the upper end
    if not constant and differing.mean() >= 10:
        assert rate <= 0.97, f"{name}, {n} deals: coverage {rate:.3f} (too wide)"


def test_power_interval_is_the_normal_one_when_many_deals_differ():
    rng = np.random.default_rng(3)
    d = rng.choice([-0.5, 0.0, 0.5], size=20_000, p=[0.2, 0.6, 0.2])
    n = d.size
    pos, neg = np.maximum(d, 0), np.maximum(-d, 0)
    m, lo, hi = paired_diff_interval(
        n, pos.sum(), (pos**2).sum(), pos.max(), neg.sum(), (neg**2).sum(), neg.max()
    )
    half = 1.959963984540054 * d.std(ddof=1) / np.sqrt(n)
    assert m == pytest.approx(d.mean())
    assert (hi - lo) / 2 == pytest.approx(half, rel=0.02)


# --- through the power question ------------------------------------------------------------


def _deal_tables(deals, entry0_wins, seed):
    """Two-player duplicate deals; ``entry0_wins(deal)`` -> (wins at its seat-0 game, at its
    seat-1 game)."""
    n = 2 * deals
    gid = np.arange(n)
    entry0_seat = gid % 2
    w = np.array([entry0_wins(d) for d in range(deals)]).reshape(-1)
    winners = np.where(w, entry0_seat, 1 - entry0_seat)
    games, seats = bloody_inn_tables(n, 2, seed=seed, winners=winners, strategies=("expert",))
    return games.with_columns(pl.Series("deal", gid // 2)), seats


def _power_dataset(tmp_path, arms, deals=2000):
    cfg = bloody_inn_config(2, games=2 * deals, strategies=("expert",), rotate="duplicate")
    points = []
    for i, (arm, fn) in enumerate(arms):
        g, s = _deal_tables(deals, fn, seed=i + 1)
        points.append((f"p{i:03d}_arm={arm.replace(':', '-')}", {"arm": arm}, g, s, cfg))
    return open_dataset(write_sweep(tmp_path / "power", points))


def test_a_seat_that_never_wins_gets_an_interval_not_a_point(tmp_path):
    # self-play baseline: entry 0 wins exactly one of the two games of every deal; barred
    # from burying it never wins, barred from the marquis nothing changes
    ds = _power_dataset(
        tmp_path,
        [
            ("baseline", lambda d: (1, 0) if d % 2 else (0, 1)),
            ("action:bury", lambda d: (0, 0)),
            ("card:marquis", lambda d: (1, 0) if d % 2 else (0, 1)),
        ],
    )
    t = run_question(ds, "power")["causal_power"]
    rows = {r["target"]: r for r in t.iter_rows(named=True)}
    bury, marquis = rows["bury"], rows["marquis"]
    assert bury["power"] == 0.5 and bury["differing_units"] == 2000
    assert bury["power_lo"] < 0.5 - 1e-4 and bury["power_hi"] >= 0.5  # not [+50.0, +50.0]
    assert marquis["power"] == 0 and marquis["power_lo"] < 0 < marquis["power_hi"]
    text = " ".join(headlines(ds, {"causal_power": t}))
    assert "the seat never won" in text and "bury" in text


# --- the family of "helps / hurts" claims -------------------------------------------------


def test_helps_and_hurts_control_the_family():
    # 24 annex arms with no effect, each changing about 1 deal in 140 (5,000 deals): counted
    # one interval at a time, some "help" or "hurt" in most studies; with Holm's correction
    # the chance of any false claim in the family stays at 5%
    rng = np.random.default_rng(24)
    arm = {0.5: 0.0036, -0.5: 0.0036, 0.0: 1 - 0.0072}
    reps, k = 400, 24
    sums, truth, _ = draw_sums(arm, 5000, reps * k, rng)
    assert truth == 0
    p = paired_diff_p(*sums).reshape(reps, k)
    _, lo, hi = paired_diff_interval(*sums)
    raw_any = ((lo > 0) | (hi < 0)).reshape(reps, k).any(axis=1).mean()
    fwer = np.mean([(holm(row) < 0.05).any() for row in p])
    assert raw_any > 0.4, f"one by one: a false claim in {raw_any:.2f} of families"
    assert fwer <= 0.065, f"Holm: a false claim in {fwer:.3f} of families"
    # the p-value agrees with the interval: below 0.05 exactly when the interval excludes 0
    excl = (lo > 0) | (hi < 0)
    assert np.array_equal(excl, paired_diff_p(*sums) < 0.05)


def test_helps_count_uses_the_family_correction(tmp_path):
    # 24 annexes each +0.14 pts [+0.03, +0.26] (p = 0.02 alone, 0.48 after Holm): none helps
    from analysis.game_facts import annex_kinds

    ds = _power_dataset(
        tmp_path, [("baseline", lambda d: (1, 0)), ("card:grocer", lambda d: (1, 0))], deals=50
    )
    cards = [k["id"] for k in annex_kinds(ds.config)][:24]
    p = [0.02] * len(cards)
    t = pl.DataFrame(
        [
            {
                "players": 2,
                "kind": "card",
                "target": c,
                "units": 5000,
                "share_unrestricted": 0.5,
                "share_restricted": 0.4986,
                "power": 0.0014,
                "power_lo": 0.0003,
                "power_hi": 0.0026,
                "p_value": p[i],
                "p_holm": float(holm(p)[i]),
                "differing_units": 36,
                "lift": None,
                "lift_lo": None,
                "lift_hi": None,
                "takers": None,
                "signs": "no lift",
                "se": 0.0006,
                "se_unpaired": 0.01,
                "variance_reduction": 0.99,
            }
            for i, c in enumerate(cards)
        ]
    )
    text = headlines(ds, {"causal_power": t})[0]
    assert f"0 of {len(cards)} help and 0 hurt" in text and "Holm" in text, text


# --- one lift -------------------------------------------------------------------------------


def test_the_power_table_lift_is_the_cards_lift(tmp_path):
    # the baseline's lift in the power table is the cards question's (stratified, Newcombe,
    # game-clustered), not a second, per-seat one
    rng = np.random.default_rng(8)
    deals = 1500
    ds = _power_dataset(
        tmp_path,
        [("baseline", lambda d: tuple(rng.random(2) < 0.5)), ("card:grocer", lambda d: (0, 1))],
        deals=deals,
    )
    t = run_question(ds, "power")["causal_power"].row(0, named=True)
    base = ds.seats.filter(
        pl.col("point") == ds.points.filter(pl.col("arm") == "baseline")["point"][0]
    ).collect()
    from analysis.game_facts import annex_kinds

    bit = {k["id"]: k["bit"] for k in annex_kinds(ds.config)}["grocer"]
    built = (base["annex_mask"].cast(pl.Int64).to_numpy() >> bit) & 1 == 1
    r = stratified_lift(
        base["win"].cast(pl.Float64).to_numpy(), built, base["seat"].to_numpy(), base["game_id"].to_numpy()
    )
    assert t["takers"] == r["builders"]
    assert (t["lift"], t["lift_lo"], t["lift_hi"]) == pytest.approx((r["lift"], r["lift_lo"], r["lift_hi"]))


# --- the murder headline's scope -----------------------------------------------------------


def test_murder_pays_says_for_whom(tmp_path):
    ds = _power_dataset(
        tmp_path,
        [("baseline", lambda d: (1, 0) if d % 2 else (0, 1)), ("action:kill", lambda d: (0, d % 10 == 0))],
        deals=500,
    )
    text = " ".join(headlines(ds, run_question(ds, "power")))
    assert "murder pays" in text
    assert "one `expert` seat with killing barred" in text and "not re-tuned" in text, text
