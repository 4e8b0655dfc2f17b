"""Cluedo: the adapter (``adapter``) and the independent referee (``referee``); the kernels are
``kernels.cluedo``.

Importing this package imports nothing, so the referee can be imported without the adapter.
"""
