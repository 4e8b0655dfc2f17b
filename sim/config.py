"""Run-config loading and the validation helpers every game adapter uses.

A run config (TOML file or dict of the same shape) names ``game``, ``players``,
``games``, ``seed``, ``rotate``, a ``[rules]`` table, ``[[seats]]`` and optional
``[cards]`` edits (see ``../shared/design.md``).  The generic keys are checked here;
the game adapter checks ``rules``, ``seats`` and ``cards`` and fills every default, so
the *resolved* config is complete and reproducible on its own.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import tomllib

from .errors import ConfigError

#: Keys every run config may carry, whatever the game.
COMMON_KEYS = ("game", "name", "description", "players", "games", "seed", "rotate", "rules", "seats", "cards")

MAX_GAMES = 10**10
MAX_SEED = 2**63 - 1


class TomlSyntaxError(ConfigError):
    """A TOML file that does not parse; the message gives the file and the line."""

    def _format(self):
        return f"{self.source}: invalid TOML: {self.value}"


def data_dir():
    """The shipped configs (game data, example runs, sweeps, studies).

    Found through the package: ``sim/configs/`` is the package data of an installed ``sim``
    (a wheel); a source tree (editable install or ``PYTHONPATH``) has them as ``configs/``
    beside ``sim/``.
    """
    here = Path(__file__).resolve().parent
    for candidate in (here / "configs", here.parent / "configs"):
        if candidate.is_dir():
            return candidate
    raise ConfigError("configs", str(here / "configs"), "the shipped configs (a broken install?)")


def find_data_file(path):
    """``path`` if it is a file, else the shipped file of that name (``configs/x/y.toml`` or
    ``x/y.toml`` under :func:`data_dir`), else None."""
    p = Path(path)
    if p.is_file():
        return p
    if p.is_absolute():
        return None
    parts = p.parts[1:] if p.parts[:1] == ("configs",) else p.parts
    shipped = data_dir().joinpath(*parts) if parts else None
    return shipped if shipped is not None and shipped.is_file() else None


def config_path(path):
    """A config named on the command line: as given, or a shipped one of that name (so
    ``sim run configs/bloody_inn/long-3p.toml`` works from any folder); unchanged if
    neither exists (loading it then says so)."""
    return find_data_file(path) or Path(path)


def load_toml(path):
    """Read a TOML file; a syntax error becomes a ``ConfigError`` naming the line."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError("config", str(path), "an existing TOML file")
    try:
        with p.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise TomlSyntaxError("toml", str(exc), "valid TOML syntax", source=str(p)) from None


def load_run_config(config):
    """Return ``(raw_dict, source_label)`` for a path or a dict."""
    if isinstance(config, dict):
        return copy.deepcopy(config), "<dict>"
    if isinstance(config, (str, Path)):
        return load_toml(config), str(config)
    raise ConfigError("config", repr(type(config).__name__), "a TOML path or a dict")


# --- validation helpers ------------------------------------------------------------


def check_keys(table, allowed, prefix=""):
    """Reject unknown keys in ``table``."""
    if not isinstance(table, dict):
        raise ConfigError(prefix.rstrip(".") or "config", table, "a table")
    for key in table:
        if key not in allowed:
            raise ConfigError(prefix + str(key), table[key], "one of the keys " + ", ".join(sorted(allowed)))


def get_int(table, key, default, lo, hi, prefix=""):
    """An integer in ``lo..hi`` (booleans rejected)."""
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(prefix + key, value, f"an integer from {lo} to {hi}")
    return value


def get_float(table, key, default, lo, hi, prefix=""):
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
        raise ConfigError(prefix + key, value, f"a number from {lo} to {hi}")
    return float(value)


def get_bool(table, key, default, prefix=""):
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(prefix + key, value, "true or false")
    return value


def get_choice(table, key, default, choices, prefix=""):
    value = table.get(key, default)
    if value not in choices:
        raise ConfigError(prefix + key, value, " | ".join(repr(c) for c in choices))
    return value


def resolve_common(raw, adapter_names):
    """Validate the game-independent keys; return ``(game, partially resolved dict)``."""
    check_keys(raw, COMMON_KEYS)
    game = raw.get("game")
    if game not in adapter_names:
        raise ConfigError("game", game, " | ".join(repr(n) for n in adapter_names))
    out = {"game": game}
    name = raw.get("name", "")
    if not isinstance(name, str):
        raise ConfigError("name", name, "a string")
    out["name"] = name
    desc = raw.get("description", "")
    if not isinstance(desc, str):
        raise ConfigError("description", desc, "a string")
    out["description"] = desc
    out["games"] = get_int(raw, "games", 10_000, 1, MAX_GAMES)
    out["seed"] = get_int(raw, "seed", 0, 0, MAX_SEED)
    out["rotate"] = get_bool(raw, "rotate", True)
    return game, out


def config_id(resolved):
    """Identity of a configuration: a hash of everything but ``games``, ``seed`` and labels.

    Two datasets of the same rules, lineup and cards share a ``config_id`` whatever their
    size and seed, so they can be pooled or compared.
    """
    body = {k: v for k, v in resolved.items() if k not in ("games", "seed", "name", "description")}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]
