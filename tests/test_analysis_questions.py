"""Every balance question on synthetic datasets built to have a known answer."""

import json

import numpy as np
import polars as pl
import pytest
from synthetic_data import bloody_inn_config, bloody_inn_events, bloody_inn_tables, write_run, write_sweep

from analysis.dataset import open_dataset, strategy_labels
from analysis.errors import AnalysisError
from analysis.metrics import QUESTIONS, Metric, register, run_question
from analysis.stats import wilson

GARDENS = 3  # annex bit built only by winners in the fixtures
BUTCHER = 5  # annex bit nobody builds


@pytest.fixture(scope="module")
def sixty_forty(tmp_path_factory):
    """2 players, 1000 games: seat 0 wins exactly 600."""
    winners = np.array([0] * 600 + [1] * 400)
    np.random.default_rng(0).shuffle(winners)
    g, s = bloody_inn_tables(1000, 2, seed=1, winners=winners, strategies=("a", "b"))
    return write_run(
        tmp_path_factory.mktemp("d") / "run", g, s, bloody_inn_config(2, games=1000, strategies=("a", "b"))
    )


@pytest.fixture(scope="module")
def three_way(tmp_path_factory):
    """3 strategies with strengths a > b > c, an annex only winners build, one nobody
    builds, some shared wins and truncated games, and an event log."""
    g, s = bloody_inn_tables(
        6000,
        3,
        seed=2,
        strategies=("a", "b", "c"),
        skill={"a": 3.0, "b": 1.5, "c": 1.0},
        winners_build=GARDENS,
        never_build=BUTCHER,
        shared_rate=0.1,
        truncated_rate=0.02,
    )
    ev = bloody_inn_events(g.head(40), s.filter(pl.col("game_id") < 40))
    return write_run(
        tmp_path_factory.mktemp("d") / "run",
        g,
        s,
        bloody_inn_config(3, games=6000, strategies=("a", "b", "c")),
        events=ev,
    )


