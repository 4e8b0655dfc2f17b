"""The ``sim`` command line (Typer).

Commands live in ``sim/commands/<group>.py``; each module has ``register(app)``.
A user mistake (``SimError``) prints one line and exits with status 2, never a traceback;
Ctrl-C prints what was kept and exits with status 130.  Both are handled in the root group,
so ``typer.testing.CliRunner`` sees the same behaviour as the console script.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from typing import Annotated

import typer
from typer.core import TyperGroup

from .errors import SimError

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130


class _SimGroup(TyperGroup):
    """Root command group turning user errors and Ctrl-C into one line and an exit status."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except SimError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(EXIT_USER_ERROR) from None
        except OSError as exc:
            # the operating system said no (disk full, read-only, permission...): the path and
            # what to do, in one line; the commands catch the ones they can say more about
            from .dataset import os_error_line

            typer.echo(f"error: {os_error_line(exc, doing='the command')}", err=True)
            raise typer.Exit(EXIT_USER_ERROR) from None
        except KeyboardInterrupt as exc:
            typer.echo(str(exc) or "interrupted", err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None


app = typer.Typer(
    cls=_SimGroup,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    # plain Click help: paragraphs re-flowed to the terminal, "[grid]" printed as written (no
    # Rich markup), flags without a value type
    rich_markup_mode=None,
    help="Monte Carlo balance simulator for board games.",
)


def version():
    """The installed boardsim version (``unknown`` when run from a source tree that was never
    installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    try:
        return _version("boardsim")
    except PackageNotFoundError:
        return "unknown"


def _print_version(value: bool):
    if value:
        typer.echo(f"boardsim {version()}")
        raise typer.Exit()


@app.callback()
def _root(
    version_: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
):
    """Monte Carlo balance simulator for board games."""


_COMMAND_MODULES = ("run", "analysis", "bench", "replay", "tune", "power", "balance", "meta")

for _name in _COMMAND_MODULES:
    try:
        _mod = importlib.import_module(f"sim.commands.{_name}")
    except ModuleNotFoundError as _exc:
        if _exc.name != f"sim.commands.{_name}":
            raise
        continue
    _mod.register(app)


def _stop(signum, frame):
    raise KeyboardInterrupt  # a polite kill (SIGTERM, SIGHUP) stops like Ctrl-C: chunks kept


def _arrow_memory_pool():
    """Arrow's jemalloc pool where the wheel has one, unless ``ARROW_DEFAULT_MEMORY_POOL`` says
    otherwise: jemalloc keeps freed pages a while for reuse, where the default (mimalloc)
    hands them back at once, so every chunk's Parquet encoding faulted in and zeroed fresh
    pages (a profile of an ``expert`` run with ``--trajectory``: 5.7% of its CPU zeroing
    pages with mimalloc, 1.8% with jemalloc)."""
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    import pyarrow as pa

    try:
        pa.set_memory_pool(pa.jemalloc_memory_pool())
    except NotImplementedError:  # a build without jemalloc keeps its default
        pass


def main():
    """Console-script entry point."""
    _arrow_memory_pool()
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            signal.signal(sig, _stop)
    try:
        # standalone mode: Typer/Click print usage errors themselves and exit with their code
        # (2 for a bad option); SimError and Ctrl-C are handled in _SimGroup.invoke.
        app(prog_name="sim")
    except SimError as exc:  # raised outside a command (should not happen)
        typer.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_USER_ERROR)
    except KeyboardInterrupt:  # before or after a command ran (while the CLI starts up)
        typer.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    main()
