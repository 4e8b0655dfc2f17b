"""The ``search`` strategy and the rollout facility it stands on.

Rollouts: from a fresh state ``play_from`` plays exactly the game ``play_one`` plays, and a
copy taken mid-night plays on exactly like the original.  Search: legal choices only
(invariant checks on, 1-4 players), rows independent of threads and chunking, decisions
that ignore every card its seat cannot see (the others' hands and corpses, the box, the
Entrance below its top card), stronger than the heuristic it starts from, and parameters
listed with their bounds.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from kernels.bloody_inn import layout as L
from kernels.bloody_inn.evening import evening
from kernels.bloody_inn.morning import morning
from kernels.bloody_inn.night import take_action
from kernels.bloody_inn.play import play_one
from kernels.bloody_inn.rollout import NO_STOP, copy_game, play_from
from kernels.bloody_inn.search_params import SEARCH_BASE, SEARCH_BOUNDS, SEARCH_PARAMS, search_index
from kernels.bloody_inn.setup import setup_game
from kernels.bloody_inn.state import move_card
from kernels.bloody_inn.strat_heuristic import STAMP
from kernels.bloody_inn.strat_search import C_CHOSEN, candidates, search_action
from kernels.bloody_inn.strategies import SEARCH
from kernels.rng import stream_key
from sim import api
from sim.errors import ConfigError
from sim.games.bloody_inn.adapter import ADAPTER
from sim.games.bloody_inn.presets import BOUNDS, REGISTRY

FAST = {
    "determinizations": 3,
    "candidates": 3,
    "method": 0,
}  # a light DMC search (ISMCTS: test_bloody_inn_ismcts.py)


def seat(name, **params):
    return {"strategy": name, "params": params} if params else {"strategy": name}


def cfg(players, seats, games, seed=3, rules=None):
    return {
        "game": "bloody_inn",
        "players": players,
        "games": games,
        "seed": seed,
        "rotate": True,
        "rules": {"check_invariants": True, **(rules or {})},
        "seats": seats,
    }


def play(*args, threads=None, **kw):
    r = api.simulate(cfg(*args, **kw), threads=threads)
    return pl.from_arrow(r.games), pl.from_arrow(r.seats)


def template(players, lineup, seed, events=False, search=False):
    resolved = api.resolve(cfg(players, [seat(n) for n in lineup], 1, seed))
    tmpl, params, _, _ = ADAPTER.build_template(resolved, events=events)
    ev = 8192 * L.EV_FIELDS if events else 0
    extra = L.SEARCH_SCRATCH if search else 0
    st = np.zeros(L.STATE_END + ev + extra, dtype=np.int64)
    st[: L.STATE_END] = tmpl
    st[L.G_EV_CAP] = 8192 if events else 0
    st[L.G_SEARCH_AT] = L.STATE_END + ev if search else 0
    return st, params.copy()


def fresh(st, seed, gid):
    st[L.G_GAME_ID] = gid
    st[L.G_RNG] = stream_key(seed, gid)
    return st


# --- rollouts -----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_rollout_from_a_fresh_state_is_the_game(players):
    """setup + play_from == play_one: every counter, card, room and logged event."""
    lineup = ["expert", "greedy", "random", "killer"][:players]
    for gid in range(6):
        a, pr = template(players, lineup, 5, events=True)
        b = a.copy()
        play_one(fresh(a, 5, gid), pr)
        setup_game(fresh(b, 5, gid))
        assert play_from(b, pr.copy(), NO_STOP)
        n = a[L.G_EV_N]
        assert n > 50 and a[L.G_ERR] == 0
        assert (a[: L.EV_BASE + n * L.EV_FIELDS] == b[: L.EV_BASE + n * L.EV_FIELDS]).all()


def _to_night(st, pr, rounds, actions):
    """Advance a fresh game with the kernel's phases to night action ``actions`` of round
    ``rounds + 1`` (as ``play_one`` orders them); None if the game ends first."""
    setup_game(st)
    np_ = st[L.G_NP]
    for r in range(rounds + 1):
        st[L.G_ROUND] += 1
        st[L.G_PHASE] = 0
        if not evening(st, pr):
            return None
        st[L.G_PHASE] = 1
        for k in range(2 * np_ if r < rounds else actions):
            take_action(st, pr, (st[L.G_FIRST] + k % np_) % np_)
        if r < rounds:
            st[L.G_PHASE] = 2
            morning(st, pr)
            if st[L.G_OVER] or st[L.G_LAST_ROUND]:
                return None
    return st


@pytest.mark.parametrize("players", [1, 3])
def test_a_copy_taken_mid_night_plays_on_like_the_original(players):
    lineup = ["expert", "banker", "greedy"][:players]
    checked = 0
    for gid in range(8):
        full, pr = template(players, lineup, 9)
        play_one(fresh(full, 9, gid), pr)
        st, _ = template(players, lineup, 9)
        if _to_night(fresh(st, 9, gid), pr, 2 + gid % 5, gid % (2 * players)) is None:
            continue
        cp, _ = template(players, lineup, 9)  # the tables, then the game copied in
        cp[L.S_A : L.STATE_END] = -7  # scratch garbage must not matter
        copy_game(cp, st)
        play_from(st, pr, NO_STOP)
        play_from(cp, pr, NO_STOP)
        for f in (L.P_SCORE, L.P_CASH, L.P_CHEQUES, L.P_WINNER, L.P_KILLS, L.P_BUILDS, L.P_SOLO_LOST):
            assert (st[f : f + players] == cp[f : f + players]).all()
            assert (st[f : f + players] == full[f : f + players]).all()  # = the game itself
        assert st[L.G_ROUND] == cp[L.G_ROUND] == full[L.G_ROUND]
        checked += 1
    assert checked >= 5


def test_a_stopped_rollout_is_scored_where_it_stops():
    st, pr = template(2, ["expert"], 4)
    setup_game(fresh(st, 4, 0))
    assert not play_from(st, pr, 3)  # stopped, not ended
    assert st[L.G_ROUND] == 3 and st[L.G_PHASE] == 3 and st[L.P_SCORE] > 0


# --- search: legality, reproducibility -------------------------------------------------------


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_search_makes_only_legal_choices(players):
    others = ["expert", "random", "greedy", "killer"]
    seats = [seat("search", **FAST)] + [seat(n) for n in others[: players - 1]]
    g, s = play(players, seats, {1: 120, 2: 80, 3: 60, 4: 40}[players], seed=30 + players)
    assert (g["invariant_error"] == 0).all() and (g["truncated"] == 0).all()
    assert (s.filter(pl.col("strategy") == "search")["score"] > 0).any()


@pytest.mark.parametrize(
    "rules",
    [
        {"unlimited_wealth": True, "deck_copies": 2, "deck_size": 110},
        {"seasons": 1, "length": "short"},
        {"voluntary_dismissal": False},
    ],
    ids=lambda r: ",".join(r),
)
def test_search_legal_under_ruleset_flags(rules):
    g, _ = play(2, [seat("search", **FAST), seat("builder")], 40, seed=8, rules=rules)
    assert (g["invariant_error"] == 0).all()


def test_search_rows_do_not_depend_on_threads_or_chunks():
    c = cfg(3, [seat("search", **FAST), seat("expert"), seat("banker")], 24, seed=12)
    a = api.simulate(c, threads=1)
    b = api.simulate(c, threads=2)
    resolved = api.resolve(c)
    parts = [ADAPTER.simulate_chunk(resolved, s0, n) for s0, n in ((0, 7), (7, 17))]
    for col in ("score", "win", "kills", "builds", "cash"):
        x = a.seats.column(col).to_numpy()
        assert (x == b.seats.column(col).to_numpy()).all()
        assert (x == np.concatenate([p.seats.column(col).to_numpy() for p in parts])).all()


# --- search: honesty ----------------------------------------------------------------------


def _move(t, c, loc, slot=0):
    move_card(t, np.int64(c), np.int64(loc), np.int64(slot))


def _hide_and_shuffle(st, p, rng, entrance_only=False):
    """A twin of ``st`` that only ``p``'s hidden cards tell apart: the travellers in the
    others' hands and corpses swapped with box cards (card lists kept exact), and the
    Entrance below its top card in another order."""
    t = st.copy()
    np_ = t[L.G_NP]
    if not entrance_only:
        box = [c for c in range(t[L.G_NTRAV]) if t[L.C_LOC + c] == L.LOC.box]
        rng.shuffle(box)
        for c in range(t[L.G_NTRAV]):
            loc = t[L.C_LOC + c]
            hidden = any(loc in (L.LOC.hand + q, L.LOC.corpse + q) for q in range(np_) if q != p)
            if hidden and box:
                b = box.pop()
                _move(t, c, L.LOC.box)
                _move(t, b, loc)
    pos, end = t[L.G_ENT_POS], t[L.G_ENT_N]
    if end - pos > 2:
        rest = t[L.ENT + pos + 1 : L.ENT + end].copy()
        rng.shuffle(rest)
        t[L.ENT + pos + 1 : L.ENT + end] = rest
        for i in range(pos + 1, end):
            t[L.C_SLOT + t[L.ENT + i]] = i
    return t


def _decision(st):
    nt = st[L.G_STASH_NT]
    return (
        st[L.G_STASH_ACTION],
        nt,
        st[L.G_STASH_PEAS],
        st[L.G_STASH_LAUNDER],
        tuple(st[L.D_T : L.D_T + nt]),
        tuple(st[L.D_DEST : L.D_DEST + nt]),
    )


@pytest.mark.parametrize("entrance_only", [False, True], ids=["hands-corpses-box", "entrance-order"])
def test_search_decisions_ignore_hidden_information(entrance_only):
    """The same decisions on a state and on twins that differ in hidden cards only; and
    the search really chose among several candidates (else the test proves nothing)."""
    rng = np.random.default_rng(1)
    players = 3
    lineup = ["search", "expert", "killer"]
    checked = searched = differs = 0
    for gid in range(14):
        st, pr = template(players, lineup, 21, search=True)
        fresh(st, 21, gid)
        st[L.G_ROTATE] = 0
        if _to_night(st, pr, 1 + gid % 6, 0) is None:
            continue
        p = st[L.G_FIRST]  # the seat about to act
        st[L.P_STRAT + p] = SEARCH
        st[L.P_LINEUP + p] = 0  # the search's parameter block
        pr[search_index("method")] = 0  # DMC here; ISMCTS: test_bloody_inn_ismcts.py
        twins = [_hide_and_shuffle(st, p, rng, entrance_only) for _ in range(2)]
        differs += any(
            (t[L.C_LOC : L.C_LOC + 300] != st[L.C_LOC : L.C_LOC + 300]).any()
            or (t[L.ENT : L.ENT + 300] != st[L.ENT : L.ENT + 300]).any()
            for t in twins
        )
        out = []
        for s_ in [st.copy(), *twins]:
            s_[STAMP] = -1
            search_action(s_, pr.copy(), p)
            out.append(_decision(s_))
        assert out[0] == out[1] == out[2], (gid, out)
        searched += _n_candidates(st, pr, p) > 1
        checked += 1
    assert checked >= 8 and searched >= 4 and differs >= 6


def _n_candidates(st, pr, p):
    return candidates(st.copy(), pr.copy(), p, 4, 30.0)


# --- search: strength and parameters -----------------------------------------------------------


def test_search_beats_its_heuristic_in_solo():
    """Same deals: the solo score (a lost game 0) of search above expert's, 95% intervals."""

    def solo(name, **params):
        _, s = play(1, [seat(name, **params)], 300, seed=77)
        return (s["score"] * (1 - s["solo_lost"])).to_numpy().astype(float)

    a = solo("search", determinizations=8)
    b = solo("expert")
    d = a - b
    half = 1.96 * d.std(ddof=1) / math.sqrt(len(d))
    assert d.mean() - half > 0, (a.mean(), b.mean())


