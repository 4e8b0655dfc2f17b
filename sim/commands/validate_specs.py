"""``sim validate`` for the specs that are not run configs: a balance spec (``sim balance``)
and a meta-game config (``sim meta``).  Each is loaded by the loader its command uses, so a
spec that validates here is one the command accepts; a bad one fails with that loader's one
line (file, key, value, what is allowed) and exit status 2."""

from __future__ import annotations

import json
import math

import typer


def is_balance_spec(raw: dict) -> bool:
    """A balance spec names an edit space or objectives (a run config has neither)."""
    return "edits" in raw or "objectives" in raw


def is_meta_config(raw: dict) -> bool:
    """A meta config lists the strategies of its round-robin (a run config has seats)."""
    return "strategies" in raw


def _band(target):
    lo, hi = target
    if math.isinf(lo) and math.isinf(hi):
        return "any value"
    if math.isinf(lo):
        return f"<= {hi:g}"
    if math.isinf(hi):
        return f">= {lo:g}"
    return f"in [{lo:g}, {hi:g}]"


def _candidates(spec) -> int:
    """How many candidates the edit space holds (every combination of the edits' values)."""
    return math.prod(len(e.values) for e in spec.edits)


def validate_balance(target, json_: bool) -> None:
    from ..balance_spec import load_spec

    spec = load_spec(target)  # a ConfigError is one line and exit 2 (the root group)
    players = ", ".join(map(str, spec.players))
    if json_:
        body = {
            "kind": "balance",
            "name": spec.name,
            "game": spec.game,
            "players": spec.players,
            "strategy": spec.strategy,
            "digest": spec.digest(),
            "candidates": _candidates(spec),
            "edits": [{"label": e.label, "official": e.official, "values": e.values} for e in spec.edits],
            "objectives": [
                {"metric": o.metric, "players": o.players, "target": list(o.target), "weight": o.weight}
                for o in spec.objectives
            ],
            "search": spec.search,
            "racing": spec.racing,
            "confirm": spec.confirm,
        }
        typer.echo(json.dumps(body, indent=1, default=str))
        return
    budget = f"{spec.search['budget_games']:,} games"
    if spec.search["budget_minutes"]:
        budget += f" or {spec.search['budget_minutes']:g} minutes"
    typer.echo(
        f"ok: {target}: balance spec {spec.name!r}, {spec.game} at {players} players, every seat "
        f"{spec.strategy}; {len(spec.edits)} edits ({_candidates(spec):,} candidates), "
        f"{len(spec.objectives)} objectives; search {spec.search['optimizer']} seed {spec.search['seed']}, "
        f"budget {budget}; confirmation by {spec.confirm['strategy']} on "
        f"{spec.confirm['games']:,} fresh games per count; digest {spec.digest()}"
    )
    for o in spec.objectives:
        typer.echo(f"  {o.metric} at {', '.join(map(str, o.players))}p: {_band(o.target)} {o.unit}")


def validate_meta(target, json_: bool) -> None:
    from ..meta import plan

    meta = plan(target)  # a ConfigError is one line and exit 2 (the root group)
    games = sum(r["games"] for _, _, r in meta.pairings)
    if json_:
        body = {
            "kind": "meta",
            "players": meta.players,
            "strategies": meta.names,
            "pairings": [{"row": a, "col": b, "games": r["games"]} for a, b, r in meta.pairings],
            "games": games,
        }
        typer.echo(json.dumps(body, indent=1))
        return
    game = meta.pairings[0][2]["game"] if meta.pairings else meta.raw.get("game")
    per = meta.pairings[0][2]["games"] if meta.pairings else 0
    typer.echo(
        f"ok: {target}: meta-game of {len(meta.names)} strategies ({', '.join(meta.names)}), {game} "
        f"at {meta.players} players; {len(meta.pairings)} pairings x {per:,} games "
        f"({games:,} games in all)"
    )
