"""Cluedo kernels: ``layout`` (state and table layout, enums), ``board`` (movement),
``knowledge`` (deduction engine), ``agents`` (policies), ``rules`` (setup, turn, suggestions,
clue cards, accusations) and ``play`` (the batch entry point)."""

from kernels import CACHE_DIR  # noqa: F401 - the compile cache of these kernels (kernels/__init__.py)
