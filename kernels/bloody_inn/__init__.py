"""The Bloody Inn kernel: state layout, rules, strategies, batch ``play`` entry point.

No division-by-zero checks in the rules and the scripted strategies: their kernels are
compiled with ``error_model="numpy"``.  Every divisor there is a non-zero constant or
bounded away from zero (the number of players, of lineup entries, of winners for a winner,
the open rooms clipped to 1, ...), so no check could fire, and the checks cost a few per
cent of CPU per game on the hot path (rows identical without them).
``tests/test_kernel_flags.py`` lists every divisor with its
guard and fails on a new one; the search, its rollouts and the invariant checks keep the checks.
"""

from kernels import CACHE_DIR  # noqa: F401 - the compile cache of these kernels (kernels/__init__.py)
