"""The experience question on constructed games whose answers are known by hand: lead
changes counted on score paths drawn for it, the round a game is decided, comebacks,
kingmaking, spread and margin; then the question through ``sim analyse`` on a written
dataset with a trajectory table.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import synthetic_data as synthetic
from typer.testing import CliRunner

from analysis.questions import experience as ex
from sim.cli import app


def _tables(games):
    """``games``: list of (scores per round [per seat], winner, final scores); the game id is
    the index.  Returns trajectory, games and seats frames shaped like a run's."""
    traj, gm, st = [], [], []
    for gid, (rounds, winner, final) in enumerate(games):
        players = len(final)
        for r, scores in enumerate(rounds, start=1):
            for seat, sc in enumerate(scores):
                traj.append({"game_id": gid, "round": r, "seat": seat, "score": sc})
        n_win = 1 if winner >= 0 else sum(1 for s in final if s == max(final))
        gm.append(
            {
                "game_id": gid,
                "players": players,
                "rounds": len(rounds),
                "winner": winner,
                "turns": 2 * players * len(rounds),
            }
        )
        for seat, sc in enumerate(final):
            won = seat == winner if winner >= 0 else sc == max(final)
            st.append({"game_id": gid, "seat": seat, "score": sc, "win": (1.0 / n_win) if won else 0.0})
    schema_t = {"game_id": pl.Int64, "round": pl.Int16, "seat": pl.Int8, "score": pl.Int32}
    schema_g = {
        "game_id": pl.Int64,
        "players": pl.Int8,
        "rounds": pl.Int16,
        "winner": pl.Int8,
        "turns": pl.Int32,
    }
    schema_s = {"game_id": pl.Int64, "seat": pl.Int8, "score": pl.Int16, "win": pl.Float32}
    return (
        pl.DataFrame(traj, schema=schema_t),
        pl.DataFrame(gm, schema=schema_g),
        pl.DataFrame(st, schema=schema_s),
    )


# seat 0 leads, seat 1 takes over (1), a tie keeps seat 1, seat 0 (2), seat 1 (3); seat 1 wins
THREE_CHANGES = ([(10, 5), (10, 12), (15, 15), (20, 15), (20, 25)], 1, (30, 20))
# seat 1 leads after round 1, seat 0 from round 2 to the end and wins
DECIDED_AT_2 = ([(5, 8, 1), (12, 9, 4), (20, 11, 9), (26, 20, 10)], 0, (40, 30, 12))
# seat 0 leads every round; the final scoring (BI-G1/G2) gives seat 1 the win
DECIDED_AT_END = ([(10, 4), (20, 14), (30, 28)], 1, (30, 33))
# a tie at the top after round 1 names no leader; seat 1 alone after round 2; shared win
TIED_THEN_SHARED = ([(5, 5), (5, 9), (12, 12)], -1, (20, 20))


def _per_game(*games):
    traj, g, s = _tables(games)
    return ex.per_game(traj, g, s)


def test_lead_changes_counted_on_a_drawn_score_path():
    pg = _per_game(THREE_CHANGES, DECIDED_AT_2, DECIDED_AT_END, TIED_THEN_SHARED)
    # a tie is no change; the final winner counts as the last step's leader
    assert pg["lead_changes"].to_list() == [3, 1, 1, 0]


def test_the_round_from_which_the_winner_leads_for_good():
    pg = _per_game(THREE_CHANGES, DECIDED_AT_2, DECIDED_AT_END, TIED_THEN_SHARED)
    # THREE_CHANGES: winner seat 1 leads from round 5 (= R): decided late, not by the scoring
    # DECIDED_AT_END: only step R + 1 = 4 (the final scoring); a shared win has no winner
    assert pg["decided_round"].to_list() == [5, 2, 4, None]
    assert pg["decided_late"].to_list() == [True, False, True, None]
    assert pg["decided_at_end"].to_list() == [False, False, True, None]


def test_spread_and_margin_of_the_final_scores():
    pg = _per_game(THREE_CHANGES, DECIDED_AT_2)
    assert pg["spread"].to_list() == [10.0, 28.0]  # 30 - 20; 40 - 12
    assert pg["margin"].to_list() == [10.0, 10.0]  # 30 - 20; 40 - 30


