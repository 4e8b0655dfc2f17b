"""Kernel objects imported on first use, so that importing an adapter compiles nothing.

``L = lazy("kernels.bloody_inn.layout")`` stands for the module, ``REGISTRY =
lazy("kernels.bloody_inn.strategies", "REGISTRY")`` for one of its attributes: attribute
access, indexing, iteration, ``len``, ``in`` and calls go to the real object, imported (and
so compiled) the first time one is made.  The adapter's code reads as if it had imported them.
"""

from __future__ import annotations

import importlib


class lazy:  # noqa: N801 - used like a function
    __slots__ = ("_module", "_attr", "_obj")

    def __init__(self, module, attr=None):
        self._module = module
        self._attr = attr
        self._obj = None

    def _get(self):
        # the module is kept, the attribute looked up every time: whoever patches the module
        # (``sim bench``'s kernel timer wraps its dispatchers) is seen through the proxy
        if self._obj is None:
            self._obj = importlib.import_module(self._module)
        return self._obj if self._attr is None else getattr(self._obj, self._attr)

    def __getattr__(self, name):
        return getattr(self._get(), name)

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._get())

    def __contains__(self, key):
        return key in self._get()

    def __call__(self, *args, **kwargs):
        return self._get()(*args, **kwargs)

    def __repr__(self):
        return f"lazy({self._module!r}, {self._attr!r})"
