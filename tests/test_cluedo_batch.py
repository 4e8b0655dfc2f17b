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
from sim.games.cluedo import adapter as C

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
    (4, ("logic", "naive", "logic", "naive"), {"move_steps": "up_to", "roll_every_turn": "yes"}),
    (4, ("prob", "logic", "naive", "logic"), {"loupe_dice": 1}),
    (5, ("logic", "naive", "logic", "naive", "logic"), {"first_player": "classic", "roll_every_turn": "yes"}),
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


def _walks(ev, gid):
    """(from, to, steps allowed, occupied squares) of every walk (move how 0), occupancy
    rebuilt from the log: pawns start on their start squares and every move is logged."""
    out = []
    occ = None
    game = -1
    for i in range(len(ev)):
        if gid[i] != game:
            game = gid[i]
            occ = {v: 1 for v in B.start}
        _, turn, seat, kind, a, b, c, d = (int(x) for x in ev[i])
        if kind == EV["move"]:
            if d == 0:
                out.append((a, b, c, {v for v, k in occ.items() if k and v >= 9} - {a}))
            occ[a] -= 1
            occ[b] = occ.get(b, 0) + 1
    return out


def _saw(adj, start, total, blocked):
    """Squares a walk of exactly ``total`` steps reaches (no square twice, no pawn, no room),
    and the longest walk; independent of the kernel."""
    ends = {}
    best = 0
    stack = [(start, 0, frozenset([start]))]
    while stack:
        u, d, seen = stack.pop()
        if d:
            best = max(best, d)
            ends.setdefault(d, set()).add(u)
        if d == total:
            continue
        for v in adj[u]:
            v = int(v)
            if v < 0:
                break
            if v >= 9 and v not in seen and v not in blocked:
                stack.append((v, d + 1, seen | {v}))
    return ends.get(best, set()), best


def _bfs(adj, start, blocked):
    dist = {start: 0}
    queue = [start]
    for u in queue:
        if u < 9 and u != start:
            continue
        for v in adj[u]:
            v = int(v)
            if v < 0:
                break
            if v not in dist and v not in blocked:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


@pytest.mark.parametrize("steps", ["exact", "up_to"])
def test_every_walk_is_legal_under_move_steps(steps):
    """CL-T1 "move exactly the total" (default) and the flag ``move_steps = "up_to"`` over
    whole games, replayed from the log with an independent walk enumeration: a walk entering a room takes at most the roll; one ending on a square takes
    exactly the roll (exact: or the longest walk left to a boxed-in pawn) or at most the roll
    (up_to); never through a pawn."""
    res = resolved(4, ("logic", "naive", "logic", "naive"), seed=5, move_steps=steps)
    g, s, ev, gid = event_rows(res, 60)
    walks = _walks(ev, gid)
    assert len(walks) > 300
    short = 0
    for a, b, c, blocked in walks:
        dist = _bfs(B.adj, a, blocked)
        assert b in dist and dist[b] <= c
        if b >= 9:
            short += dist[b] < c
            if steps == "exact" and dist[b] < c:
                ends, best = _saw(B.adj, a, c, blocked)
                assert b in ends
    if steps == "up_to":
        assert short > 0  # stopping short happens, and is allowed
    if steps == "exact":
        assert short > 0  # detours to use the whole roll happen
        # a walking roll without a walk: only a pawn with nowhere to go may stay put
        stuck = 0
        for a, _steps, blocked in _unmoved_rolls(ev, gid, s["character"].reshape(-1, 4)):
            assert set(_bfs(B.adj, a, blocked)) == {a}
            stuck += 1
        assert stuck < len(walks) // 10


def _unmoved_rolls(ev, gid, chars):
    """(node, steps, occupied squares) of each walking roll after which the player's pawn did
    not move at all that turn (no walk, no clue-card move)."""
    out = []
    occ = None
    pos = None
    game = -1
    pending = None
    for i in range(len(ev) + 1):
        if i == len(ev) or gid[i] != game or (pending and ev[i, 1] != pending[0]):
            if pending:
                out.append(pending[1:4])
            pending = None
        if i == len(ev):
            break
        if gid[i] != game:
            game = gid[i]
            occ = {v: 1 for v in B.start}
            pos = {seat: B.start[int(ch)] for seat, ch in enumerate(chars[game])}
        _, turn, seat, kind, a, b, c, d = (int(x) for x in ev[i])
        if kind == EV["roll"] and d == 0:
            here = pos[seat]
            pending = (turn, here, a + b, {v for v, k in occ.items() if k and v >= 9} - {here}, seat)
        if kind == EV["move"]:
            if pending and seat == pending[4] and d in (0, 2):
                pending = None
            occ[a] -= 1
            occ[b] = occ.get(b, 0) + 1
            if seat >= 0:
                pos[seat] = b
    return out


