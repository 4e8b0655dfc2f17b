"""The Bloody Inn's strategy table: the kernels' policies and the parameter presets.

The policies (``random``, ``greedy``, ``heuristic``, ``search``) are code in
``kernels/bloody_inn/strategies.py``; a preset is the ``heuristic`` policy with other default
parameters, and its values are data: one TOML file per preset under
``configs/bloody_inn/strategies/`` (``strategy = "heuristic"``, ``description``, ``[params]``;
the archetypes also list their hand-set ``plan``), the same files ``params_file`` and ``sim
tune --start`` read.  ``search`` takes its heuristic parameters (candidates, placement, the
decisions it does not search) from the ``expert`` file.

``REGISTRY`` maps a strategy name to ``(policy id, PARAMS-shaped tuple, description)``,
``BOUNDS`` a name to its tuning ranges (``sim tune``).
"""

from __future__ import annotations

from ...config import data_dir, load_toml
from ...errors import ConfigError

#: the presets of the heuristic policy, in the order ``sim strategies`` lists them
PRESETS = ("killer", "builder", "briber", "banker", "expert")
#: where each preset's file lives, under the shipped configs
FOLDER = ("bloody_inn", "strategies")


def preset_path(name):
    """The shipped file of preset ``name``."""
    return data_dir().joinpath(*FOLDER, f"{name}.toml")


def load_preset(name, params_spec):
    """``(params, description)`` of preset ``name``, checked against the policy's parameters.

    Raises
    ------
    ConfigError
        naming the file and the key when the file is missing, is not for the heuristic
        policy, names an unknown parameter or gives one that is not a number.
    """
    path = preset_path(name)
    raw = load_toml(path)
    src = str(path)
    if raw.get("strategy") != "heuristic":
        raise ConfigError("strategy", raw.get("strategy"), "heuristic (a preset of its parameters)", src)
    desc = raw.get("description")
    if not isinstance(desc, str) or not desc.strip():
        raise ConfigError("description", desc, "a one-line description of the preset", src)
    params = raw.get("params")
    if not isinstance(params, dict):
        raise ConfigError("params", params, "a [params] table of the heuristic's parameters", src)
    names = [n for n, _, _ in params_spec]
    for k, v in params.items():
        if k not in names:
            raise ConfigError(f"params.{k}", v, "one of " + ", ".join(names), src)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ConfigError(f"params.{k}", v, "a number", src)
    return {k: float(v) for k, v in params.items()}, desc.strip()


def _table():
    from kernels.bloody_inn import strat_heuristic as heur
    from kernels.bloody_inn import strategies as S

    base = S.REGISTRY
    table = {n: base[n] for n in ("random", "greedy", "heuristic")}
    loaded = {name: load_preset(name, heur.PARAMS) for name in PRESETS}
    for name, (params, desc) in loaded.items():
        table[name] = (S.HEURISTIC, heur.preset(**params), desc)
    sid, spec, desc = base["search"]
    expert = heur.preset(**loaded["expert"][0])
    table["search"] = (sid, expert + spec[len(expert) :], desc)
    bounds = {n: dict(heur.BOUNDS) for n, (s, _, _) in table.items() if s == S.HEURISTIC}
    bounds["search"] = dict(S.BOUNDS["search"])
    return table, bounds


REGISTRY, BOUNDS = _table()
