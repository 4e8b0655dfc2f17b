"""Numba kernels: njit code over flat NumPy arrays only (no I/O, no Python objects).

See ``kernels/rng.py`` for the per-game counter-based random stream and one
sub-package per game (``kernels/bloody_inn``, ``kernels/cluedo``).
"""