def _behind(*games):
    traj, g, s = _tables(games)
    return ex.deficits(traj, g, s), ex.per_game(traj, g, s)


def test_deficits_list_every_seat_behind_the_top_with_its_result():
    behind, _ = _behind(DECIDED_AT_END)
    rows = behind.sort("round").select("round", "seat", "rounds_left", "deficit", "win").rows()
    # seat 1 behind by 6, 6 and 2 francs with 2, 1 and 0 rounds left, and it won
    assert rows == [(1, 1, 2, 6, 1.0), (2, 1, 1, 6, 1.0), (3, 1, 0, 2, 1.0)]


def test_comeback_curve_counts_cases_and_games_per_cell():
    # 4 games, 2 seats, 3 rounds: after round 2 the trailing seat is 8 F behind; it wins
    # 1 of the 4 games (a comeback from 8 F with one round left: 25%)
    comeback = ([(10, 4), (20, 12), (25, 24)], 1, (30, 33))
    held = ([(10, 4), (20, 12), (25, 24)], 0, (33, 30))
    behind, _ = _behind(comeback, held, held, held)
    curve = ex.comeback_curve(behind, ["players"])
    cell = curve.filter((pl.col("rounds_left_bin") == "1") & (pl.col("deficit_bin") == "5-9")).row(
        0, named=True
    )
    assert (cell["cases"], cell["games"], cell["wins"]) == (4, 4, 1.0)
    assert cell["share"] == pytest.approx(0.25)
    assert cell["share_lo"] < 0.25 < cell["share_hi"]


def test_comeback_interval_is_clustered_by_game():
    """The same outcomes, two cases per game instead of one case per game: the cases of a
    game are not independent, so the interval must be wider."""
    rows = [
        {"point": "", "game_id": g, "players": 3, "deficit": 7, "rounds_left": 1, "win": w}
        for g, w in enumerate([1.0] * 10 + [0.0] * 30)
    ]
    one = pl.DataFrame(rows)
    # every game's case twice (both seats of a game with the same result: a shared outcome)
    two = pl.DataFrame(rows + rows)
    spread = pl.DataFrame(rows + [{**r, "game_id": r["game_id"] + 100} for r in rows])
    c_two = ex.comeback_curve(two, ["players"]).row(0, named=True)
    c_spread = ex.comeback_curve(spread, ["players"]).row(0, named=True)
    assert c_two["cases"] == c_spread["cases"] == 80
    assert c_two["games"] == 40 and c_spread["games"] == 80
    assert c_two["share"] == c_spread["share"] == pytest.approx(0.25)
    width = c_two["share_hi"] - c_two["share_lo"]
    assert width > 1.3 * (c_spread["share_hi"] - c_spread["share_lo"])
    c_one = ex.comeback_curve(one, ["players"]).row(0, named=True)
    assert width == pytest.approx(c_one["share_hi"] - c_one["share_lo"], rel=0.05)


# 3 seats, 3 rounds; after round 2 (one round left):
# a comeback: seat 2 is 8 F behind and wins (no winner came back from further: threshold 8)
COMEBACK_8 = ([(5, 5, 6), (20, 15, 12), (24, 20, 30)], 2, (26, 22, 34))
# a kingmaker game: seat 2 is 25 F behind (> 8), seat 0 leads, seat 1 wins
KINGMAKER = ([(10, 9, 3), (30, 28, 5), (34, 36, 8)], 1, (36, 40, 10))
# seat 2 is out of contention too, but the leader (seat 0) holds on
HELD = ([(10, 9, 3), (30, 28, 5), (38, 31, 8)], 0, (40, 33, 10))
# the win changes hands, but the last seat is only 5 F behind: in contention
OPEN_RACE = ([(10, 9, 8), (30, 28, 25), (34, 36, 30)], 1, (36, 40, 31))


