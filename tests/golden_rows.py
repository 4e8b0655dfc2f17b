"""Golden rows: digests of the games, seats and events tables of every shipped config.

A golden digest guards against change only: it says the rows are what they were when the
digests were written, not that they are right (the rules tests and referees say that).

The cases, each played in memory (``sim.api.play_range``, events on) at a small game count:

- every run config under ``configs/`` (both games, strategy folders and studies' bases);
- every grid point of every sweep file (a `sim balance` spec, whose configs its search finds,
  is not a case), and every power config's arms (baseline, each annex,
  each action) as ``sim power`` plans them;
- every pairing of every meta config (``sim meta``'s round-robins);
- every data entry of every study file, one case per rung of its strength ladder (a meta
  entry: one per pairing);
- every strategy of every game at every player count (``search`` at one and two);
- rule variants and parameter signs that reach the policies' other branches (unlimited wealth,
  non-unique annexes, no voluntary dismissal, one season, two deck copies, strict final round,
  restricted seats, negative weights, duplicate deals with the invariant checks on) and the
  search's methods.

Cases that resolve to the same config, seed and game count are played once.  Regenerate the
digests after an intended change of the rows (and say why in the commit)::

    PYTHONPATH=. python tests/golden_rows.py            # rewrites tests/golden/rows.json
    PYTHONPATH=. python tests/golden_rows.py --check    # compares, prints what differs
    PYTHONPATH=. python tests/golden_rows.py --add      # plays and records new cases only
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from pathlib import Path

import polars as pl
import tomllib

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden" / "rows.json"
GAMES = 12  # a multiple of 1, 2, 3, 4 and 6 players: whole duplicate deals at every count
SEARCH_GAMES = 2  # games of a config with a search seat: ~1 s CPU per game at 4 players
TABLES = ("games", "seats", "events")


def _toml(path):
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _rel(path):
    return str(Path(path).resolve().relative_to(ROOT))


def _run_cases():
    """Every run config under configs/ (a file with ``game`` and no ``base``/``[[data]]``)."""
    from sim import api
    from sim.errors import ConfigError

    for path in sorted((ROOT / "configs").rglob("*.toml")):
        raw = _toml(path)
        if "game" not in raw or "base" in raw or "data" in raw or "power" in path.parts:
            continue
        try:
            resolved = api.resolve(path)
        except ConfigError:
            continue  # a strategy parameter file or a tuning setting, not a run config
        yield _rel(path), resolved


def _sweep_cases():
    from sim import sweep

    for path in sorted((ROOT / "configs").rglob("*.toml")):
        raw = _toml(path)
        if isinstance(raw.get("base"), str) and "grid" in raw:  # not a balance spec's [base]
            for point in sweep.load(path).points:
                yield f"{_rel(path)}:{point.name}", point.resolved


def _power_cases():
    from sim import power

    for path in sorted((ROOT / "configs").rglob("power/*.toml")):
        for arm, resolved in power.plan(path, cards="ALL", actions=True, games=GAMES):
            yield f"{_rel(path)}:{arm}", resolved


def _meta_cases():
    from sim import meta

    for path in sorted((ROOT / "configs").rglob("meta/*.toml")):
        for row, col, resolved in meta.plan(path, games=GAMES).pairings:
            yield f"{_rel(path)}:{row}~{col}", resolved


def _study_cases():
    from analysis import study
    from sim import api, sweep

    for path in sorted((ROOT / "configs").rglob("*.toml")):
        if "data" not in _toml(path):
            continue
        for spec in study.load_study(path).data:
            where = f"{_rel(path)}:{spec.name}"
            if spec.kind == "power":
                for arm, resolved in study.power_plan(spec):
                    yield f"{where}:{arm}", resolved
                continue
            if spec.kind == "meta":
                for row, col, resolved in study.meta_plan(spec).pairings:
                    yield f"{where}:{row}~{col}", resolved
                continue
            for rung in spec.ladder or (None,):
                at = f"{where}[{rung.name}]" if rung else where
                if spec.kind == "run":
                    raw = _toml(spec.config)
                    if rung:
                        raw["seats"] = rung.seats()
                    yield at, api.resolve(raw, seed=spec.seed)
                else:
                    over = {"seats": rung.seats()} if rung else None
                    for point in sweep.load(spec.config, base_overrides=over).points:
                        yield f"{at}:{point.name}", point.resolved


def _grid_cases():
    """Every strategy at every player count, and the rule variants."""
    from sim import api, registry

    for game in registry.game_names():
        adapter = registry.get_adapter(game)
        low = 1 if game == "bloody_inn" else 3
        for row in adapter.strategies():
            top = 2 if row["name"] == "search" else min(adapter.max_players, 4)  # search: CPU
            for players in range(low, top + 1):
                cfg = {"game": game, "players": players, "seed": 7, "seats": [{"strategy": row["name"]}]}
                yield f"{game} {row['name']} {players}p", api.resolve(cfg)
    bi = {"game": "bloody_inn", "players": 3, "seed": 5, "seats": [{"strategy": "expert"}]}
    variants = {
        "short": {"length": "short"},
        "unlimited": {"unlimited_wealth": True},
        "nonunique": {"unique_annexes": False},
        "novoluntary": {"voluntary_dismissal": False},
        "oneseason": {"seasons": 1},
        "copies2": {"deck_copies": 2},
        "strict-final": {"final_round": "strict", "season_change": "on_next_draw"},
        "invariants": {"check_invariants": True},
    }
    for name, rules in variants.items():
        yield f"bloody_inn expert 3p {name}", api.resolve({**bi, "rules": rules})
    restrict = [
        {"strategy": "expert", "restrict": {"actions": ["kill", "launder"]}},
        {"strategy": "expert", "restrict": {"actions": ["bribe"], "build": ["priest", "archbishop"]}},
        {"strategy": "expert", "restrict": {"actions": ["bury", "build"]}},
    ]
    yield "bloody_inn expert 3p restricted", api.resolve({**bi, "seats": restrict})
    mixed = [{"strategy": s} for s in ("expert", "killer", "builder")]
    dup = {**bi, "rotate": "duplicate", "rules": {"check_invariants": True}, "seats": mixed}
    yield "bloody_inn 3p duplicate deals, invariants checked", api.resolve(dup)
    mixed4 = [{"strategy": s} for s in ("expert", "greedy", "random", "heuristic")]
    yield "bloody_inn mixed 4p", api.resolve({**bi, "players": 4, "seats": mixed4})
    neg = {"police_risk": -0.5, "corpse_value": -0.3, "kill_bias": 3.0, "hand_target": 2.0}
    yield (
        "bloody_inn heuristic 3p negative",
        api.resolve({**bi, "seats": [{"strategy": "heuristic", "params": neg}]}),
    )
    for name in ("best-response-expert-2p", "best-response-search-2p"):
        params_file = str(ROOT / f"configs/bloody_inn/strategies/{name}.toml")
        seats = [{"strategy": "heuristic", "params_file": params_file}, {"strategy": "expert"}]
        yield f"bloody_inn {name}", api.resolve({**bi, "players": 2, "seats": seats})
    default = [{"strategy": "search"}, {"strategy": "expert"}, {"strategy": "heuristic"}]
    yield "bloody_inn search 3p default", api.resolve({**bi, "seats": default})
    searches = {
        "dmc": {"method": 0, "determinizations": 4, "budget": 16},
        "dmc-placement-off": {"method": 0, "placement": 0, "determinizations": 4, "budget": 16},
        "ismcts-depth1": {"method": 1, "tree_depth": 1, "budget": 16},
        "greedy-rollouts": {"rollout_policy": 1, "rollout_rounds": 2, "budget": 16},
        "random-rollouts": {"rollout_policy": 0, "rollouts": 2, "budget": 16},
    }
    for name, params in searches.items():
        seats = [{"strategy": "search", "params": params}, {"strategy": "expert"}, {"strategy": "heuristic"}]
        yield f"bloody_inn search 3p {name}", api.resolve({**bi, "seats": seats})


def cases():
    """``{label: resolved config}`` of every case, in a stable order."""
    out = {}
    for source in (_run_cases, _sweep_cases, _power_cases, _meta_cases, _study_cases, _grid_cases):
        for label, resolved in source():
            assert label not in out, label
            out[label] = resolved
    return out


def games_for(resolved):
    searching = any(seat.get("strategy") == "search" for seat in resolved.get("seats", []))
    return SEARCH_GAMES if searching else GAMES


def play_key(resolved):
    """What the rows depend on: the config (less its name and game count), the seed, the count."""
    from sim.config import config_id

    return f"{config_id(resolved)}-{resolved['seed']}-{games_for(resolved)}"


def table_digest(table):
    """sha256 over every column's name, dtype and values, in row order; and the row count."""
    df = pl.from_arrow(table).drop("config_id", strict=False)
    h = hashlib.sha256()
    for name in df.columns:
        s = df[name]
        h.update(f"{name}:{s.dtype}:".encode())
        if s.dtype.is_numeric() or s.dtype == pl.Boolean:
            h.update(s.to_numpy().tobytes())
        else:
            h.update("\x1f".join(map(str, s.to_list())).encode())
    return f"{h.hexdigest()[:20]}/{df.height}"


