"""The simulator's Python side: configuration, game registry, runner, datasets, CLI."""

import kernels  # noqa: F401 - sets numba's cache directory (NUMBA_CACHE_DIR) before numba is imported

from .api import Result, resolve, simulate
from .errors import ConfigError, SimError

__all__ = ["simulate", "resolve", "Result", "ConfigError", "SimError"]