def test_kingmaking_from_the_data_threshold():
    behind, pg = _behind(COMEBACK_8, KINGMAKER, HELD, OPEN_RACE)
    km = ex.kingmaking(behind, pg, ["players"]).sort("game_id")
    assert km["threshold"].to_list() == [8, 8, 8, 8]
    assert km["kingmaker_seat"].to_list() == [False, True, True, False]
    assert km["kingmaker_game"].to_list() == [False, True, False, False]


def test_kingmaking_with_a_given_threshold_and_not_at_two_players():
    behind, pg = _behind(COMEBACK_8, KINGMAKER, HELD, OPEN_RACE)
    km = ex.kingmaking(behind, pg, ["players"], out_of_contention=4).sort("game_id")
    # at 4 F: OPEN_RACE's last seat (5 behind) is out of contention and the win changed hands;
    # in COMEBACK_8 seat 1 (5 behind, lost) is, and the leader (seat 0) lost to seat 2
    assert km["kingmaker_game"].to_list() == [True, True, False, True]
    # at 6 F only COMEBACK_8's seat 2 (8 behind) is beyond it, and it won: not out of contention
    km6 = ex.kingmaking(behind, pg, ["players"], out_of_contention=6).sort("game_id")
    assert km6["kingmaker_seat"].to_list() == [False, True, True, False]
    behind2, pg2 = _behind(THREE_CHANGES, DECIDED_AT_END)
    assert ex.kingmaking(behind2, pg2, ["players"]).height == 0


def test_summary_shares_and_means_with_intervals():
    games = [THREE_CHANGES, DECIDED_AT_END, TIED_THEN_SHARED, DECIDED_AT_END]
    traj, g, s = _tables(games)
    pg = ex.per_game(traj, g, s).with_columns(
        pl.lit(None, pl.Boolean).alias("kingmaker_seat"), pl.lit(None, pl.Boolean).alias("kingmaker_game")
    )
    t = {r["measure"]: r for r in ex.summary(pg, ["players"]).iter_rows(named=True)}
    assert t["lead_changes"]["estimate"] == pytest.approx((3 + 1 + 0 + 1) / 4)
    assert t["no_lead_change"]["estimate"] == pytest.approx(1 / 4)
    # the shared win has no decided round: 3 games, 2 decided by the final scoring
    assert t["decided_at_end"]["games"] == 3
    assert t["decided_at_end"]["estimate"] == pytest.approx(2 / 3)
    assert t["turns_per_round"]["estimate"] == pytest.approx(2.0)
    assert t["waiting"]["estimate"] == pytest.approx(2.0)  # the other seat's 2 actions
    assert "kingmaker_game" not in t  # no game of 3+ seats
    for r in t.values():
        assert r["lo"] <= r["estimate"] <= r["hi"]


def _write(tmp_path, games, players):
    traj, g, s = _tables(games)
    n = g.height
    cfg = synthetic.bloody_inn_config(players, games=n, strategies=("expert",))
    g = g.with_columns(
        pl.lit("synthetic").alias("config_id"),
        pl.lit(1, pl.Int8).alias("n_winners"),
        pl.lit(0, pl.Int8).alias("truncated"),
    )
    s = s.with_columns(pl.lit("expert").alias("strategy"), pl.lit(0, pl.Int8).alias("lineup"))
    return synthetic.write_run(tmp_path / "run", g, s, cfg, trajectory=traj, chunks=2)


def test_sim_analyse_question_experience(tmp_path):
    out = _write(tmp_path, [COMEBACK_8, KINGMAKER, HELD, OPEN_RACE] * 5, 3)
    res = CliRunner().invoke(app, ["analyse", str(out), "--question", "experience", "--json"])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.output)
    q = payload["questions"]["experience"]
    rows = {r["measure"]: r for r in q["tables"]["tension"]["rows"]}
    # 5 of the 20 games are kingmaker games (KINGMAKER), 10 have a seat out of contention
    assert rows["kingmaker_game"]["estimate"] == pytest.approx(0.25)
    assert rows["kingmaker_seat"]["estimate"] == pytest.approx(0.5)
    assert rows["out_of_contention"]["estimate"] == 8  # COMEBACK_8's winner came back from 8
    assert any("lead changes per game" in h for h in q["headlines"])


