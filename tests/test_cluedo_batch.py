"""Cluedo over large random batches: invariants after every turn, ruleset flags CL-V1..CL-V7
seen in the event log, determinism across threads and chunks, and the adapter's config
validation and output columns."""

from collections import defaultdict

import numba
import numpy as np
import pyarrow as pa
import pytest

import sim
from kernels.cluedo import layout as L
from sim.errors import ConfigError
from sim.games import cluedo as C

B = C.load_board()
EV = {name: i for i, name in enumerate(L.EV_NAMES)}


def resolved(players=4, seats=("logic",), seed=1, rotate=True, **rules):
    res = C.resolve(
        {
            "players": players,
            "rules": rules,
            "seats": [{"strategy": s} if isinstance(s, str) else s for s in seats],
        }
    )
    res.update(seed=seed, rotate=rotate, games=0)
    return res


# --- invariants --------------------------------------------------------------------------

BATCHES = [
    (2, ("logic", "naive"), {}),
    (2, ("prob", "logic"), {"two_player_rooms": "random"}),
    (3, ("logic", "naive", "naive"), {}),
    (3, ("naive",), {"stay_and_suggest": "classic", "dice": 1}),
    (4, ("logic",), {}),
    (4, ("prob", "logic", "naive", "logic"), {"loupe_dice": 1}),
    (5, ("logic", "naive", "logic", "naive", "logic"), {"first_player": "classic"}),
    (6, ("naive",), {"clue_cards": "off"}),
    (6, ("logic", "naive", "naive", "naive", "naive", "naive"), {"loupe_dice": 0}),
]


@pytest.mark.parametrize("players,seats,rules", BATCHES)
def test_invariants_hold_after_every_turn(players, seats, rules):
    """21 cards each in exactly one place, envelope unchanged, pawns on distinct squares,
    every player's knowledge true of the real deal and consistent; every game ends or is
    marked truncated (CL-V7); wins and places are coherent."""
    count = 1000 if "prob" in seats else 5000
    res = resolved(players, seats, seed=players * 7, **rules)
    g, s, _ = C.run_arrays(res, 0, count, check=True)
    assert g["violations"].sum() == 0
    ended = (g["winner"] >= 0) | (g["truncated"] == 1) | (g["n_winners"] == 0)
    assert ended.all()
    assert (g["turns"][g["truncated"] == 1] == res["rules"]["max_turns"]).all()
    assert (g["truncated"] == 0).mean() > 0.99
    win = s["win"].reshape(count, players)
    assert np.allclose(win.sum(1), g["n_winners"])
    acc = s["accused"].reshape(count, players)
    done = g["winner"] >= 0
    assert (acc[done, g["winner"][done]] == 1).all()
    nowin = (g["winner"] < 0) & (g["truncated"] == 0)
    assert (acc[nowin] == 2).all()  # CL-T7: only when all accused wrongly
    assert ((s["known_cards"] >= 3) & (s["known_cards"] <= 21)).all()
    if "naive" not in seats and "prob" not in seats:
        assert (acc != 2).all()  # logic never accuses wrongly


def test_no_winner_games_happen_with_reckless_accusers():
    """CL-T7: prob agents that accuse at any probability can all be wrong."""
    reckless = {"strategy": "prob", "params": {"risk": 0.0, "exact": 0.0, "samples": 4.0}}
    res = resolved(3, (reckless,), seed=9)
    g, s, _ = C.run_arrays(res, 0, 300, check=True)
    assert g["violations"].sum() == 0
    nowin = g["winner"] < 0
    assert nowin.any()
    acc = s["accused"].reshape(300, 3)
    assert (acc[nowin & (g["truncated"] == 0)] == 2).all()
    place = s["place"].reshape(300, 3)
    assert (place[nowin] == 1).all()  # all eliminated: tied


# --- flags in the event log --------------------------------------------------------------------


