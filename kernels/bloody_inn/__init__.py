"""The Bloody Inn kernel: state layout, rules, strategies, batch ``play`` entry point."""

from kernels import use_source_keyed_cache

CACHE_DIR = use_source_keyed_cache(__file__)