def test_sim_analyse_experience_without_trajectory_says_why(tmp_path):
    traj, g, s = _tables([COMEBACK_8, KINGMAKER])
    cfg = synthetic.bloody_inn_config(3, games=2, strategies=("expert",))
    g = g.with_columns(pl.lit(1, pl.Int8).alias("n_winners"), pl.lit(0, pl.Int8).alias("truncated"))
    s = s.with_columns(pl.lit("expert").alias("strategy"), pl.lit(0, pl.Int8).alias("lineup"))
    out = synthetic.write_run(tmp_path / "run", g, s, cfg, chunks=1)
    res = CliRunner().invoke(app, ["analyse", str(out), "--question", "experience"])
    assert res.exit_code == 2
    assert "sim run --trajectory" in res.output


def test_a_study_entry_asking_experience_records_the_trajectory(tmp_path):
    from analysis.study import load_study, run_study

    (tmp_path / "run.toml").write_text('game = "bloody_inn"\nplayers = 3\ngames = 20\n')
    (tmp_path / "study.toml").write_text(
        'title = "t"\n[[data]]\nname = "e"\nrun = "run.toml"\nquestions = ["experience"]\n'
        '[[data]]\nname = "s"\nrun = "run.toml"\nquestions = ["duration"]\n'
    )
    asked = {}

    def run_dataset(config, target, trajectory=False, **_):
        asked[target.name] = trajectory
        traj, g, s = _tables([COMEBACK_8, KINGMAKER, HELD, OPEN_RACE] * 5)
        cfg = synthetic.bloody_inn_config(3, games=g.height, strategies=("expert",))
        g = g.with_columns(pl.lit(1, pl.Int8).alias("n_winners"), pl.lit(0, pl.Int8).alias("truncated"))
        s = s.with_columns(pl.lit("expert").alias("strategy"), pl.lit(0, pl.Int8).alias("lineup"))
        synthetic.write_run(target, g, s, cfg, trajectory=traj if trajectory else None, chunks=1)

    st = load_study(tmp_path / "study.toml", out=tmp_path / "out")
    _, md = run_study(st, run_dataset=run_dataset, echo=lambda m: None)
    assert asked == {"e": True, "s": False}
    text = md.read_text()
    assert "Experience" in text and "lead changes per game" in text


def test_sim_validate_counts_the_rungs_of_the_experience_study():
    """A run entry with a ladder plays once per rung with the rung's games (it printed the run
    config's games once and failed on its text line)."""
    path = str(Path(__file__).resolve().parents[1] / "configs/studies/bloody_inn-experience.toml")
    res = CliRunner().invoke(app, ["validate", path, "--json"])
    assert res.exit_code == 0, res.output
    rows = {d["name"]: d for d in json.loads(res.stdout)["data"]}
    assert rows["two_players"]["rungs"] == 2 and rows["two_players"]["games"] == 2 * 4_000
    res = CliRunner().invoke(app, ["validate", path])
    assert res.exit_code == 0, res.output
    assert "three_players: run x 2 ladder rungs, 8,000 games" in res.output


def test_a_final_spread_that_cannot_vary_is_no_verdict_number():
    """Cluedo's final scores are 1 for the winner and 0 for the others: the spread is 1 in every
    game, a zero-width interval that describes no game, so the verdict leaves it out; a spread
    that varies stays."""
    rows = [
        ("lead_changes", 1.2, 1.1, 1.3, "changes"),
        ("decided_late", 0.3, 0.28, 0.32, "share"),
        ("spread", 1.0, 1.0, 1.0, "points"),
    ]
    t = pl.DataFrame(
        [
            {"players": 2, "measure": m, "estimate": e, "lo": lo, "hi": hi, "games": 400, "unit": u}
            for m, e, lo, hi, u in rows
        ]
    )
    keys = [k["key"] for k in ex._key_numbers(None, {"tension": t})]
    assert len(keys) == 2 and not any("first minus last" in k for k in keys)
    varied = t.with_columns(
        pl.when(pl.col("measure") == "spread").then(0.9).otherwise(pl.col("lo")).alias("lo")
    )
    assert len(ex._key_numbers(None, {"tension": varied})) == 3