def event_rows(res, count=150):
    g, s, ev = C.run_arrays(res, 0, count, events=True)
    gid = np.repeat(np.arange(count), g["n_events"])
    return g, s, ev, gid


def test_loupes_and_clue_cards_per_turn():
    """CL-T1/CL-T2/CL-V1 default: face 1 of both dice is a loupe; at most one clue card per
    turn; a loupe used for a clue counts 0 steps."""
    res = resolved(4, ("logic", "naive", "logic", "naive"))
    g, s, ev, gid = event_rows(res)
    rolls = ev[ev[:, 3] == EV["roll"]]
    assert ((rolls[:, 4] >= 1) & (rolls[:, 4] <= 6) & (rolls[:, 5] >= 1) & (rolls[:, 5] <= 6)).all()
    assert (rolls[:, 6] == (rolls[:, 4] == 1).astype(int) + (rolls[:, 5] == 1)).all()
    assert (rolls[rolls[:, 7] == 1, 6] >= 1).all()  # a clue needs a loupe
    clue_turns = defaultdict(int)
    for i in np.flatnonzero(ev[:, 3] == EV["clue"]):
        clue_turns[(gid[i], ev[i, 1])] += 1
    assert clue_turns and max(clue_turns.values()) == 1
    assert sum(clue_turns.values()) == g["clue_cards_drawn"].sum()
    # the move after a roll allows dice total minus the loupe used for a clue
    walked = 0
    for i in np.flatnonzero(ev[:, 3] == EV["roll"]):
        for j in range(i + 1, len(ev)):
            if gid[j] != gid[i] or ev[j, 1] != ev[i, 1]:
                break
            if ev[j, 3] == EV["move"] and ev[j, 7] == 0 and ev[j, 2] == ev[i, 2]:
                assert ev[j, 6] == ev[i, 4] + ev[i, 5] - ev[i, 7]
                walked += 1
                break
    assert walked > 100


def test_one_loupe_die_flag():
    """CL-V1 = 1: only the first die carries the loupe."""
    g, s, ev, gid = event_rows(resolved(4, ("logic",), loupe_dice=1))
    rolls = ev[ev[:, 3] == EV["roll"]]
    assert (rolls[:, 6] == (rolls[:, 4] == 1)).all()
    assert g["clue_cards_drawn"].sum() > 0


def test_no_loupe_and_no_clue_card_flags():
    """CL-V1 = 0 (plain dice) and CL-V3 off: no clue card is ever drawn."""
    g, s, ev, gid = event_rows(resolved(4, ("logic",), loupe_dice=0))
    assert g["clue_cards_drawn"].sum() == 0 and (ev[ev[:, 3] == EV["roll"], 6] == 0).all()
    g, s, ev, gid = event_rows(resolved(4, ("logic",), clue_cards="off"))
    rolls = ev[ev[:, 3] == EV["roll"]]
    assert g["clue_cards_drawn"].sum() == 0 and rolls[:, 6].sum() > 0


def test_one_die_flag():
    """CL-V2 = 1: one die, so moves allow 1..6 steps."""
    g, s, ev, gid = event_rows(resolved(4, ("logic",), dice=1))
    rolls = ev[ev[:, 3] == EV["roll"]]
    assert (rolls[:, 5] == 0).all() and rolls[:, 4].min() == 1 and rolls[:, 4].max() == 6
    moves = ev[(ev[:, 3] == EV["move"]) & (ev[:, 7] == 0)]
    assert moves[:, 6].max() <= 6


