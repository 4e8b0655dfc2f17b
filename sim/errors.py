"""User-facing errors: one clear line, never a traceback."""

import json


def toml_value(value):
    """``value`` written as it would be in a TOML file (``true``, ``'text'``, ``[1, 2]``), so a
    message quotes what the user typed rather than a Python repr (``True``, ``None``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"'{value}'" if "'" not in value and "\n" not in value else json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float) and value != value:
        return "nan"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return repr(value)


class SimError(Exception):
    """Base class for errors caused by user input (bad config, refused overwrite, ...)."""


class ConfigError(SimError):
    """An invalid configuration value.

    The message names the file, the (dotted) key, the bad value and what is allowed.
    """

    def __init__(self, key, value, allowed, source=None):
        self.key = key
        self.value = value
        self.allowed = allowed
        self.source = source
        super().__init__(self._format())

    def _format(self):
        where = f"{self.source}: " if self.source else ""
        if self.value is None:  # a key the file does not set and that has no default
            return f"{where}{self.key} is missing; allowed: {self.allowed}"
        return f"{where}{self.key} = {toml_value(self.value)} is invalid; allowed: {self.allowed}"

    def with_source(self, source):
        """Return the same error attributed to ``source`` (a file path)."""
        if self.source:
            return self
        return ConfigError(self.key, self.value, self.allowed, source)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run; the message says what was kept and how to resume."""
