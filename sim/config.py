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

from .errors import ConfigError, SimError

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
        data = p.read_bytes()
    except OSError as exc:
        raise SimError(f"{p}: cannot read the config ({exc.strerror or exc})") from None
    if b"\x00" in data:
        raise SimError(f"{p}: a binary file, not a TOML config (TOML is UTF-8 text)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SimError(
            f"{p}: not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line}); save the config as UTF-8"
        ) from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlSyntaxError("toml", str(exc), "valid TOML syntax", source=str(p)) from None
    if not table:
        what = "the file is empty" if not text.strip() else "the file sets no keys (only comments)"
        raise SimError(f"{p}: {what}; a run config sets at least game = 'bloody_inn' or 'cluedo'")
    return table


def load_run_config(config):
    """Return ``(raw_dict, source_label)`` for a path or a dict."""
    if isinstance(config, dict):
        return copy.deepcopy(config), "<dict>"
    if isinstance(config, (str, Path)):
        return load_toml(config), str(config)
    raise ConfigError("config", repr(type(config).__name__), "a TOML path or a dict")


# --- validation helpers ------------------------------------------------------------


class SeatCountError(ConfigError):
    """A ``[[seats]]`` list whose length fits neither one entry for every seat nor one per seat."""

    def _format(self):
        where = f"{self.source}: " if self.source else ""
        n, players = self.value
        return (
            f"{where}{self.key}: {n} [[seats]] entr{'y' if n == 1 else 'ies'} for {players} players; "
            f"allowed: {self.allowed}"
        )

    def with_source(self, source):
        return self if self.source else SeatCountError(self.key, self.value, self.allowed, source)


def check_seat_count(seats, players):
    """``seats`` (the raw ``[[seats]]`` list) holds one entry (every seat plays it) or one per seat."""
    if not isinstance(seats, list):
        raise ConfigError("seats", seats, "a list of [[seats]] tables")
    if len(seats) not in (1, players):
        raise SeatCountError(
            "seats", (len(seats), players), f"1 entry (every seat plays it) or {players} (one per seat)"
        )


def default_seats_note(raw, resolved):
    """The line a run prints when its config has no ``[[seats]]`` and the game's default lineup
    plays, e.g. ``no [[seats]]: every seat plays random``; None when the config names its seats."""
    if not isinstance(raw, dict) or "seats" in raw or not resolved.get("seats"):
        return None
    names = sorted({s["strategy"] for s in resolved["seats"]})
    return f"no [[seats]]: every seat plays {' and '.join(names)} (the game's default lineup)"


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
    rotate = raw.get("rotate", True)
    if not isinstance(rotate, bool) and rotate != "duplicate":
        raise ConfigError("rotate", rotate, 'true or false, or "duplicate" (every deal once per rotation)')
    out["rotate"] = rotate
    return game, out


def config_id(resolved):
    """Identity of a configuration: a hash of everything but ``games``, ``seed`` and labels.

    Two datasets of the same rules, lineup and cards share a ``config_id`` whatever their
    size and seed, so they can be pooled or compared.
    """
    body = {k: v for k, v in resolved.items() if k not in ("games", "seed", "name", "description")}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


# --- rerun from a manifest ------------------------------------------------------------


def manifest_file(config):
    """The ``manifest.json`` a run input names (the file, or a dataset folder holding one), or
    ``None`` when the input is a TOML config or a dict."""
    if not isinstance(config, (str, Path)):
        return None
    p = Path(config)
    if p.is_dir():
        if (p / "manifest.json").is_file():
            return p / "manifest.json"
        raise ConfigError("config", str(config), "a TOML file, or a dataset folder holding manifest.json")
    return p if p.suffix == ".json" else None


def load_manifest(path):
    """Read a dataset manifest given as a run input; one line on any problem."""
    path = Path(path)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("config", str(path), "an existing manifest.json or TOML file") from None
    except OSError as exc:
        raise SimError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:  # JSON or UTF-8 decoding
        raise SimError(f"{path}: not a readable manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "boardsim-dataset":
        raise SimError(f"{path}: not a boardsim dataset manifest (no format = 'boardsim-dataset')")
    if not isinstance(manifest.get("resolved"), dict):
        raise SimError(f"{path}: the manifest holds no resolved config")
    return manifest


def _key_difference(recorded, current, prefix=""):
    """First key present in one of two nested tables but not the other (or None)."""
    for k in sorted(set(recorded) | set(current)):
        if k not in recorded or k not in current:
            return prefix + k
        a, b = recorded[k], current[k]
        if isinstance(a, dict) and isinstance(b, dict):
            d = _key_difference(a, b, prefix + k + ".")
            if d:
                return d
    return None


def resolve_manifest(path, adapter_names, resolve_default, *, games=None, seed=None, printed_constants=None):
    """The resolved config a manifest records, ready to play the same dataset again.

    It is the exact config the dataset was played from (every default filled in, the card
    table as played), so it is used as it is rather than re-resolved; it is checked to be
    unedited (its ``config_id``) and to have the shape this version of the code expects.

    Parameters
    ----------
    path : path
        The manifest file.
    adapter_names : list of str
        Registered games.
    resolve_default : callable
        ``resolve_default(game, players)``: today's resolved config of a minimal config, whose
        keys the recorded one must have.
    games, seed : int, optional
        Overrides (a rerun with more games, or another seed).
    printed_constants : callable, optional
        ``printed_constants(game, current)``: the game's numeric ``[rules]`` constants with
        their printed values.  A manifest written before a constant existed lacks it and was
        played with the printed value, so that value fills it in.
    """
    manifest = load_manifest(path)
    resolved = copy.deepcopy(manifest["resolved"])
    game = resolved.get("game")
    if game not in adapter_names:
        raise ConfigError("resolved.game", game, " | ".join(repr(n) for n in adapter_names), source=str(path))
    recorded_id = manifest.get("config_id")
    if recorded_id is not None and config_id(resolved) != recorded_id:
        raise SimError(
            f"{path}: the resolved config was edited (its config_id is {config_id(resolved)}, the "
            f"manifest says {recorded_id}); write a TOML config for a changed run"
        )
    current = resolve_default(game, resolved.get("players"))
    if printed_constants is not None and isinstance(resolved.get("rules"), dict):
        for name, printed in printed_constants(game, current).items():
            resolved["rules"].setdefault(name, printed)
    diff = _key_difference(resolved, current)
    if diff is not None:
        raise SimError(
            f"{path}: the resolved config does not fit this version of the code (key {diff}); "
            f"rerun it with the code it was made with (git commit {(manifest.get('git') or {}).get('commit')})"
        )
    if games is not None:
        resolved["games"] = games
    if seed is not None:
        resolved["seed"] = seed
    try:
        resolved["games"] = get_int(resolved, "games", None, 1, MAX_GAMES)
        resolved["seed"] = get_int(resolved, "seed", None, 0, MAX_SEED)
    except ConfigError as exc:
        raise exc.with_source(str(path)) from None
    return resolved
