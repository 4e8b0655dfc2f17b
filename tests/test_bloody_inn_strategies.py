"""The Bloody Inn strategy library: legal choices only (the kernel's invariant checks on,
every decision of every strategy under every ruleset flag), parameters that move behaviour
the expected way, archetypes that really differ, decisions that ignore hidden information,
and the checked-in expert parameters."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import tomllib

from kernels.bloody_inn import layout as L
from kernels.bloody_inn import strat_heuristic as heur
from kernels.bloody_inn.strategies import HEURISTIC, decide_action
from sim import api
from sim.games.bloody_inn.presets import BOUNDS, REGISTRY

ROOT = Path(__file__).resolve().parent.parent
# search has its own, lighter batches (tests/test_bloody_inn_search.py): it plays a few
# hundred games on at every decision
ALL = [n for n in REGISTRY if n != "search"]
ARCHETYPES = ("killer", "builder", "briber", "banker")


def play(players, seats, games, seed=11, rules=None):
    cfg = {
        "game": "bloody_inn",
        "players": players,
        "games": games,
        "seed": seed,
        "rotate": True,
        "rules": {"check_invariants": True, **(rules or {})},
        "seats": seats,
    }
    r = api.simulate(cfg)
    return pl.from_arrow(r.games), pl.from_arrow(r.seats)


def seat(name, **params):
    return {"strategy": name, "params": params} if params else {"strategy": name}


def mean_ci(x):
    x = np.asarray(x, dtype=float)
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
    return x.mean() - half, x.mean() + half


# --- registry -------------------------------------------------------------------------


def test_registry_has_the_library_and_presets_stay_in_range():
    for name in ("random", "greedy", "heuristic", "expert", *ARCHETYPES):
        assert name in REGISTRY
    names = [n for n, _, _ in heur.PARAMS]
    assert len(names) <= L.MAXPARAM and len(set(names)) == len(names)
    assert set(heur.BOUNDS) == set(names)
    for name, (sid, spec, desc) in REGISTRY.items():
        assert len(spec) <= L.MAXPARAM and desc
        if sid == HEURISTIC:
            assert [n for n, _, _ in spec] == names and name in BOUNDS
            for n, v, _ in spec:
                lo, hi = heur.BOUNDS[n]
                assert lo <= v <= hi, (name, n, v)
    # the archetypes are different points of the parameter space
    vecs = {a: tuple(v for _, v, _ in REGISTRY[a][1]) for a in (*ARCHETYPES, "heuristic")}
    assert len(set(vecs.values())) == len(vecs)


def test_expert_parameters_are_the_checked_in_file():
    data = tomllib.loads((ROOT / "configs/bloody_inn/strategies/expert.toml").read_text())
    assert data["strategy"] == "heuristic"
    spec = {n: v for n, v, _ in REGISTRY["expert"][1]}
    assert spec == {n: float(data["params"].get(n, d)) for n, d, _ in heur.PARAMS}
    assert set(data["params"]) <= set(spec)
    assert "tune" in data and data["tune"].get("generation"), "how the values were found"
    # search decides what it does not search as expert does, from the same file
    search = {n: v for n, v, _ in REGISTRY["search"][1]}
    assert all(search[n] == v for n, v in spec.items())


def _preset_dir(tmp_path, monkeypatch, text):
    from sim.games.bloody_inn import presets

    folder = tmp_path.joinpath(*presets.FOLDER)
    folder.mkdir(parents=True)
    (folder / "banker.toml").write_text(text)
    monkeypatch.setattr(presets, "data_dir", lambda: tmp_path)
    return presets


def test_a_preset_is_read_from_its_file(tmp_path, monkeypatch):
    presets = _preset_dir(
        tmp_path,
        monkeypatch,
        'strategy = "heuristic"\ndescription = "d"\n[params]\nkill_bias = 3\nhorizon = 2.5\n',
    )
    params, desc = presets.load_preset("banker", heur.PARAMS)
    assert params == {"kill_bias": 3.0, "horizon": 2.5} and desc == "d"


@pytest.mark.parametrize(
    "text, key",
    [
        ('strategy = "greedy"\ndescription = "d"\n[params]\n', "strategy = 'greedy'"),
        ('strategy = "heuristic"\n[params]\n', "description is missing"),
        ('strategy = "heuristic"\ndescription = "d"\n', "params is missing"),
        ('strategy = "heuristic"\ndescription = "d"\n[params]\ndepth = 2\n', "params.depth = 2"),
        ('strategy = "heuristic"\ndescription = "d"\n[params]\nhorizon = "x"\n', "params.horizon = 'x'"),
    ],
)
def test_a_bad_preset_file_is_named_with_its_key(tmp_path, monkeypatch, text, key):
    from sim.errors import ConfigError

    presets = _preset_dir(tmp_path, monkeypatch, text)
    with pytest.raises(ConfigError) as err:
        presets.load_preset("banker", heur.PARAMS)
    line = str(err.value)
    assert "banker.toml" in line and key in line, line


# --- legality -------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_strategy_makes_only_legal_choices(players):
    """Each strategy at every seat position against every other, invariant checks on."""
    games = {1: 5000, 2: 8000, 3: 8000, 4: 8000}[players]
    played = set()  # (strategy, seat) pairs that really played
    for i in range(0, len(ALL), max(1, players)):
        lineup = [ALL[(i + j) % len(ALL)] for j in range(players)]
        g, s = play(players, [seat(n) for n in lineup], games, seed=100 + i)
        assert (g["invariant_error"] == 0).all(), g.filter(pl.col("invariant_error") != 0).head()
        assert (g["truncated"] == 0).all()
        played |= set(s.select("strategy", "seat").unique().iter_rows())
    # every strategy of the registry was checked, and (the lineup rotates) at every seat
    assert played == {(name, p) for name in ALL for p in range(players)}


RULE_VARIANTS = [
    {"season_change": "on_next_draw", "room_service_per_room": "any"},  # BI-V11, BI-V12
    {"unique_annexes": False},
    {"voluntary_dismissal": False},
    {"unlimited_wealth": True},
    {"wealth_cap": 20},
    {"deck_copies": 2, "deck_size": 110},
    {"seasons": 1, "length": "short"},
    {"final_round": "strict", "white_keys": "players"},
    {"tiebreak": "buried_under_own_annexes", "max_rounds": 12},
    {"end_bonus_capped": False, "unlimited_wealth": True, "wealth_cap": 30},
]


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=lambda r: ",".join(r))
def test_legal_choices_under_every_ruleset_flag(rules):
    lineup = ["expert", "killer", "builder", "briber"]
    g, _ = play(4, [seat(n) for n in lineup], 800, seed=5, rules=rules)
    assert (g["invariant_error"] == 0).all()
    g, _ = play(2, [seat("banker"), seat("heuristic")], 800, seed=6, rules=rules)
    assert (g["invariant_error"] == 0).all()


def test_extreme_parameters_stay_legal():
    """The tuner may propose any point of the ranges: the corners must be legal too."""
    lo = {n: b[0] for n, b in heur.BOUNDS.items()}
    hi = {n: b[1] for n, b in heur.BOUNDS.items()}
    g, _ = play(3, [seat("heuristic", **lo), seat("heuristic", **hi), seat("random")], 1500)
    assert (g["invariant_error"] == 0).all()
    g, s = play(1, [seat("heuristic", **hi)], 1000)
    assert (g["invariant_error"] == 0).all()


# --- parameters move behaviour the expected way ------------------------------------------


def _stat(players, params, col, games=3000, opponents=("killer", "builder")):
    seats = [seat("heuristic", **params)] + [seat(o) for o in opponents[: players - 1]]
    _, s = play(players, seats, games, seed=21)
    return s.filter(pl.col("lineup") == 0)[col].to_numpy()


@pytest.mark.parametrize(
    "col,low,high",
    [
        ("fines", {"police_risk": 3.0}, {"police_risk": 0.0}),
        ("kills", {"kill_bias": -6.0}, {"kill_bias": 6.0}),
        ("builds", {"build_bias": -6.0}, {"build_bias": 6.0}),
        ("bribes", {"bribe_bias": -6.0}, {"bribe_bias": 6.0}),
        ("cheques", {"launder_above": 40.0}, {"launder_above": 5.0}),
    ],
)
def test_parameter_moves_behaviour(col, low, high):
    """e.g. a higher police-risk weight lowers the fines paid (3 players, same deals)."""
    a = _stat(3, low, col)
    b = _stat(3, high, col)
    assert mean_ci(a)[1] < mean_ci(b)[0], (col, a.mean(), b.mean())


def test_archetypes_really_differ():
    """Mixed 4-player tables: each archetype leads the statistic its plan is about."""
    _, s = play(4, [seat(n) for n in ARCHETYPES], 4000, seed=9)
    s = s.with_columns(travellers_bribed=pl.col("bribes") - pl.col("peasants_bribed"))
    by = s.group_by("strategy").agg(pl.col("kills", "builds", "travellers_bribed", "cheques").mean())
    m = {r["strategy"]: r for r in by.iter_rows(named=True)}
    assert max(m, key=lambda k: m[k]["kills"]) == "killer"
    assert max(m, key=lambda k: m[k]["builds"]) == "builder"
    assert max(m, key=lambda k: m[k]["travellers_bribed"]) == "briber"
    assert max(m, key=lambda k: m[k]["cheques"]) == "banker"


# --- strength ---------------------------------------------------------------------------


def test_expert_beats_random_heads_up():
    _, s = play(2, [seat("expert"), seat("random")], 2000, seed=3)
    w = s.filter(pl.col("strategy") == "expert")["win"].mean()
    assert w > 0.9


# --- information ------------------------------------------------------------------------


def _midgame_state(players, lineup, seed, rounds):
    """A real game advanced by the kernel's own phases to the night of ``rounds``."""
    from kernels.bloody_inn.evening import evening
    from kernels.bloody_inn.morning import morning
    from kernels.bloody_inn.night import take_action
    from kernels.bloody_inn.setup import setup_game
    from kernels.rng import stream_key
    from sim.games.bloody_inn.adapter import ADAPTER

    resolved = api.resolve(
        {
            "game": "bloody_inn",
            "players": players,
            "games": 1,
            "seed": seed,
            "seats": [seat(n) for n in lineup],
        }
    )
    tmpl, params, _, _ = ADAPTER.build_template(resolved)
    st = tmpl.copy()
    st[L.G_GAME_ID] = 0
    st[L.G_RNG] = stream_key(seed, 0)
    st[L.G_ROTATE] = 0
    setup_game(st)
    for _ in range(rounds):
        st[L.G_ROUND] += 1
        if not evening(st, params):
            return None, None
        for _ in range(2):
            for i in range(players):
                take_action(st, params, (st[L.G_FIRST] + i) % players)
        morning(st, params)
        if st[L.G_OVER]:
            return None, None
    st[L.G_ROUND] += 1
    if not evening(st, params):
        return None, None
    return st, params


