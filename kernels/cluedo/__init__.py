"""Cluedo kernel (see the modules of this package)."""
from kernels import use_source_keyed_cache

CACHE_DIR = use_source_keyed_cache(__file__)
