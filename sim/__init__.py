"""The simulator's Python side: configuration, game registry, runner, datasets, CLI."""

from .api import Result, resolve, simulate
from .errors import ConfigError, SimError

__all__ = ["simulate", "resolve", "Result", "ConfigError", "SimError"]
