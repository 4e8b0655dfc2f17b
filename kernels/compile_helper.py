"""The helper process of a cold compile (``kernels.cold_compile.help_compile``).

Reads a pickled list of ``(module, qualified name, argument types)`` from standard input and
compiles each into numba's on-disk cache, in order, as a callee (no final module passes);
after each it prints ``done I N`` or ``fail I N`` on standard output: its index, and how
many function versions this process has compiled so far (``sim bench`` reports them).
"""

import importlib
import pickle
import sys


def main():
    targets = pickle.load(sys.stdin.buffer)
    from numba.core import event

    from kernels.cold_compile import _CompileDepth

    compiled = [0]

    class Count(event.Listener):
        def on_start(self, e):
            compiled[0] += 1

        def on_end(self, e):
            pass

    event.register("numba:compile", Count())

    for i, (module, qualname, argtypes) in enumerate(targets):
        try:
            disp = importlib.import_module(module)
            for name in qualname.split("."):
                disp = getattr(disp, name)
            _CompileDepth.depth += 1  # as a callee: its caller's compile optimises it
            try:
                disp.compile(argtypes)
            finally:
                _CompileDepth.depth -= 1
            print(f"done {i} {compiled[0]}", flush=True)
        except Exception:  # noqa: BLE001 - the compiling process compiles this one itself
            print(f"fail {i} {compiled[0]}", flush=True)


if __name__ == "__main__":
    main()