def play(resolved):
    """``{table: digest}`` of ``games_for(resolved)`` games of ``resolved``, events on."""
    from sim import api

    resolved = copy.deepcopy(resolved)
    resolved["games"] = games_for(resolved)
    chunk = api.play_range(resolved, 0, resolved["games"], events=True)
    return {t: table_digest(getattr(chunk, t)) for t in TABLES}


def compute(known=None):
    """``{"cases": {label: play key}, "rows": {play key: {table: digest}}}``; the plays in
    ``known`` (``{play key: {table: digest}}``) are kept, not played."""
    labels, rows = {}, {}
    for label, resolved in cases().items():
        key = play_key(resolved)
        labels[label] = key
        if known and key in known:
            rows[key] = known[key]
        elif key not in rows:
            rows[key] = play(resolved)
            print(f"{label}: {rows[key]['games']}", file=sys.stderr, flush=True)
    return {"games": GAMES, "search_games": SEARCH_GAMES, "cases": labels, "rows": rows}


def main(argv):
    if "--add" in argv:  # digests of new cases only: the recorded ones stay as they are
        result = compute(json.loads(GOLDEN.read_text())["rows"])
        result["rows"] = {k: v for k, v in result["rows"].items() if k in set(result["cases"].values())}
        GOLDEN.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        return 0
    result = compute()
    if "--check" in argv:
        golden = json.loads(GOLDEN.read_text())
        bad = [
            k
            for k in sorted(set(golden["rows"]) | set(result["rows"]))
            if golden["rows"].get(k) != result["rows"].get(k)
        ]
        for key in bad:
            names = [lab for lab, k in result["cases"].items() if k == key] or ["(gone)"]
            print("DIFFERENT", key, names[0], golden["rows"].get(key), result["rows"].get(key))
        print(f"{len(result['rows']) - len(bad)} identical, {len(bad)} different")
        return 1 if bad else 0
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN} ({len(result['cases'])} cases, {len(result['rows'])} plays)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