def _hide_and_shuffle(st, p, rng):
    """Change everything player ``p`` cannot see: which cards the others hold in hand or
    as corpses (swapped with unseen box cards) and the Entrance below its top card."""
    t = st.copy()
    n = t[L.G_NCARDS]
    np_ = t[L.G_NP]
    box = [c for c in range(t[L.G_NTRAV]) if t[L.C_LOC + c] == L.LOC.box]
    rng.shuffle(box)
    for c in range(t[L.G_NTRAV]):
        loc = t[L.C_LOC + c]
        hidden = any(loc in (L.LOC.hand + q, L.LOC.corpse + q) for q in range(np_) if q != p)
        if hidden and box:
            b = box.pop()
            t[L.C_LOC + b], t[L.C_LOC + c] = loc, L.LOC.box
            t[L.C_SLOT + b], t[L.C_SLOT + c] = t[L.C_SLOT + c], 0
    pos, end = t[L.G_ENT_POS], t[L.G_ENT_N]
    if end - pos > 2:
        rest = t[L.ENT + pos + 1 : L.ENT + end].copy()
        rng.shuffle(rest)
        t[L.ENT + pos + 1 : L.ENT + end] = rest
        for i in range(pos + 1, end):
            t[L.C_SLOT + t[L.ENT + i]] = i
    assert n == t[L.G_NCARDS]
    return t


