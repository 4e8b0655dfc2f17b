"""Argument types for helpers that are called with constant arguments.

Numba compiles one version of a function for every combination of literal constants at
its call sites (``log_event`` had 18, ``_prm`` 8, ``shuffle_prefix`` 7; a constant
``exclude=-1`` doubled the whole payment chain). Each extra version costs compile time and
cache space, and none runs faster. Declaring the argument types compiles exactly one
version; constants are converted to ``int64`` at the call.
"""

from numba import types

ST = types.int64[::1]  # a game's flat state array
PR = types.float64[::1]  # strategy parameters
I = types.int64
F = types.float64
B = types.boolean


def sig(*args):
    """The argument-type tuple for ``njit``: ``@njit(sig(ST, I, I), cache=True)``."""
    return tuple(args)
