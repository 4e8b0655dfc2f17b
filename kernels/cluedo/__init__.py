"""Cluedo kernels: ``layout`` (state and table layout, enums), ``board`` (movement),
``knowledge`` (deduction engine), ``agents`` (policies), ``rules`` (setup, turn, suggestions,
clue cards, accusations) and ``play`` (the batch entry point)."""

from kernels import use_source_keyed_cache

CACHE_DIR = use_source_keyed_cache(__file__)
