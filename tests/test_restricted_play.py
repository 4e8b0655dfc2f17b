"""Restricted play and duplicate deals.

A restricted lineup entry is offered only the remaining legal choices, by every strategy:
over large random batches it never takes a forbidden action (the kernel's invariant checks
would also flag one as an illegal decision), while the same strategy unrestricted does, and
it still builds the annexes it is not barred from.  ``rotate = "duplicate"`` plays every
deal once per rotation of the lineup: the same shuffle, keys and first seat.
"""

from __future__ import annotations

import polars as pl
import pytest

from analysis.game_facts import annex_kinds
from sim import api
from sim.config import config_id
from sim.errors import ConfigError

BARRED = ["grocer", "marquis", "count", "viscount", "baron", "newsboy"]


def play(players, seats, games, seed=3, events=False, rotate=True):
    cfg = {
        "game": "bloody_inn",
        "players": players,
        "games": games,
        "seed": seed,
        "rotate": rotate,
        "rules": {"check_invariants": True},
        "seats": seats,
    }
    r = api.simulate(cfg, events=events)
    ev = pl.from_arrow(r.events) if events else None
    return pl.from_arrow(r.games), pl.from_arrow(r.seats), ev, r.resolved


def totals(seats):
    return {
        row["lineup"]: row
        for row in seats.group_by("lineup")
        .agg(
            pl.col("kills").sum(),
            pl.col("peasants_killed").sum(),
            pl.col("bribes").sum(),
            pl.col("peasants_bribed").sum(),
            pl.col("buried").sum(),
            pl.col("builds").sum(),
            pl.col("annex_mask").cast(pl.Int64).alias("masks"),
        )
        .iter_rows(named=True)
    }


def barred_bits(resolved):
    return [k["bit"] for k in annex_kinds(resolved) if k["id"] in BARRED]


@pytest.mark.parametrize("strategy, games", [("random", 10000), ("expert", 5000)])
def test_a_restricted_seat_never_takes_a_forbidden_choice(strategy, games):
    seats = [
        {"strategy": strategy, "restrict": {"actions": ["kill"], "build": BARRED}},
        {"strategy": strategy, "restrict": {"actions": ["bribe", "bury"]}},
        {"strategy": strategy, "restrict": {"actions": ["build"]}},
        {"strategy": strategy},  # the control: the same strategy, unrestricted
    ]
    g, s, _, resolved = play(4, seats, games)
    assert (g["invariant_error"] == 0).all()  # no illegal (or forbidden) decision
    t = totals(s)
    bits = barred_bits(resolved)
    assert len(bits) == len(BARRED)
    # entry 0: never kills (travellers or Bistro peasants), never builds a barred annex ...
    assert t[0]["kills"] == 0 and t[0]["peasants_killed"] == 0
    assert all((m >> b) & 1 == 0 for m in t[0]["masks"] for b in bits)
    # ... but still builds the others
    assert t[0]["builds"] > games // 20
    # entry 1: never bribes nor buries; entry 2 never builds
    assert t[1]["bribes"] == 0 and t[1]["peasants_bribed"] == 0 and t[1]["buried"] == 0
    assert t[2]["builds"] == 0
    # the unrestricted control takes every one of these choices
    ctl = t[3]
    assert ctl["kills"] > 0 and ctl["bribes"] > 0 and ctl["buried"] > 0 and ctl["builds"] > 0
    assert any((m >> b) & 1 for m in ctl["masks"] for b in bits)


@pytest.mark.parametrize("strategy", ["random", "greedy", "expert"])
def test_a_seat_barred_from_laundering_only_passes(strategy):
    """BI-N7: with ``launder`` forbidden the pass stays legal but never buys or cashes a
    cheque; the unrestricted entry launders in the same games."""
    seats = [{"strategy": strategy, "restrict": {"actions": ["launder"]}}, {"strategy": strategy}]
    g, s, ev, _ = play(2, seats, 400, events=True)
    assert (g["invariant_error"] == 0).all()
    lineup = s.select("game_id", "seat", "lineup")
    laund = ev.filter(pl.col("kind") == "launder").join(lineup, on=["game_id", "seat"])
    passes = ev.filter(pl.col("kind") == "passing").join(lineup, on=["game_id", "seat"])
    assert laund.filter(pl.col("lineup") == 0).height == 0
    assert laund.filter(pl.col("lineup") == 1).height > 0
    assert passes.filter(pl.col("lineup") == 0).height > 0


