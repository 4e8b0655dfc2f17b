"""Backends: where the chunks of a run are played, by name.

``"local"`` (:mod:`sim.backends.local`) plays them in this process; an optional one lives in a
module here that registers itself with :func:`register_backend` when imported, and is imported
only when asked for (``--backend ray``), so its dependency stays optional.  A backend is a
function with the signature of :func:`sim.backends.local.local_backend`: it plays each pending
chunk (:func:`sim.chunks.play_chunk_to_tables` or :func:`sim.chunks.play_and_write_chunk`) and
hands it to ``writer``.

A backend function may also carry a ``configure(**options)`` attribute for options such as a
cluster address; :func:`configure` passes the CLI's ``--address`` to it.
"""

from __future__ import annotations

import importlib
import importlib.util

from ..errors import ConfigError, SimError
from .local import local_backend

#: name -> (module, the import it needs, how to install it)
OPTIONAL = {
    "ray": ("sim.backends.ray", "ray", "pip install 'boardsim[ray]'  (ray[default]>=2.9)"),
}


#: name -> backend function; optional ones add themselves when their module is imported
BACKENDS = {"local": local_backend}


def register_backend(name, fn):
    """Make ``fn`` available as ``backend=name`` (same signature as the local backend)."""
    BACKENDS[name] = fn


def get_backend(name):
    """The backend function ``name``, importing an optional backend's module if needed."""
    if name not in BACKENDS:
        load(name)
    return BACKENDS[name]


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
    if name in BACKENDS:
        return BACKENDS[name]
    if not isinstance(name, str) or name not in OPTIONAL:
        raise ConfigError("backend", name, allowed())
    module, needs, install = OPTIONAL[name]
    if importlib.util.find_spec(needs) is None:
        raise SimError(f"--backend {name} needs the {needs!r} package, which is not installed: {install}")
    importlib.import_module(module)
    return BACKENDS[name]


def configure(name, **options):
    """Pass options (``address=...``) to backend ``name``; ``None`` values are ignored.

    An option given to a backend that does not take it is an error naming the option.
    """
    options = {k: v for k, v in options.items() if v is not None}
    if not options:
        return
    fn = get_backend(name)
    conf = getattr(fn, "configure", None)
    if conf is None:
        key = next(iter(options))
        raise ConfigError(
            "--" + key.replace("_", "-"),
            options[key],
            f"only with a backend that takes it ('ray'), not {name!r}",
        )
    conf(**options)