def _deck_point(players, deck, even):
    n = 600 * players
    if even:
        winners = np.tile(np.arange(players), n // players)  # exactly equal seats
    else:
        i = np.arange(n)  # seat 0 wins 3 games in 4, the others share the rest
        winners = np.where(i % 4 < 3, 0, 1 + (i // 4) % (players - 1))
    g, s = bloody_inn_tables(n, players, seed=players * 1000 + deck, winners=winners, deck_size=deck)
    return (
        f"p{players}_d{deck}",
        {"players": players, "rules.deck_size": deck},
        g,
        s,
        bloody_inn_config(players, games=n, deck_size=deck),
    )


@pytest.fixture(scope="module")
def deck_sweep(tmp_path_factory):
    """Deck size x players where one deck size per player count gives exactly even seats."""
    best = {2: 45, 3: 54}
    pts = [_deck_point(p, d, even=(d == best[p])) for p in (2, 3) for d in (35, 45, 54)]
    out = write_sweep(tmp_path_factory.mktemp("d") / "sweep", pts)
    (out / "stray" / "games").mkdir(parents=True)  # not a grid point: must be ignored
    pts[0][2].write_parquet(out / "stray" / "games" / "part-00000.parquet")
    return out


# --- dataset -----------------------------------------------------------------------


def test_open_run_and_sweep(sixty_forty, deck_sweep):
    ds = open_dataset(sixty_forty)
    assert ds.kind == "run" and ds.game == "bloody_inn" and ds.params == []
    assert ds.seats.select(pl.len()).collect().item() == 2000
    sw = open_dataset(deck_sweep)
    assert sw.kind == "sweep" and sw.params == ["players", "rules.deck_size"]
    per = (
        sw.games.group_by("point")
        .agg(pl.len(), pl.col("rules.deck_size").first(), pl.col("players").first())
        .sort("point")
        .collect()
    )
    assert per["point"].to_list() == sorted(f"p{p}_d{d}" for p in (2, 3) for d in (35, 45, 54))
    assert per["len"].to_list() == [1200] * 3 + [1800] * 3
    assert (per["rules.deck_size"] == per["point"].str.extract(r"d(\d+)").cast(pl.Int64)).all()


def test_not_a_dataset(tmp_path):
    with pytest.raises(AnalysisError, match="not a dataset"):
        open_dataset(tmp_path)
    with pytest.raises(AnalysisError, match="no such directory"):
        open_dataset(tmp_path / "missing")


def test_unfinished_points_are_reported(tmp_path):
    pts = [_deck_point(2, 35, True), _deck_point(2, 45, True)]
    out = write_sweep(tmp_path / "sw", pts)
    m = json.loads((out / "p2_d45" / "manifest.json").read_text())
    m["status"] = "running"
    (out / "p2_d45" / "manifest.json").write_text(json.dumps(m))
    ds = open_dataset(out)
    assert any("running" in w for w in ds.warnings)


def test_strategy_labels_tell_parameters_apart():
    seats = [
        {"strategy": "greedy", "params": {"risk": 1.0, "x": 2}},
        {"strategy": "random", "params": {}},
        {"strategy": "greedy", "params": {"risk": 3.0, "x": 2}},
    ]
    assert strategy_labels(seats) == ["greedy(risk=1.0)", "random", "greedy(risk=3.0)"]
    assert strategy_labels(seats[:2]) is None


# --- seats ---------------------------------------------------------------------------


def test_seats_sixty_forty(sixty_forty):
    ds = open_dataset(sixty_forty)
    r = run_question(ds, "seats")
    t = r["seat_win_share"].sort("seat")
    assert t["wins"].to_list() == [600.0, 400.0]
    assert t["share"].to_list() == pytest.approx([0.6, 0.4])
    lo, hi = wilson(600, 1000)
    assert (t["share_lo"][0], t["share_hi"][0]) == pytest.approx((lo, hi))
    assert t["gap"].to_list() == pytest.approx([0.1, -0.1])
    eq = r["seat_equality"]
    assert eq["chi2"][0] == pytest.approx(40.0) and eq["p_value"][0] < 1e-9
    summ = r["seat_summary"].row(0, named=True)
    assert summ["balance"] == pytest.approx(0.8) and summ["advantage"] == pytest.approx(0.6)
    assert summ["completion"] == 1.0 and summ["shared"] == 0.0
    # rotating lineup: each strategy sat 500 times in each seat
    by_strat = r["strategy_seat_win_share"]
    assert by_strat["games"].to_list() == [500] * 4
    assert by_strat.group_by("seat").agg(pl.col("wins").sum()).sort("seat")["wins"].to_list() == [
        600.0,
        400.0,
    ]
    heads = QUESTIONS["seats"].headlines(ds, r)
    assert heads[0].startswith("2 players: the first player has an advantage of +10.0 pts (95% CI +")
    assert "60.0%" in heads[0] and "not equal" in heads[0]


def test_a_first_player_disadvantage_is_called_one(tmp_path):
    winners = np.array([1] * 600 + [0] * 400)
    np.random.default_rng(0).shuffle(winners)
    g, s = bloody_inn_tables(1000, 2, seed=1, winners=winners)
    ds = open_dataset(write_run(tmp_path / "run", g, s, bloody_inn_config(2, games=1000)))
    heads = QUESTIONS["seats"].headlines(ds, run_question(ds, "seats"))
    assert heads[0].startswith("2 players: the first player has a disadvantage of -10.0 pts (95% CI -")


def test_shared_wins_count_one_over_k(three_way):
    ds = open_dataset(three_way)
    r = run_question(ds, "seats")
    games = ds.games.collect()
    had_winner = (games["n_winners"] > 0).mean()
    assert r["seat_win_share"]["share"].sum() == pytest.approx(had_winner)
    summ = r["seat_summary"].row(0, named=True)
    assert summ["shared"] == pytest.approx((games["n_winners"] > 1).mean())
    assert summ["completion"] == pytest.approx(1 - games["truncated"].mean())


# --- cards ---------------------------------------------------------------------------


def test_annex_built_only_by_winners_has_the_top_lift(three_way):
    ds = open_dataset(three_way)
    r = run_question(ds, "cards")
    lift = r["annex_lift"]
    gardens = lift.filter(pl.col("annex") == "Gardens").row(0, named=True)
    assert gardens["builders_share"] == pytest.approx(1.0)
    assert gardens["lift_lo"] > 0.3
    assert lift.row(0, named=True)["annex"] == "Gardens"  # ranked first
    butcher = lift.filter(pl.col("annex") == "Butcher's Shop").row(0, named=True)
    assert butcher["builders"] == 0 and butcher["lift"] is None
    # annexes built at random (independently of winning): lifts near 0, most intervals cover it
    rest = lift.filter(~pl.col("annex").is_in(["Gardens", "Butcher's Shop"]))
    covers = ((rest["lift_lo"] <= 0) & (rest["lift_hi"] >= 0)).mean()
    assert covers >= 0.8 and rest["lift"].abs().max() < 0.05
    rates = r["annex_build_rate"].filter(pl.col("annex") == "Butcher's Shop")
    assert rates["built"][0] == 0 and rates["build_rate"][0] == 0.0
    heads = QUESTIONS["cards"].headlines(ds, r)
    # the winners' annex separates from the next one, and the sentence says it is an association
    assert heads[0].startswith("Largest lift") and "Gardens (rank" in heads[0]
    assert "an association, not a causal effect" in heads[0] and "above the next" in heads[0]
    # the random annexes at the bottom cannot be told apart
    assert heads[1].startswith("Smallest lift") and "indistinguishable" in heads[1]


def test_rank_flow_matches_direct_counts(three_way):
    ds = open_dataset(three_way)
    seats = ds.seats.collect()
    n = seats["game_id"].n_unique()
    flow = run_question(ds, "cards")["rank_flow"]
    for rank in range(4):
        row = flow.filter(pl.col("rank") == str(rank)).row(0, named=True)
        for what in ("bribed", "killed", "buried"):
            assert row[what] == pytest.approx(seats[f"{what}_r{rank}"].sum() / n)
    # built by rank: rank-3 annexes are bits 3,4,5,9,10,11,15,16,17,21,22,23
    mask = seats["annex_mask"].to_numpy()
    r3 = sum(((mask >> b) & 1).sum() for b in (3, 4, 5, 9, 10, 11, 15, 16, 17, 21, 22, 23))
    assert flow.filter(pl.col("rank") == "3")["built"][0] == pytest.approx(r3 / n)


def test_rank_power_detects_cost_tracking_power(tmp_path):
    # every rank-3 annex is built by winners only, every other at random -> rho > 0
    g, s = bloody_inn_tables(3000, 3, seed=5)
    rng = np.random.default_rng(1)
    mask = s["annex_mask"].to_numpy().copy()
    won = s["win"].to_numpy() >= 1.0
    for b in (3, 4, 5, 9, 10, 11, 15, 16, 17, 21, 22, 23):
        mask &= ~(1 << b)
        mask |= ((won & (rng.random(mask.size) < 0.3)).astype(np.int64) << b).astype(mask.dtype)
    s = s.with_columns(pl.Series("annex_mask", mask, dtype=pl.Int32))
    out = write_run(tmp_path / "run", g, s, bloody_inn_config(3, games=3000))
    rp = run_question(open_dataset(out), "cards")["rank_power"]
    assert rp["spearman"][0] > 0.6 and rp["p_perm"][0] < 0.01
    means = dict(zip(rp["rank"].to_list(), rp["mean_lift"].to_list()))
    assert means[3] > 0.3 and abs(means[0]) < 0.05


# --- deck ----------------------------------------------------------------------------


def test_deck_finds_the_even_deck_and_marks_official(deck_sweep):
    ds = open_dataset(deck_sweep)
    r = run_question(ds, "deck")
    cells = r["deck_cells"]
    assert cells.height == 6 and cells["games"].to_list() == [1200] * 3 + [1800] * 3
    even = cells.filter((pl.col("players") == 3) & (pl.col("deck_size") == 54)).row(0, named=True)
    assert even["imbalance"] == pytest.approx(0.0) and even["p_value"] == pytest.approx(1.0)
    assert even["official"]  # BI-S2: long 3p -> 54
    assert cells.filter(pl.col("official"))["deck_size"].to_list() == [45, 54]  # 2p long -> 45
    skewed = cells.filter((pl.col("players") == 2) & (pl.col("deck_size") == 35)).row(0, named=True)
    assert skewed["seat0_share"] == pytest.approx(0.75)
    assert skewed["seat0_gap"] == pytest.approx(0.25)
    best = r["best_deck"].sort("players")
    assert best["best"].to_list() == [45, 54]
    # the skewed decks (seat 0 wins 75%) are detectably worse; the even one is best in
    # every bootstrap replicate
    assert best["best_set"].to_list() == ["45", "54"] and best["p_best"].to_list() == [1.0, 1.0]
    # 1,200 games cannot show seats within +/-1 pt (the interval is wider than that)...
    assert best["even_sizes"].to_list() == ["none", "none"]
    heads = QUESTIONS["deck"].headlines(ds, r)
    assert heads[0].table["most even (chance best)"].to_list() == ["45 (100%)", "54 (100%)"]
    assert heads[1].startswith("No deck size is shown to give even seats (within ±1 pt)")
    # ...but they can show them within +/-5 pts, and the skewed decks are never "even"
    wide = run_question(ds, "deck", {"equivalence_margin": 0.05})
    assert wide["best_deck"].sort("players")["even_sizes"].to_list() == ["45", "54"]
    assert wide["deck_cells"].filter(pl.col("deck_size") == 35)["even"].to_list() == [False, False]


def test_deck_question_skips_a_single_deck_size(sixty_forty):
    from analysis.report import answer

    ds = open_dataset(sixty_forty)
    assert run_question(ds, "deck") == {}
    # a question the dataset cannot answer is not shown in the report at all
    assert QUESTIONS["deck"].why_not(ds) == (
        "not answered: every game used the same deck size (a sweep over rules.deck_size answers it)."
    )
    assert answer(ds, "deck") is None


# --- strategies -------------------------------------------------------------------------


def test_strategy_rating_recovers_the_ordering(three_way):
    ds = open_dataset(three_way)
    r = run_question(ds, "strategies")
    rating = r["rating"]
    assert rating["strategy"].to_list() == ["a", "b", "c"]
    assert rating["elo_lo"][0] > rating["elo_hi"][1] and rating["elo_lo"][1] > rating["elo_hi"][2]
    h2h = r["head_to_head"]
    ab = h2h.filter((pl.col("strategy") == "a") & (pl.col("opponent") == "b"))["ahead"][0]
    ba = h2h.filter((pl.col("strategy") == "b") & (pl.col("opponent") == "a"))["ahead"][0]
    assert ab + ba == pytest.approx(1.0) and ab > 0.55
    # same data, same bootstrap seed -> same intervals
    again = run_question(ds, "strategies")["rating"]
    assert again.equals(rating)


def test_no_rating_when_every_seat_plays_the_same(sixty_forty, tmp_path):
    g, s = bloody_inn_tables(200, 2, seed=3)
    out = write_run(tmp_path / "run", g, s, bloody_inn_config(2, games=200))
    r = run_question(open_dataset(out), "strategies")
    assert "rating" not in r and "head_to_head" not in r
    assert r["strategy_win_share"]["seat_games"][0] == 400


# --- duration ------------------------------------------------------------------------


def test_duration_and_money_over_rounds(three_way):
    ds = open_dataset(three_way)
    r = run_question(ds, "duration")
    games = ds.games.collect()
    gl = r["game_length"].row(0, named=True)
    assert gl["rounds_mean"] == pytest.approx(games["rounds"].cast(pl.Float64).mean())
    assert gl["truncated"] == pytest.approx(games["truncated"].mean())
    hist = r["rounds_histogram"]
    assert hist["games"].sum() == games.height and hist["share"].sum() == pytest.approx(1.0)
    money = r["money_over_rounds"]
    assert set(money["strategy"].unique()) == {"a", "b", "c"}
    assert money.filter(pl.col("round") == 0)["seat_games"].sum() == 40 * 3


# --- registry ------------------------------------------------------------------------


def test_a_user_metric_registers_and_runs(sixty_forty):
    @register("duration")
    class LongestGame(Metric):
        name = "test_longest_game"
        title = "Longest game"
        source = "games"

        def compute(self, games):
            return games.group_by(self.by).agg(pl.col("rounds").max()).collect()

    try:
        ds = open_dataset(sixty_forty)
        out = run_question(ds, "duration")["test_longest_game"]
        assert out["rounds"][0] == ds.games.select(pl.col("rounds").max()).collect().item()
    finally:
        QUESTIONS["duration"].metrics = [
            m for m in QUESTIONS["duration"].metrics if m.name != "test_longest_game"
        ]


def test_unknown_question(sixty_forty):
    with pytest.raises(AnalysisError, match="question = 'nope' is invalid"):
        run_question(open_dataset(sixty_forty), "nope")


class _Stub:
    params = []

    @staticmethod
    def group_cols(columns):
        return [c for c in ("players",) if c in columns]


def _rating_results(observed, predicted, p_fit):
    rating = pl.DataFrame(
        {
            "players": [3, 3, 3],
            "strategy": ["a", "b", "c"],
            "elo": [100.0, 0.0, -100.0],
            "elo_lo": [95.0, -5.0, -105.0],
            "elo_hi": [105.0, 5.0, -95.0],
            "elo_vs_next": [100.0, 100.0, None],
            "elo_vs_next_lo": [90.0, 90.0, None],
            "elo_vs_next_hi": [110.0, 110.0, None],
        }
    )
    fit = pl.DataFrame(
        {
            "players": [3] * 3,
            "strategy": ["a", "a", "b"],
            "opponent": ["b", "c", "c"],
            "observed": observed,
            "predicted": predicted,
            "z": [5.0, -5.0, 5.0],
            "p_fit": [p_fit] * 3,
        }
    )
    return {"rating": rating, "rating_fit": fit}


def test_a_non_transitive_field_is_warned_about_and_a_tiny_misfit_is_not():
    heads = QUESTIONS["strategies"].headlines(
        _Stub(), _rating_results([0.70, 0.55, 0.70], [0.64, 0.75, 0.64], 1e-9)
    )
    assert heads[0].startswith("3 players: strongest strategy a (+100 Elo")
    assert heads[1].startswith("Warning (3 players): the ratings do not describe") and "a vs c" in heads[1]
    heads = QUESTIONS["strategies"].headlines(
        _Stub(), _rating_results([0.641, 0.748, 0.642], [0.64, 0.75, 0.64], 0.002)
    )
    assert "depart detectably" in heads[1] and "the ranking describes them" in heads[1]
    heads = QUESTIONS["strategies"].headlines(
        _Stub(), _rating_results([0.70, 0.55, 0.70], [0.64, 0.75, 0.64], 0.5)
    )
    assert len(heads) == 1  # a good fit adds nothing