def test_greedy_respects_every_action_restriction():
    seats = [
        {"strategy": "greedy", "restrict": {"actions": ["kill", "bribe"]}},
        {"strategy": "greedy", "restrict": {"actions": ["bury", "build"]}},
        {"strategy": "greedy"},
    ]
    g, s, _, _ = play(3, seats, 2000)
    assert (g["invariant_error"] == 0).all()
    t = totals(s)
    assert t[0]["kills"] == t[0]["bribes"] == t[0]["peasants_killed"] == t[0]["peasants_bribed"] == 0
    assert t[1]["buried"] == t[1]["builds"] == 0
    assert t[2]["kills"] > 0 and t[2]["bribes"] > 0 and t[2]["buried"] > 0 and t[2]["builds"] > 0


def resolve(seats, **extra):
    return api.resolve({"game": "bloody_inn", "players": 2, "games": 10, "seats": seats, **extra})


def test_restriction_is_in_the_resolved_config_and_its_id():
    plain = resolve([{"strategy": "expert"}, {"strategy": "expert"}])
    a = resolve([{"strategy": "expert", "restrict": {"actions": ["kill", "bribe"]}}, {"strategy": "expert"}])
    b = resolve([{"strategy": "expert", "restrict": {"actions": ["bribe", "kill"]}}, {"strategy": "expert"}])
    c = resolve([{"strategy": "expert", "restrict": {"build": ["grocer"]}}, {"strategy": "expert"}])
    assert a["seats"][0]["restrict"] == {"actions": ["bribe", "kill"]}
    assert "restrict" not in plain["seats"][0] and "restrict" not in a["seats"][1]
    assert config_id(a) == config_id(b)  # order does not matter
    assert len({config_id(plain), config_id(a), config_id(c)}) == 3


@pytest.mark.parametrize(
    "restrict, fragments",
    [
        (
            {"actions": ["murder"]},
            ["seats.0.restrict.actions", "'murder'", "bribe, build, kill, bury, launder"],
        ),
        ({"actions": ["pass"]}, ["seats.0.restrict.actions", "'pass'", "launder"]),
        ({"build": ["peacekeeper"]}, ["seats.0.restrict.build", "'peacekeeper'", "grocer"]),
        ({"build": ["nonsense"]}, ["seats.0.restrict.build", "'nonsense'", "card ids that can be annexes"]),
        ({"build": "grocer"}, ["seats.0.restrict.build", "a list of"]),
        ({"cards": ["grocer"]}, ["seats.0.restrict.cards", "actions, build"]),
    ],
)
def test_bad_restrict_values_are_one_line_errors(restrict, fragments):
    with pytest.raises(ConfigError) as info:
        resolve([{"strategy": "random", "restrict": restrict}, {"strategy": "random"}])
    msg = str(info.value)
    assert "\n" not in msg
    for f in fragments:
        assert f in msg, msg


def test_a_bad_rotate_is_a_one_line_error():
    with pytest.raises(ConfigError, match='rotate.*"duplicate"'):
        resolve([{"strategy": "random"}], rotate="twice")
    with pytest.raises(ConfigError, match='rotate.*"duplicate"'):
        api.resolve({"game": "cluedo", "players": 3, "games": 3, "rotate": "twice"})


