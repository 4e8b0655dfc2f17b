"""The Bloody Inn: the adapter (``adapter``), its card table (``cards``) and the independent
referee (``referee``); the kernels are ``kernels.bloody_inn``.

Importing this package imports nothing, so the referee can be imported without the adapter.
"""
