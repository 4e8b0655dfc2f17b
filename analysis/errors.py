"""Errors the analyses raise for user mistakes (bad directory, unknown question)."""

from __future__ import annotations

try:  # the CLI turns SimError into one line; analysis stays importable without sim
    from sim.errors import SimError as _Base
except ImportError:  # pragma: no cover
    _Base = Exception


class AnalysisError(_Base):
    """A dataset or request the analyses cannot answer (one clear line)."""