def test_a_duplicate_deal_is_the_same_shuffle_in_every_rotation():
    """Games 3d, 3d+1, 3d+2 of a 3-player duplicate run share deal d: the same Entrance
    order (BI-S2), keys (BI-S1) and seat 0 first (BI-S4), with the lineup rotated so
    every entry plays every seat; different deals differ."""
    seats = [{"strategy": "random"}, {"strategy": "greedy"}, {"strategy": "expert"}]
    g, s, ev, _ = play(3, seats, 12, events=True, rotate="duplicate")
    assert g["deal"].to_list() == [i // 3 for i in range(12)]
    setup = (
        ev.filter(pl.col("kind").is_in(["deck", "key", "deal"]))
        .sort("game_id", "seq")
        .group_by("game_id", maintain_order=True)
        .agg(pl.col("kind"), pl.col("card"), pl.col("seat"), pl.col("a"))
        .join(g.select("game_id", "deal"), on="game_id")
    )
    per_deal = setup.group_by("deal").agg(
        pl.struct("kind", "card", "seat", "a").n_unique().alias("setups"), pl.len().alias("games")
    )
    assert (per_deal["setups"] == 1).all() and (per_deal["games"] == 3).all()
    assert setup.select(pl.struct("kind", "card", "seat", "a").n_unique()).item() == 4
    first = ev.filter(pl.col("kind") == "round").group_by("game_id").agg(pl.col("seat").first())
    assert (first["seat"] == 0).all()
    rot = (
        s.join(g.select("game_id", "deal"), on="game_id")
        .group_by("deal", "lineup")
        .agg(pl.col("seat").n_unique())
    )
    assert (rot["seat"] == 3).all()
    # plain rotation: the games of a "deal" are different shuffles
    _, _, ev2, _ = play(3, seats, 3, events=True, rotate=True)
    decks = ev2.filter(pl.col("kind") == "deck").group_by("game_id").agg(pl.col("card"))
    assert decks.select(pl.col("card").n_unique()).item() == 3


def test_duplicate_deals_in_the_seat_and_strategy_questions(tmp_path):
    """Self-play on duplicate deals repeats one game per deal (the stream is the deal's), so
    the deal-clustered interval of a seat's share is about sqrt(3) times the Wilson one at 3
    players; two identical entries tie exactly on every deal; a mixed lineup's paired gap is
    the difference of the entries' win shares."""
    from analysis.dataset import open_dataset
    from analysis.metrics import QUESTIONS, run_question
    from sim import runner

    base = {"game": "bloody_inn", "players": 3, "games": 3000, "seed": 8, "rotate": "duplicate"}
    runner.run_dataset({**base, "seats": [{"strategy": "random"}]}, tmp_path / "self")
    ds = open_dataset(tmp_path / "self")
    seat = run_question(ds, "seats")["duplicate_seat_share"]
    assert seat["deals"].to_list() == [1000] * 3
    assert all(1.6 < r < 1.85 for r in seat["width_ratio"])
    gap = run_question(ds, "strategies")["duplicate_entry_gap"]
    assert gap["gap"].abs().max() == 0 and gap["gap_hi"].abs().max() == 0
    mixed = [{"strategy": s} for s in ("random", "greedy", "random")]
    runner.run_dataset({**base, "seats": mixed}, tmp_path / "mixed")
    ds = open_dataset(tmp_path / "mixed")
    res = run_question(ds, "strategies")
    row = res["duplicate_entry_gap"].filter(pl.col("entry_b") == "1:greedy").row(0, named=True)
    s = pl.read_parquet(tmp_path / "mixed" / "seats" / "*.parquet")
    share = dict(s.group_by("lineup").agg(pl.col("win").mean()).iter_rows())
    assert row["gap"] == pytest.approx(share[0] - share[1])
    assert row["gap_hi"] < 0  # greedy beats random
    assert any("paired over 1,000 deals" in h for h in QUESTIONS["strategies"].headlines(ds, res))


def test_the_rules_refuse_a_restricted_choice_and_allow_the_rest():
    """The legal-choice queries and the night's checks (BI-N4, BI-N7) on a built situation:
    seat 0 may not build the Dining Room, kill or launder; seat 1 may do all of it."""
    from kernels.bloody_inn import layout as L
    from kernels.bloody_inn import legal
    from tests.bloody_inn_harness import Table

    seats = [{"strategy": "random", "restrict": {"actions": ["kill", "launder"], "build": ["count"]}}]
    t = Table(2, seats=seats + [{"strategy": "random"}], rotate=False).clear()
    hands = [t.to_hand(p, "count", "baron", "peasant", "peasant", "peasant", "peasant") for p in (0, 1)]
    for p in (0, 1):
        t.set_money(p, cash=30, cheques=1)
    t.to_room(0, "viscount")
    (count0, baron0), count1 = hands[0][:2], hands[1][0]
    assert not legal.can_build(t.st, 0, count0) and legal.can_build(t.st, 0, baron0)
    assert legal.can_build(t.st, 1, count1)
    assert not legal.action_feasible(t.st, 0, L.ACTION.kill) and legal.action_feasible(t.st, 1, L.ACTION.kill)
    assert legal.action_feasible(t.st, 0, L.ACTION.bribe) and legal.action_feasible(t.st, 0, L.ACTION.passing)
    assert legal.launder_range(t.st, 0) == (0, 0) and legal.launder_range(t.st, 1) == (1, 3)
    assert not t.act_build(0, count0)  # refused: the Dining Room is barred for seat 0
    assert not t.act_launder(0, 1) and t.act_launder(0, 0)  # the pass stays legal
    assert t.act_launder(1, 1)
    assert t.act_build(0, baron0)