@pytest.mark.parametrize("name", ["expert", "killer", "builder", "briber", "banker", "greedy"])
def test_decisions_ignore_hidden_information(name):
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(12):
        st, pr = _midgame_state(3, [name, "random", "heuristic"], seed, 2 + seed % 6)
        if st is None:
            continue
        # take the action of the seat the strategy plays, on a state and on its twin
        p = 0
        a, b = st.copy(), _hide_and_shuffle(st, p, rng)
        for s_ in (a, b):
            s_[L.D_NT] = 0
            s_[L.D_PEASANTS] = 0
            s_[L.D_LAUNDER] = 0
            s_[L.D_DEST : L.D_DEST + 8] = 0
        decide_action(a, pr, p)
        decide_action(b, pr, p)
        # (greedy's random tie-breaks draw from the same stream state in both twins)
        nt = a[L.D_NT]
        assert a[L.D_ACTION] == b[L.D_ACTION] and nt == b[L.D_NT]
        assert (a[L.D_T : L.D_T + nt] == b[L.D_T : L.D_T + nt]).all()
        assert (a[L.D_DEST : L.D_DEST + nt] == b[L.D_DEST : L.D_DEST + nt]).all()
        assert a[L.D_LAUNDER] == b[L.D_LAUNDER] and a[L.D_PEASANTS] == b[L.D_PEASANTS]
        checked += 1
    assert checked >= 8
