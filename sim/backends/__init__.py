"""Optional backends: where the chunks of a run are played besides this process.

The runner (:mod:`sim.runner`) knows the ``"local"`` backend; an optional one lives in a
module here that registers itself with :func:`sim.runner.register_backend` when imported, and
is imported only when asked for (``--backend ray``), so its dependency stays optional.

A backend function may also carry a ``configure(**options)`` attribute for options such as a
cluster address; :func:`configure` passes the CLI's ``--address`` to it.
"""

from __future__ import annotations

import importlib
import importlib.util

from ..errors import ConfigError, SimError

#: name -> (module, the import it needs, how to install it)
OPTIONAL = {
    "ray": ("sim.backends.ray", "ray", "pip install 'boardsim[ray]'  (ray[default]>=2.9)"),
}


def names():
    """Every backend name a user may give (``local`` first)."""
    return ["local", *OPTIONAL]


def allowed():
    return " | ".join(repr(n) for n in names())


def load(name):
    """Import optional backend ``name`` so that it registers itself with the runner.

    Raises
    ------
    ConfigError
        for an unknown backend name.
    SimError
        when the backend's package is not installed (the message says how to install it).
    """
    from .. import runner

    if name in runner.BACKENDS:
        return runner.BACKENDS[name]
    if not isinstance(name, str) or name not in OPTIONAL:
        raise ConfigError("backend", name, allowed())
    module, needs, install = OPTIONAL[name]
    if importlib.util.find_spec(needs) is None:
        raise SimError(f"--backend {name} needs the {needs!r} package, which is not installed: {install}")
    importlib.import_module(module)
    return runner.BACKENDS[name]


def configure(name, **options):
    """Pass options (``address=...``) to backend ``name``; ``None`` values are ignored.

    An option given to a backend that does not take it is an error naming the option.
    """
    options = {k: v for k, v in options.items() if v is not None}
    if not options:
        return
    from .. import runner

    fn = runner.get_backend(name)
    conf = getattr(fn, "configure", None)
    if conf is None:
        key = next(iter(options))
        raise ConfigError(
            "--" + key.replace("_", "-"),
            options[key],
            f"only with a backend that takes it ('ray'), not {name!r}",
        )
    conf(**options)