def test_roll_every_turn_rolls_on_every_turn():
    """roll_every_turn = "yes": every turn that is not an accusation at its start begins with
    one roll, stays and passages included; "no": a stay or a passage rolls no dice."""
    setup_kinds = (EV["deal"], EV["deal_start"], EV["pile"], EV["weapon"], EV["envelope"])
    for flag in ("yes", "no"):
        res = resolved(4, ("logic",), seed=6, roll_every_turn=flag)
        g, s, ev, gid = event_rows(res, 80)
        turns = defaultdict(list)
        for i in range(len(ev)):
            if ev[i, 3] not in setup_kinds:
                turns[(gid[i], ev[i, 1])].append((int(ev[i, 3]), int(ev[i, 7])))
        rolled_stays = 0
        plain_stays = 0
        for kinds in turns.values():
            first = kinds[0][0]
            assert [k for k, _ in kinds].count(EV["roll"]) <= 1
            walked = (EV["move"], 0) in kinds or EV["clue"] in [k for k, _ in kinds]
            if first == EV["roll"] and not walked and EV["suggest"] in [k for k, _ in kinds]:
                rolled_stays += 1  # rolled, then stayed or took a passage, and suggested
            if first in (EV["suggest"], EV["move"]):
                plain_stays += 1  # stayed or took a passage without rolling
            if flag == "yes":
                assert first in (EV["roll"], EV["accuse"])
        if flag == "yes":
            assert rolled_stays > 20 and plain_stays == 0
        else:
            assert plain_stays > 20 and rolled_stays == 0


def test_the_new_passage_card_is_drawn_at_most_once_a_game():
    """CL-K7 over whole games: card 18 leaves the pile when placed; every draw is the top of
    the pile logged at setup, which cycles (CL-T2)."""
    res = resolved(6, ("naive",), seed=8)
    g, s, ev, gid = event_rows(res, 150)
    per_game = defaultdict(list)
    pile = defaultdict(list)
    for i in range(len(ev)):
        if ev[i, 3] == EV["clue"]:
            per_game[gid[i]].append(int(ev[i, 4]))
        if ev[i, 3] == EV["pile"]:
            pile[gid[i]].append(int(ev[i, 4]))
    passage = 1 + [e for e, _ in B.clue].index(L.EFFECT.NEW_PASSAGE)
    assert sum(cards.count(passage) for cards in per_game.values()) > 0
    for game, cards in per_game.items():
        assert cards.count(passage) <= 1
        order = list(pile[game])
        for card in cards:
            assert card == order[0]
            order = order[1:] + ([] if card == passage else [card])


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


def test_blocks_of_a_chunk_do_not_change_the_games(monkeypatch):
    """A block per thread, five per thread or one per game, taken by the threads as they
    finish: the same games and events."""
    res = resolved(4, ("logic", "naive", "prob", "logic"), seed=42)
    got = []
    for per_thread, block_games in ((1, 10_000), (5, 1), (64, 1)):
        monkeypatch.setattr(C, "BLOCKS_PER_THREAD", per_thread)
        monkeypatch.setattr(C, "BLOCK_GAMES", block_games)
        got.append(C.run_arrays(res, 0, 120, events=True))
    for g, s, e in got[1:]:
        assert all(np.array_equal(got[0][0][k], g[k]) for k in g)
        assert all(np.array_equal(got[0][1][k], s[k]) for k in s)
        assert np.array_equal(got[0][2], e)


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
        ({"rules": {"roll_every_turn": "sometimes"}}, "rules.roll_every_turn"),
        ({"rules": {"move_steps": "at_least"}}, "rules.move_steps"),
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
        "roll_every_turn": "no",
        "move_steps": "exact",  # CL-T1: move exactly the total; "up_to" is the flag
        "die_faces": 6,  # CL-C2
        "clue_pile": 29,  # CL-C2
    }
    assert len(res["seats"]) == 3 and res["seats"][0]["params"]["risk"] == 0.85
    names = [s["name"] for s in C.ADAPTER.strategies()]
    assert names == ["naive", "logic", "prob", "search"]
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
