"""The game contract, checked on every registered game (after pgx's ``api_test``).

Whatever a game's rules, its adapter must: import (an import error fails here, it is never a
skip); keep the :class:`sim.registry.GameAdapter` protocol; play every player count it
claims; end every game or mark it truncated; give win shares that sum to 1 with place 1 going
with a win; give the same rows for the same seed whatever the threads and the chunking; name
the key in every config error; list strategies in the documented schema, every parameter
with its help; write contiguous events in its own vocabulary that its referee (when it has
one) replays without a divergence; and describe its columns in the dataset's facts.

Game counts are small: this is a contract test, the rules tests live per game.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pyarrow.compute as pc
import pytest

from analysis.metrics import question_names
from sim import api, dataset, registry, runner
from sim.errors import ConfigError, SimError

GAMES = registry.game_names()
N = 12  # games per player count


def _cfg(game, players, **kw):
    return {"game": game, "players": players, "games": N, "seed": 11, **kw}


def _counts(game):
    a = registry.get_adapter(game)
    return list(range(a.min_players, a.max_players + 1))


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    return request.param


@pytest.fixture(scope="module")
def played(game):
    """One small result with events per player count."""
    return {p: api.simulate(_cfg(game, p), threads=1, events=True) for p in _counts(game)}


def test_both_games_are_registered():
    assert {"bloody_inn", "cluedo"} <= set(GAMES)


def test_a_game_that_does_not_import_is_listed_and_fails_loudly(monkeypatch):
    monkeypatch.setitem(registry._ADAPTERS, "broken", "sim.games.no_such_module")
    assert "broken" in registry.game_names()
    with pytest.raises(ImportError, match="'broken' is registered but its adapter does not import"):
        registry.get_adapter("broken")
    # on the command line: one line naming the game, exit status 2, no traceback
    from typer.testing import CliRunner

    from sim.cli import app

    res = CliRunner().invoke(app, ["games"])
    assert res.exit_code == 2 and "'broken'" in res.stderr and "Traceback" not in res.stderr
    with pytest.raises(SimError, match="'chess' is not registered"):
        registry.get_adapter("chess")


def test_the_adapter_keeps_the_protocol(game):
    a = registry.get_adapter(game)
    assert isinstance(a, registry.GameAdapter)
    assert a.name == game and isinstance(a.title, str) and a.title
    assert 1 <= a.min_players <= a.max_players
    assert all(q in question_names() for q in registry.analyses(game))
    ref = a.referee()
    assert ref is None or (
        callable(ref.replay_tables) and callable(ref.rules_of) and ref.ReplayReport().games == 0
    )


def test_every_player_count_plays_and_every_game_ends(game, played):
    for players, r in played.items():
        g, s = r.games, r.seats
        assert g.num_rows == N and s.num_rows == N * players, players
        assert g["game_id"].to_pylist() == list(range(N))
        assert set(g["players"].to_pylist()) == {players}
        assert (np.asarray(g["rounds"]) >= 1).all() and (np.asarray(g["turns"]) >= 1).all()
        truncated = np.asarray(g["truncated"])
        assert set(np.unique(truncated)) <= {0, 1}
        # a game that was not cut short ended with a result: every seat placed, and (with
        # opponents) the winners are exactly the seats in first place
        place = np.asarray(s["place"]).reshape(N, players)
        assert ((place >= 1) & (place <= players)).all(), players
        done = truncated == 0
        if players >= 2:
            firsts = (place == 1).sum(axis=1)
            assert (firsts[done] == np.asarray(g["n_winners"])[done]).all(), players


def test_win_shares_sum_to_one_and_place_one_goes_with_a_win(game, played):
    for players, r in played.items():
        win = np.asarray(r.seats["win"], dtype=np.float64).reshape(N, players)
        place = np.asarray(r.seats["place"]).reshape(N, players)
        seat = np.asarray(r.seats["seat"]).reshape(N, players)
        n_win = np.asarray(r.games["n_winners"])
        winner = np.asarray(r.games["winner"])
        won = n_win >= 1
        assert np.allclose(win.sum(axis=1)[won], 1.0, atol=1e-6), players
        assert np.allclose(win.sum(axis=1)[~won], 0.0), players  # nobody won (a lost solo game)
        # only place 1 wins, and place 1 wins whenever somebody won
        assert (win[place != 1] == 0).all(), players
        assert (win[(place == 1) & won[:, None]] > 0).all(), players
        assert np.allclose(win[won], np.where(place[won] == 1, 1.0 / n_win[won, None], 0.0)), players
        for i in np.flatnonzero(n_win == 1):  # a single winner is named in the games table
            assert win[i, seat[i] == winner[i]].item() == 1.0, players


def test_same_seed_same_rows_whatever_the_threads_and_chunks(game, tmp_path):
    a = registry.get_adapter(game)
    players = max(a.min_players, 2)
    cfg = _cfg(game, players, games=30)
    runs = {
        "1-thread-one-chunk": dict(threads=1, chunk_games=30),
        "2-threads-chunks-of-7": dict(threads=2, chunk_games=7),
        "2-threads-chunks-of-13": dict(threads=2, chunk_games=13),
    }
    tables = {}
    for name, kw in runs.items():
        m = runner.run_dataset(cfg, tmp_path / name, events=True, **kw)
        assert m["status"] == "complete"
        tables[name] = {t: dataset.read_table(tmp_path / name, t) for t in ("games", "seats", "events")}
    first = tables["1-thread-one-chunk"]
    for name, t in tables.items():
        for table in ("games", "seats", "events"):
            assert t[table].equals(first[table]), (name, table)
    for table, core in dataset.CORE_COLUMNS.items():
        assert first[table].schema.names[: len(core)] == [c for c, _ in core]


def test_the_manifest_describes_every_column(game, tmp_path):
    m = runner.run_dataset(_cfg(game, registry.get_adapter(game).max_players), tmp_path / "d", events=True)
    facts = m["facts"]
    assert facts == json.loads(
        json.dumps(registry.dataset_facts(api.resolve(_cfg(game, m["resolved"]["players"]))))
    )
    assert facts["analyses"] == list(registry.analyses(game))
    for table in ("games", "seats", "events"):
        core = {c for c, _ in dataset.CORE_COLUMNS.get(table, ())} | {"game_id", "config_id"}
        names = dataset.read_table(tmp_path / "d", table).schema.names
        missing = [c for c in names if c not in core and c not in facts["columns"][table]]
        assert not missing, (table, missing)


@pytest.mark.parametrize(
    "edit, key",
    [
        ({"players": 99}, "players"),
        ({"rules": {"no_such_rule": 1}}, "rules.no_such_rule"),
        ({"seats": [{"strategy": "no_such_strategy"}]}, "seats.0.strategy"),
        (
            {"seats": [{"strategy": "@first", "params": {"no_such_param": 1.0}}]},
            "seats.0.params.no_such_param",
        ),
        ({"games": 0}, "games"),
    ],
)
def test_errors_name_the_key(game, edit, key):
    first = registry.get_adapter(game).strategies()[0]["name"]
    if "seats" in edit:
        edit = {
            "seats": [
                dict(s, strategy=first if s["strategy"] == "@first" else s["strategy"]) for s in edit["seats"]
            ]
        }
    with pytest.raises(ConfigError) as exc:
        api.resolve({**_cfg(game, registry.get_adapter(game).min_players), **edit})
    assert key in str(exc.value)


def test_the_strategies_schema(game):
    a = registry.get_adapter(game)
    rows = a.strategies()
    names = [r["name"] for r in rows]
    assert rows and len(set(names)) == len(names)
    for r in rows:
        assert set(r) >= {"name", "description", "params", "param_help"}, r["name"]
        assert isinstance(r["description"], str) and r["description"]
        assert all(isinstance(k, str) and isinstance(v, float) for k, v in r["params"].items()), r["name"]
        # every parameter has its help (what `sim strategies` prints)
        assert set(r["param_help"]) == set(r["params"]), r["name"]
        assert all(isinstance(h, str) and h for h in r["param_help"].values()), r["name"]
        bounds = a.tuning_bounds(r["name"])
        assert set(bounds) <= set(r["params"]), r["name"]
        for p, (lo, hi) in bounds.items():
            assert lo < hi, (r["name"], p)
        # every strategy resolves at every seat
        players = a.min_players
        cfg = {"game": game, "games": 1, "seed": 0, **a.bench_config(players, [r["name"]] * players)}
        assert api.resolve(cfg)["seats"][0]["strategy"] == r["name"]
    for t in a.bench_targets():
        assert t["config"]["game"] == game and t["seconds"] > 0
        assert 0 < t.get("yardstick_ratio", 1) <= 1  # games/s over the yardstick's, when set
        assert 0 < t.get("typical_s", t["seconds"]) <= t["seconds"] * 10  # an estimate, when set
        api.resolve(dict(t["config"], games=1, seed=0))


def test_events_are_contiguous_and_in_the_games_vocabulary(game, played):
    kinds = set(registry.dataset_facts(next(iter(played.values())).resolved)["event_kinds"])
    for players, r in played.items():
        ev = r.events
        assert ev is not None and ev.num_rows > 0
        gid = np.asarray(ev["game_id"])
        seq = np.asarray(ev["seq"])
        # the rows of a game are adjacent, in game order, and seq counts 0, 1, 2, ... in each
        assert (np.diff(gid) >= 0).all(), players
        starts = np.r_[0, np.flatnonzero(np.diff(gid)) + 1]
        assert sorted(set(gid.tolist())) == list(range(N)), players
        expected = np.arange(len(gid)) - np.repeat(starts, np.diff(np.r_[starts, len(gid)]))
        assert (seq == expected).all(), players
        assert set(pc.unique(ev["kind"]).to_pylist()) <= kinds, players


REFEREED = [g for g in GAMES if registry.referee(g) is not None]


@pytest.mark.parametrize("refereed", REFEREED)
def test_events_replay_with_the_games_referee(refereed):
    ref = registry.referee(refereed)
    for players in _counts(refereed):
        r = api.simulate(_cfg(refereed, players), threads=1, events=True)
        report = ref.replay_tables(r.resolved, r.games, r.seats, r.events)
        assert report.ok and report.games == N, (players, report.summary())


def test_replay_of_a_game_without_a_referee_is_one_clear_error(tmp_path, monkeypatch):
    import fake_adapter  # a registered game whose adapter says it has no referee

    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")
    assert registry.referee(fake_adapter.NAME) is None
    runner.run_dataset({"game": fake_adapter.NAME, "games": 5, "seed": 1}, tmp_path / "d", events=True)
    with pytest.raises(SimError, match="has no referee"):
        registry.replay_dataset(tmp_path / "d")
    from typer.testing import CliRunner

    from sim.cli import app

    res = CliRunner().invoke(app, ["replay", str(tmp_path / "d")])
    assert res.exit_code == 2 and "has no referee" in res.stderr and "Traceback" not in res.stderr


def _modules_after(code):
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.splitlines()[-1])


def _json_from_empty_cache(code, cache):
    """The last line of ``code``'s output, as JSON, run in a fresh interpreter whose compile
    cache is the empty folder ``cache`` (so it compiles what it runs, not loads it)."""
    env = {**os.environ, "BOARDSIM_CACHE_DIR": str(cache), "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.splitlines()[-1])


def test_a_run_loads_only_its_own_games_kernels_and_no_referee():
    """Cold start: a Bloody Inn run imports (so compiles) no Cluedo kernel, and the other way
    round; neither imports the referee or the bench; listing games compiles nothing."""
    for game, other in (("bloody_inn", "cluedo"), ("cluedo", "bloody_inn")):
        mods = _modules_after(
            f"from sim import api; api.simulate({{'game': '{game}', 'games': 2, 'seed': 1}}, threads=1)"
        )
        assert f"kernels.{game}.play" in mods
        assert not [m for m in mods if m.startswith(f"kernels.{other}")], game
        assert not [
            m for m in mods if ".referee" in m or m.startswith(("sim.bench", "sim.commands.bench"))
        ], game
    mods = _modules_after(
        "from sim import registry; [registry.get_adapter(g).title for g in registry.game_names()]"
    )
    # at most plain constants (a layout, the search's parameter names), nothing compiled
    plain = ("layout", "layout_tools", "search_params", *GAMES)
    assert not [m for m in mods if m.startswith("kernels.") and m.rsplit(".", 1)[-1] not in plain]


def test_a_bloody_inn_run_compiles_no_search_or_checks_it_does_not_use():
    """Cold start: without a search seat the run does not import the search
    (its typed functions compile at import), and without ``check_invariants`` the block
    kernel is compiled with the search hook and the checks pruned (None-typed arguments)."""
    code = (
        "import sys, json\n"
        "from sim import api\n"
        "api.simulate({'game': 'bloody_inn', 'games': 2, 'seed': 1}, threads=1)\n"
        "import inspect\n"
        "from kernels.bloody_inn import play\n"
        "names = list(inspect.signature(play._play_block.py_func).parameters)\n"
        "at = [names.index('search'), names.index('checks')]\n"
        "print(json.dumps({'mods': sorted(sys.modules), "
        "'sigs': [[str(s[i]) for i in at] for s in play._play_block.signatures]}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.splitlines()[-1])
    assert "kernels.bloody_inn.play" in got["mods"]
    assert "kernels.bloody_inn.strat_search" not in got["mods"]
    assert "kernels.bloody_inn.rollout" not in got["mods"]
    assert got["sigs"] == [["none", "none"]]  # (search, checks): both pruned


def test_a_cluedo_run_compiles_the_rollouts_only_when_a_seat_uses_them(tmp_path):
    """Cold start: the play kernel gets ``rollouts`` as None unless a ``search`` seat at 3+
    players has ``rollouts``, so a plain run compiles none of kernels/cluedo/rollout.py (in an
    empty cache: a warm one would load the callers without compiling any callee)."""
    code = (
        "import json, sys\n"
        "from sim import api\n"
        "from kernels.cluedo import play, rollout\n"
        "def seats(r):\n"
        "    return [{'strategy': 'search', 'params': {'rollouts': r}}] + [{'strategy': 'prob'}] * 3\n"
        "out = {}\n"
        "for name, r in (('plain', 0.0), ('rollouts', 2.0)):\n"
        "    api.simulate({'game': 'cluedo', 'players': 4, 'seats': seats(r)}, games=2, seed=1, threads=1)\n"
        "    out[name] = {'last': sorted(str(s[-1]) for s in play.play.signatures),\n"
        "                 'decide': len(rollout._decide.signatures)}\n"
        "print(json.dumps(out))"
    )
    got = _json_from_empty_cache(code, tmp_path)
    assert got["plain"] == {"last": ["none"], "decide": 0}
    assert got["rollouts"]["last"] == ["int64", "none"] and got["rollouts"]["decide"] > 0


def test_a_bloody_inn_run_compiles_only_the_policies_its_lineup_plays(tmp_path):
    """Cold start: the block kernel gets the lineup's policies as None-or-int64 arguments,
    and the rules pass them down to every ``decide_*``, so an all-``expert`` lineup compiles
    no ``greedy`` or ``random`` function beyond the small helpers declared with a signature
    (numba compiles those when their module is imported) and a ``greedy`` lineup not the
    heuristic.  Compiled in an empty cache: a warm one would load the callers without
    compiling any callee."""
    code = (
        "import json\n"
        "import numpy as np\n"
        "from numba import types\n"
        "from numba.core.registry import CPUDispatcher\n"
        "from kernels.sigs import PR, ST\n"
        "from kernels.bloody_inn import morning, play, strat_greedy, strat_heuristic, strat_random\n"
        "from kernels.bloody_inn.strategies import GREEDY, HEURISTIC, lineup_strategies\n"
        "def compiled(mod):\n"
        "    return sorted(n for n, f in vars(mod).items() if isinstance(f, CPUDispatcher)\n"
        "                  and f.__module__ == mod.__name__ and f.signatures)\n"
        "imported = {m.__name__.rsplit('.', 1)[1]: compiled(m) for m in (strat_greedy, strat_random)}\n"
        "out = {'expert': [str(t) for t in lineup_strategies(np.array([HEURISTIC]))],\n"
        "       'mixed': [str(t) for t in lineup_strategies(np.array([GREEDY, 0, 3]))]}\n"
        "flags = [types.Tuple((types.int64, types.none, types.none)),\n"
        "         types.Tuple((types.none, types.int64, types.none))]\n"
        "for name, ty in zip(('heuristic only', 'greedy only'), flags):\n"
        "    morning.morning.compile((ST, PR, ty))\n"
        "    out[name] = {m.__name__.rsplit('.', 1)[1]: compiled(m)\n"
        "                 for m in (strat_heuristic, strat_greedy, strat_random)}\n"
        "out['imported'] = imported\n"
        "print(json.dumps(out))"
    )
    got = _json_from_empty_cache(code, tmp_path)
    assert got["expert"] == ["1", "None", "None"]
    assert got["mixed"] == ["1", "1", "1"]  # greedy, random (0) and search (3, a heuristic)
    imported = got["imported"]  # what importing compiled: the declared helpers and their callees
    after_heur = got["heuristic only"]
    assert "wages" in after_heur["strat_heuristic"] and "fine" in after_heur["strat_heuristic"]
    assert after_heur["strat_greedy"] == imported["strat_greedy"]  # nothing of greedy's play
    assert after_heur["strat_random"] == imported["strat_random"]
    assert "wages" not in imported["strat_greedy"]
    after_greedy = got["greedy only"]
    assert "wages" in after_greedy["strat_greedy"] and "fine" in after_greedy["strat_greedy"]
    assert after_greedy["strat_random"] == imported["strat_random"]
    assert after_greedy["strat_heuristic"] == after_heur["strat_heuristic"]  # nothing new


def test_the_analyses_import_no_kernel():
    """No game kernel: only the ``kernels`` package itself, which sets the compile cache's
    directory before numba is imported (``sim`` imports it first)."""
    mods = _modules_after("from analysis import metrics, report, study; metrics.question_names()")
    assert not [m for m in mods if m.startswith("kernels.")]


# --- nothing outside the games names a game -------------------------------------

#: where a game may be named: the games' own homes (adapters, data, referees), the registry's
#: table of them, and the synthetic-data maker of the analysis tests (it makes Bloody Inn tables)
GAME_HOMES = ("sim/games/", "sim/registry.py")


def _code_files():
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    for top in ("sim", "analysis"):
        for f in sorted((root / top).rglob("*.py")):
            rel = f.relative_to(root).as_posix()
            if not rel.startswith(GAME_HOMES):
                yield rel, f


def test_no_shared_module_names_a_game_or_imports_its_code():
    """A string literal equal to a registered game's name, or an import of a game's adapter
    or kernels, in the shared layers is how a third game gets silently left out."""
    import ast

    names = set(registry.game_names())
    found = []
    for rel, f in _code_files():
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                found.append(f"{rel}:{node.lineno} names {node.value!r}")
            if isinstance(node, ast.ImportFrom | ast.Import):
                mods = (
                    [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                )
                for m in mods:
                    parts = set(m.split("."))
                    if parts & names:
                        found.append(f"{rel}:{node.lineno} imports {m}")
    assert found == []


def test_every_adapter_says_what_restricted_play_it_has():
    for game in registry.game_names():
        adapter = registry.get_adapter(game)
        resolved = api.resolve({"game": game, "players": adapter.min_players, "games": 1, "seed": 0})
        r = adapter.restrictions(resolved)
        assert r is None or (
            {"actions", "build"} <= set(r) <= {"actions", "build", "characters"}
            and all(isinstance(x, str) for k in ("actions", "build") for x in r[k])
            and isinstance(r.get("characters", False), bool)
        )