def test_classic_stay_flag_in_whole_games():
    """CL-V4 classic: a player suggests only after moving into the room this turn (walk,
    passage or CL-K6), or when another player's suggestion moved its pawn there (CL-T4)."""
    res = resolved(4, ("logic", "naive", "logic", "naive"), stay_and_suggest="classic")
    g, s, ev, gid = event_rows(res)
    moved_by_other = set()
    moved_self = set()
    checked = 0
    drawer = -1
    for i in range(len(ev)):
        seq, turn, seat, kind, a, b, c, d = ev[i]
        key = (gid[i], seat)
        if kind == EV["clue"]:
            drawer = (gid[i], turn, seat)
        if kind == EV["move"] and seat >= 0:
            if d == 3 or (d == 2 and drawer != (gid[i], turn, seat)):
                moved_by_other.add(key)  # a suggestion or another's clue card
            else:
                moved_self.add((gid[i], turn, seat))
        if kind == EV["suggest"]:
            ok = (gid[i], turn, seat) in moved_self or key in moved_by_other
            assert ok
            moved_by_other.discard(key)
            checked += 1
        if kind in (EV["roll"],):
            moved_by_other.discard(key)
    assert checked > 100


def test_max_turns_truncates():
    """CL-V7: a capped game is logged as truncated with no winner."""
    g, s, _ = C.run_arrays(resolved(6, ("naive",), max_turns=12), 0, 200)
    t = g["truncated"] == 1
    assert t.any() and (g["turns"][t] == 12).all() and (g["winner"][t] == -1).all()
    assert (g["turns"] <= 12).all()


# --- determinism ----------------------------------------------------------------------------


def test_same_results_for_any_threads_and_chunks():
    res = resolved(4, ("logic", "naive", "prob", "logic"), seed=42)
    numba.set_num_threads(1)
    g1, s1, e1 = C.run_arrays(res, 0, 120, events=True)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    g2, s2, e2 = C.run_arrays(res, 0, 120, events=True)
    ga, sa, ea = C.run_arrays(res, 0, 37, events=True)
    gb, sb, eb = C.run_arrays(res, 37, 83, events=True)
    for k in g1:
        assert np.array_equal(g1[k], g2[k])
        assert np.array_equal(g1[k], np.concatenate([ga[k], gb[k]]))
    for k in s1:
        assert np.array_equal(s1[k], s2[k])
        assert np.array_equal(s1[k], np.concatenate([sa[k], sb[k]]))
    assert np.array_equal(e1, e2) and np.array_equal(e1, np.concatenate([ea, eb]))
    g3, _, _ = C.run_arrays(resolved(4, ("logic", "naive", "prob", "logic"), seed=43), 0, 120)
    assert not np.array_equal(g1["turns"], g3["turns"])


# --- the adapter ---------------------------------------------------------------------------------


def test_simulate_columns_and_rotation():
    cfg = {
        "game": "cluedo",
        "players": 3,
        "games": 300,
        "seed": 4,
        "rotate": True,
        "seats": [
            {"strategy": "logic"},
            {"strategy": "naive"},
            {"strategy": "prob", "params": {"risk": 0.9}},
        ],
    }
    r = sim.simulate(cfg)
    games, seats = r.games, r.seats
    assert games.column_names[:8] == [
        "game_id",
        "config_id",
        "players",
        "rounds",
        "turns",
        "winner",
        "n_winners",
        "truncated",
    ]
    assert {"solution_suspect", "solution_weapon", "solution_room", "clue_cards_drawn"} <= set(
        games.column_names
    )
    assert seats.column_names[:8] == [
        "game_id",
        "config_id",
        "seat",
        "strategy",
        "score",
        "place",
        "win",
        "lineup",
    ]
    for col in (
        "character",
        "agent",
        "turns_taken",
        "suggestions",
        "first_room_turn",
        "accused",
        "known_cards",
    ):
        assert col in seats.column_names
    assert games.schema.field("winner").type == pa.int8()
    assert seats.schema.field("win").type == pa.float32()
    assert seats.num_rows == 900
    # rotation: game g, seat s plays lineup[(s + g) % 3]; each entry plays each seat 100 times
    lin = np.asarray(seats["lineup"]).reshape(300, 3)
    expect = (np.arange(3)[None, :] + np.arange(300)[:, None]) % 3
    assert np.array_equal(lin, expect)
    agents = set(seats["agent"].to_pylist())
    assert agents == {"logic", "naive", "prob(risk=0.9)"}
    assert set(games["solution_room"].to_pylist()) <= set(B.rooms)
    assert set(seats["character"].to_pylist()) <= set(B.suspects)