def test_search_parameters_are_listed_with_bounds():
    sid, spec, desc = REGISTRY["search"]
    names = [n for n, _, _ in spec]
    assert sid == SEARCH and desc and len(spec) <= L.MAXPARAM
    assert len(set(names)) == len(names)  # one name, one slot: a seat's params are a dict
    assert names[SEARCH_BASE:] == [n for n, _, _ in SEARCH_PARAMS]
    assert set(BOUNDS["search"]) == set(names)
    for n, v, _ in SEARCH_PARAMS:
        lo, hi = SEARCH_BOUNDS[n]
        assert lo <= v <= hi, n
    rows = {r["name"]: r for r in ADAPTER.strategies()}
    assert set(rows["search"]["params"]) >= {
        "candidates",
        "determinizations",
        "rollout_rounds",
        "budget",
        "horizon",
    }


@pytest.mark.parametrize(
    "param, value, allowed",
    [
        ("placement", 5, "0 or 1"),
        ("method", 0.5, "0 or 1"),
        ("budget", 100_000, "a whole number from 1 to 4096"),
        ("candidates", 2.5, "a whole number from 1 to 12"),
        ("rollout_policy", 3, "a whole number from 0 to 2"),
        ("exploration", -1, "a number from 0 to 10"),
    ],
)
def test_a_search_parameter_outside_its_limits_is_refused(param, value, allowed):
    """Counts and switches of the search are whole numbers within ``SEARCH_BOUNDS`` (the
    kernels size their scratch by them); the message names the key, the value, the limits."""
    cfg = {"game": "bloody_inn", "players": 2, "seats": [{"strategy": "search", "params": {param: value}}]}
    with pytest.raises(ConfigError) as err:
        api.resolve(cfg)
    assert err.value.key == f"seats.0.params.{param}" and err.value.value == value
    assert err.value.allowed == allowed
    ok = {param: SEARCH_BOUNDS[param][1]}  # the upper limit itself is allowed
    assert (
        api.resolve({**cfg, "seats": [{"strategy": "search", "params": ok}]})["seats"][0]["params"][param]
        == ok[param]
    )


