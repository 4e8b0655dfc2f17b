"""User-facing errors: one clear line, never a traceback."""


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
        return f"{where}{self.key} = {self.value!r} is invalid; allowed: {self.allowed}"

    def with_source(self, source):
        """Return the same error attributed to ``source`` (a file path)."""
        if self.source:
            return self
        return ConfigError(self.key, self.value, self.allowed, source)