@pytest.mark.parametrize(
    "raw,key",
    [
        ({"players": 7}, "players"),
        ({"rules": {"loupe_dice": 3}}, "rules.loupe_dice"),
        ({"rules": {"loupe_dice": True}}, "rules.loupe_dice"),
        ({"rules": {"dice": 3}}, "rules.dice"),
        ({"rules": {"clue_cards": "maybe"}}, "rules.clue_cards"),
        ({"rules": {"stay_and_suggest": "sometimes"}}, "rules.stay_and_suggest"),
        ({"rules": {"first_player": "plum"}}, "rules.first_player"),
        ({"rules": {"two_player_rooms": "all"}}, "rules.two_player_rooms"),
        ({"rules": {"max_turns": 0}}, "rules.max_turns"),
        ({"rules": {"characters": ["plum", "plum", "white", "green"]}}, "rules.characters"),
        ({"rules": {"deck": 3}}, "rules.deck"),
        ({"seats": [{"strategy": "genius"}]}, "seats.0.strategy"),
        ({"seats": [{"strategy": "logic", "params": {"risk": 0.5}}]}, "seats.0.params.risk"),
        ({"seats": [{"strategy": "prob", "params": {"risk": 2}}]}, "seats.0.params.risk"),
        ({"seats": [{"strategy": "logic", "colour": "red"}]}, "seats.0.colour"),
        ({"seats": [{"strategy": "logic"}, {"strategy": "naive"}]}, "seats"),
        ({"cards": {"rope": {"copies": 2}}}, "cards"),
    ],
)
def test_bad_configs_name_the_key(raw, key):
    cfg = {"game": "cluedo", "players": 4, **raw}
    with pytest.raises(ConfigError) as err:
        sim.api.resolve(cfg)
    assert err.value.key == key
    assert "allowed" in str(err.value)


def test_resolved_config_is_complete_and_strategies_listed():
    res = sim.api.resolve({"game": "cluedo", "players": 3, "seats": [{"strategy": "prob"}]})
    assert res["rules"] == {
        "loupe_dice": 2,
        "dice": 2,
        "clue_cards": "on",
        "stay_and_suggest": "allowed",
        "first_player": "random",
        "two_player_rooms": "corners",
        "max_turns": 2000,
        "characters": "random",
    }
    assert len(res["seats"]) == 3 and res["seats"][0]["params"]["risk"] == 0.85
    names = [s["name"] for s in C.ADAPTER.strategies()]
    assert names == ["naive", "logic", "prob"]
    assert C.ADAPTER.min_players == 2 and C.ADAPTER.max_players == 6


def test_example_configs_resolve():
    from pathlib import Path

    paths = sorted(p for p in Path(C.DATA_DIR).glob("*.toml") if p.name != "study.toml")
    assert len(paths) >= 6
    for p in paths:
        res = sim.api.resolve(p)
        assert res["game"] == "cluedo" and len(res["seats"]) == res["players"]


def test_bad_board_data_is_reported_with_file_and_line(tmp_path, monkeypatch):
    import shutil

    data = tmp_path / "cluedo"
    shutil.copytree(C.DATA_DIR, data)
    doors = (data / "doors.csv").read_text().splitlines()
    doors[3] = "ballroom,8,5,9,9"  # corridor square not next to the doorway
    (data / "doors.csv").write_text("\n".join(doors) + "\n")
    monkeypatch.setattr(C, "DATA_DIR", data)
    C.load_board.cache_clear()
    try:
        with pytest.raises(ConfigError) as err:
            C.load_board()
        assert err.value.key == "configs/cluedo/doors.csv:4"
    finally:
        monkeypatch.undo()
        C.load_board.cache_clear()
    assert C.load_board().n_nodes == B.n_nodes