def test_the_heuristic_weights_have_no_limits_but_the_config_range():
    """Tuning ranges are not limits: a negative weight is a real choice."""
    cfg = {
        "game": "bloody_inn",
        "players": 2,
        "seats": [{"strategy": "expert", "params": {"card_value": -50.0}}],
    }
    assert api.resolve(cfg)["seats"][0]["params"]["card_value"] == -50.0


def test_tune_rounds_the_whole_parameters():
    assert ADAPTER.whole_params("search") >= {"placement", "method", "candidates", "budget"}
    assert "exploration" not in ADAPTER.whole_params("search")
    assert ADAPTER.whole_params("expert") == set()


def test_budget_and_candidates_bound_the_work():
    """One candidate: the heuristic's choice, nothing played (C_CHOSEN 0)."""
    st, pr = template(2, ["search", "expert"], 2, search=True)
    fresh(st, 2, 0)
    st[L.G_ROTATE] = 0
    assert _to_night(st, pr, 3, 0) is not None
    p = st[L.G_FIRST]
    st[L.P_STRAT + p] = SEARCH
    st[L.P_LINEUP + p] = 0
    pr[SEARCH_BASE] = 1
    search_action(st, pr, p)
    assert st[C_CHOSEN] == 0


def test_measurement_configs_and_the_exploitability_record_agree():
    """The self-play configs docs/strategies.md cites are valid runs of `search` at every seat,
    and the `search` exploitability record is the tuner's own validation (share - 1/2)."""
    from pathlib import Path

    import tomllib

    from analysis.questions.power import exploitability_file, exploitability_records

    root = Path(__file__).resolve().parents[1] / "configs" / "bloody_inn" / "strategies"
    for n, games in ((3, 1200), (4, 800)):
        r = api.resolve(root / f"search-self-{n}p.toml")
        assert (r["players"], r["games"], r["seed"]) == (n, games, 2027)
        assert {s["strategy"] for s in r["seats"]} == {"search"}
        assert r["rules"]["length"] == "long"
    tune = tomllib.loads((root / "best-response-search-2p.toml").read_text())["tune"]
    assert tune["against"] == ["search"] and tune["players"] == 2
    (rec,) = [
        x for x in exploitability_records(exploitability_file("bloody_inn")) if x["strategy"] == "search"
    ]
    v = tune["validation"]
    assert rec["games"] == v["games"]
    for key, got in (("value", rec["gain"]), ("lo", rec["gain_lo"]), ("hi", rec["gain_hi"])):
        assert got == pytest.approx(v[key] - 0.5, abs=1e-6)
