"""The deal control variate (sim/variance.py, sim/deals.py): the replayed deal is the deal
the game was played with (BI-S2; CL-S2, CL-S3), cross-fitting keeps the interval's coverage
where fitting on the analysed games loses it, the variance ratio is the share the covariates
leave unexplained, and ``--precision`` switches to it only when it pays."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from sim import api, deals, runner, variance
from sim.precision import PrecisionStop


def _in_sample(y, x, mu):
    """The tempting shortcut: coefficients fitted on the very games they adjust."""
    beta = variance.fit_beta(y, x)
    adj = y - (x - mu) @ beta
    se = adj.std(ddof=1) / np.sqrt(len(y))
    return adj.mean() - 1.96 * se, adj.mean() + 1.96 * se


def test_cross_fitting_covers_where_fitting_on_the_same_games_does_not():
    # 20 covariates, 2 of them informative, 80 games: in-sample fitting absorbs a quarter of
    # the noise into the slopes and the interval gets too narrow (about 85% coverage)
    rng = np.random.default_rng(3)
    k, n, reps, truth = 20, 80, 400, 0.3
    mu = np.full(k, 0.5)
    hit_cv = hit_in = 0
    for _ in range(reps):
        x = rng.random((n, k))
        p = truth + 0.3 * (x[:, 0] - 0.5) - 0.2 * (x[:, 1] - 0.5)
        y = (rng.random(n) < p).astype(float)
        e = variance.control_variate(y, x, mu)
        assert e.estimator == "control variate"
        hit_cv += e.low <= truth <= e.high
        lo, hi = _in_sample(y, x, mu)
        hit_in += lo <= truth <= hi
    # 400 replicates: Monte Carlo sd about 1.1 pts
    assert 0.92 <= hit_cv / reps <= 0.98
    assert hit_in / reps < 0.91


def test_the_variance_ratio_is_the_unexplained_share_and_the_estimate_unbiased():
    # y = x.b + noise with 75% of the variance explained: the same interval from a quarter
    # of the games (the ">= 4x fewer games")
    rng = np.random.default_rng(5)
    n, reps = 2000, 60
    est, ratios = [], []
    for _ in range(reps):
        x = rng.normal(size=(n, 4))
        y = 1.0 + x @ np.array([1.0, 1.0, 1.0, 0.0]) + rng.normal(size=n)  # var 3 explained, 1 not
        e = variance.control_variate(y, x, np.zeros(4))
        est.append(e.value)
        ratios.append(e.variance_ratio)
    assert np.median(ratios) == pytest.approx(0.25, abs=0.02)
    # unbiased: the mean of the estimates within 3 standard errors of the truth
    assert abs(np.mean(est) - 1.0) < 3 * np.std(est) / np.sqrt(reps)


def test_fold_sums_give_the_fits_of_the_other_folds():
    rng = np.random.default_rng(7)
    n, k = 500, 3
    x = rng.normal(size=(n, k))
    y = x @ np.array([0.5, -1.0, 0.0]) + rng.normal(size=n)
    e = variance.control_variate(y, x, np.zeros(k), folds=5)
    fold = np.arange(n) % 5
    adj = np.empty(n)
    for f in range(5):
        tr = fold != f
        design = np.column_stack([np.ones(tr.sum()), x[tr]])
        coef = np.linalg.lstsq(design, y[tr], rcond=None)[0]
        adj[~tr] = y[~tr] - x[~tr] @ coef[1:]
    assert e.value == pytest.approx(adj.mean())
    # the spread of the adjusted values on the residual degrees of freedom (3 slopes, 1 mean)
    assert e.se == pytest.approx(np.sqrt(((adj - adj.mean()) ** 2).sum() / (n - k - 1) / n))


def _config(game, players, strategy, games):
    return {"game": game, "players": players, "games": games, "seed": 5, "seats": [{"strategy": strategy}]}


def test_the_replayed_entrance_is_the_played_one(tmp_path):
    cfg = _config("bloody_inn", 3, "random", 40)
    runner.run_dataset(cfg, tmp_path / "bi", events=True, threads=1)
    ev = pl.read_parquet(tmp_path / "bi" / "events" / "*.parquet").filter(pl.col("kind") == "deck")
    played = ev.sort("game_id", "a")["card_kind"].to_numpy().reshape(40, -1)
    resolved = api.resolve(cfg)
    from kernels.bloody_inn.deal_features import entrance_kinds
    from sim.games.bloody_inn.adapter import BloodyInnAdapter

    kinds = np.zeros(played.shape, dtype=np.int64)
    entrance_kinds(BloodyInnAdapter().build_template(resolved)[0], np.int64(5), np.int64(0), kinds)
    ids = np.array([c["id"] for c in resolved["cards"]])
    assert (ids[kinds] == played).all()  # BI-S2: the same Entrance, card for card
    x = deals.covariates(resolved, 0, 40)
    assert x.shape == (40, 9 * 6) and np.unique(x, axis=0).shape[0] == 40


def test_the_replayed_hands_are_the_dealt_ones(tmp_path):
    cfg = _config("cluedo", 3, "naive", 30)
    runner.run_dataset(cfg, tmp_path / "cl", events=True, threads=1)
    ev = pl.read_parquet(tmp_path / "cl" / "events" / "*.parquet").filter(
        (pl.col("kind") == "deal") & (pl.col("seat") < 3)
    )
    resolved = api.resolve(cfg)
    from kernels.cluedo import layout as L
    from kernels.cluedo.deal_features import seat_deals
    from sim.games.cluedo.adapter import build_tables, load_board

    raw = np.zeros((30, 3, 3), dtype=np.int64)
    seat_deals(np.zeros(L.STATE_SIZE, np.int64), build_tables(resolved), np.int64(0), np.int64(3), raw)
    for (g, seat), rows in ev.group_by(["game_id", "seat"]):
        assert raw[g, seat, 1] == sum(1 << int(c) for c in rows["a"])  # CL-S2: the same hand
    seats = pl.read_parquet(tmp_path / "cl" / "seats" / "*.parquet").sort("game_id", "seat")
    suspects = np.array(load_board().suspects)
    assert (suspects[raw[:, :, 0].ravel()] == seats["character"].to_numpy()).all()  # CL-S3
    x = deals.covariates(resolved, 0, 30)
    # every seat's suspects + weapons + rooms is its hand size, 18 cards over 3 seats (CL-S2)
    assert (x.reshape(30, 3, -1)[:, :, :3].sum(axis=2) == 6).all()


def test_precision_uses_the_control_variate_only_when_it_pays():
    resolved = api.resolve(_config("bloody_inn", 3, "random", 100_000))
    n = 1500
    x = deals.covariates(resolved, 0, n)
    mu = deals.deal_means(resolved)[0]
    rng = np.random.default_rng(11)
    # a result the deal largely decides (the first round's pocket money), and one it does not
    signal = (x[:, 0] - mu[0]) / x[:, 0].std()
    decided = np.clip(0.4 + 0.25 * signal + rng.normal(0, 0.1, n), 0, 1)
    for y, used in ((decided, "control variate"), ((rng.random(n) < 0.4).astype(float), "plain")):
        stop = PrecisionStop(resolved, 0.01)
        for a in range(0, n, 500):
            stop.add_values(np.arange(a, a + 500), y[a : a + 500], 500, x[a : a + 500])
        rec = stop.record(stop.reached())
        assert rec["estimator"] == used
        if used == "plain":
            assert rec["games_saved"] == 0 and rec["variance_ratio"] == 1.0
        else:
            assert rec["variance_ratio"] < 0.5 and rec["games_saved"] > n
            assert abs(rec["estimate"] - decided.mean()) < 3 * rec["half_width"]


def test_a_report_says_which_estimator_stopped_the_run(tmp_path):
    from analysis.dataset import open_dataset
    from analysis.report import provenance

    cfg = _config("bloody_inn", 2, "random", 5000)
    man = runner.run_dataset(cfg, tmp_path / "p", chunk_games=250, precision=0.05, threads=1)
    stop = man["stop"]
    assert stop["estimator"] in ("plain", "control variate")
    (point,) = provenance("run", open_dataset(tmp_path / "p"))["points"]
    assert f"estimator: {stop['estimator']}" in point["stop"]
    assert f"{stop['games_saved']:,} games saved" in point["stop"]
    # a run that played all its games has no such line
    runner.run_dataset(cfg | {"games": 300}, tmp_path / "q", threads=1)
    (point,) = provenance("run", open_dataset(tmp_path / "q"))["points"]
    assert point["stop"] is None
