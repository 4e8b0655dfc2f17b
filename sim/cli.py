"""The ``sim`` command line (Typer).

Commands live in ``sim/commands/<group>.py``; each module has ``register(app)``.
A user mistake (``SimError``) prints one line and exits with status 2, never a traceback.
"""
from __future__ import annotations

import importlib
import sys

import typer

from .errors import SimError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Monte Carlo balance simulator for board games.")

_COMMAND_MODULES = ("run", "analysis", "bench", "replay", "tune")

for _name in _COMMAND_MODULES:
    try:
        _mod = importlib.import_module(f"sim.commands.{_name}")
    except ModuleNotFoundError as _exc:
        if _exc.name != f"sim.commands.{_name}":
            raise
        continue
    _mod.register(app)


def main():
    """Console-script entry point."""
    try:
        app(standalone_mode=False)
    except SimError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except Exception as exc:  # click usage errors
        import click
        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        if isinstance(exc, click.exceptions.Abort):
            sys.exit(1)
        raise
