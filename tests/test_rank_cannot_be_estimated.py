"""A ranking, or a rank's mean, that rests on one annex (or one arm) is said to be not
estimable instead of printing that one annex's sampling interval as if it were the rank's."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from synthetic_data import bloody_inn_config, bloody_inn_tables, write_run

from analysis.dataset import open_dataset
from analysis.metrics import run_question
from analysis.questions import cards
from analysis.questions.power import _power_sentence
from analysis.stats import weighted_mean

#: annex bits of rank 3 in the default card table (tests/test_analysis_questions.py)
RANK3 = (3, 4, 5, 9, 10, 11, 15, 16, 17, 21, 22, 23)


def _run(tmp_path, keep_bits):
    """3,000 random-built games in which every rank-3 annex but ``keep_bits`` is never built."""
    g, s = bloody_inn_tables(3000, 3, seed=5)
    mask = s["annex_mask"].to_numpy().copy()
    for b in RANK3:
        if b not in keep_bits:
            mask &= ~(1 << b)
    s = s.with_columns(pl.Series("annex_mask", mask, dtype=pl.Int32))
    return open_dataset(write_run(tmp_path / "run", g, s, bloody_inn_config(3, games=3000)))


def test_a_rank_with_one_annex_has_no_mean(tmp_path):
    ds = _run(tmp_path, keep_bits=(3,))
    r = run_question(ds, "cards")
    rp = r["rank_power"]
    one = rp.filter(pl.col("rank") == 3).row(0, named=True)
    assert one["annexes"] == 1 and one["mean_lift"] is None and one["mean_lift_lo"] is None
    # ranks with several annexes keep their random-effects mean and interval
    many = rp.filter(pl.col("annexes") >= 2)
    assert many.height >= 2 and many["mean_lift_lo"].is_not_null().all()
    text = next(h for h in cards.headlines(ds, r) if h.startswith("Does rank"))
    assert "rank 3: cannot be estimated (one annex)" in text and "tau = " in text
    # two rank-3 annexes: a mean with an interval again
    r2 = run_question(_run(tmp_path / "two", keep_bits=(3, 4)), "cards")["rank_power"]
    assert r2.filter(pl.col("rank") == 3)["mean_lift_lo"].is_not_null().all()


def test_one_value_gives_no_random_effects_interval():
    m, lo, hi = weighted_mean(np.array([0.05]), np.array([0.01]))
    assert m == 0.05 and math.isnan(lo) and math.isnan(hi)


def _lift(annex, lift, lo, hi, n=5000):
    return {
        "annex": annex,
        "rank": 3,
        "lift": lift,
        "lift_lo": lo,
        "lift_hi": hi,
        "builders": n,
        "others": n,
        "build_rate": 0.1,
        "vs_next": None,
        "vs_next_lo": None,
        "vs_next_hi": None,
        "next_annex": None,
    }


def test_one_rankable_annex_is_not_a_ranking():
    lift = pl.DataFrame(
        [_lift("Grocery", 0.2, 0.15, 0.25), _lift("Kiosk", 0.1, 0.0, 0.2, n=40)],
        schema_overrides={c: pl.Float64 for c in ("vs_next", "vs_next_lo", "vs_next_hi")},
    )
    text = cards.headlines(None, {"annex_lift": lift})[0]
    assert "a ranking cannot be estimated" in text and "Grocery" in text
    assert "Largest" not in text


def _arm(target, power, lo, hi, share_restricted):
    return {
        "target": target,
        "power": power,
        "power_lo": lo,
        "power_hi": hi,
        "p_value": 0.001,
        "p_holm": 0.002,
        "share_unrestricted": 0.5,
        "share_restricted": share_restricted,
    }


def test_one_arm_whose_seat_still_wins_is_not_a_ranking():
    rows = [_arm("kill", 0.459, 0.455, 0.462, 0.041), _arm("bury", 0.5, 0.499, 0.5, 0.0)]
    text = _power_sentence(rows, "actions", 5000)
    assert "one arm to rank, so a ranking cannot be estimated: kill" in text
    assert "largest" not in text and "no single largest" not in text
    # two arms that can be ranked are ranked as before
    two = _power_sentence(
        [_arm("kill", 0.459, 0.455, 0.462, 0.041), _arm("bribe", 0.41, 0.40, 0.42, 0.09)], "actions", 5000
    )
    assert "kill has the largest causal power" in two
