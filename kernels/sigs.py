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


def on_first_use(*args):
    """Decorator over an ``njit`` dispatcher: like an explicit signature (exactly one
    version, for these argument types, whatever constants the callers pass), but compiled
    the first time a caller is typed or Python calls it, not when the module is imported.

    For the helpers of a policy a run may not play (``greedy``, ``random``): with
    ``njit(sig(...))`` they compiled at import, i.e. in every run (issue 17).  Usage::

        @on_first_use(ST, PR, I, I)
        @njit(cache=True, _nrt=False)
        def _prm(st, pr, p, i): ...
    """
    argtypes = tuple(args)

    def decorate(disp):
        if not hasattr(disp, "get_call_template"):
            return disp  # NUMBA_DISABLE_JIT: a plain Python function (sim bench's pure-Python row)
        typed_call = disp.get_call_template
        python_call = disp._compile_for_args

        def compile_declared():
            if disp._can_compile:
                disp.compile(argtypes)
                disp.disable_compile()  # as with njit(sig): calls convert to this version

        def get_call_template(targs, kws):  # a jitted caller is being typed
            compile_declared()
            return typed_call(targs, kws)

        def compile_for_args(*a, **kw):  # a Python call found no version
            if disp._can_compile:
                compile_declared()
                # numba calls what this returns with the arguments (as it calls the entry point
                # its own returns): the dispatcher, which now holds the declared version and
                # converts or refuses the arguments as with njit(sig)
                return disp
            return python_call(*a, **kw)

        disp.get_call_template = get_call_template
        disp._compile_for_args = compile_for_args
        return disp

    return decorate
