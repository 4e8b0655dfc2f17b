"""The one TOML writer (``tomllib`` only reads): run configs (``sim bench``) and the parameter
files of ``sim tune``.

Layout: a document's scalars first, then each table as ``[name]`` (its own scalars, inline
tables for dict values), then arrays of tables as ``[[name]]`` (also nested:
``[[tune.generation]]``).  ``tomllib.loads(dumps(doc)) == doc`` for every document of that
shape (tested).
"""

from __future__ import annotations

import json
import math


def value(v, *, float_digits=None):
    """One TOML value: bool, int, float (rounded to ``float_digits`` if given), str, list,
    or dict (an inline table)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            return ("-" if v < 0 else "") + "inf" if math.isinf(v) else "nan"
        return repr(round(v, float_digits) if float_digits is not None else v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x, float_digits=float_digits) for x in v) + "]"
    if isinstance(v, dict):
        inner = ", ".join(f"{_key(k)} = {value(x, float_digits=float_digits)}" for k, x in v.items())
        return "{ " + inner + " }" if inner else "{}"
    raise TypeError(f"cannot write {v!r} as TOML")


def _key(k):
    k = str(k)
    return k if k and all(c.isalnum() or c in "_-" for c in k) else json.dumps(k)


def _is_table_array(v):
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def _body(table, float_digits):
    """Scalar (and inline) lines of a table, and its arrays of tables."""
    lines, arrays = [], []
    for k, v in table.items():
        if _is_table_array(v):
            arrays.append((k, v))
        else:
            lines.append(f"{_key(k)} = {value(v, float_digits=float_digits)}")
    return lines, arrays


def _arrays(prefix, arrays, float_digits):
    out = []
    for k, items in arrays:
        name = f"{prefix}.{_key(k)}" if prefix else _key(k)
        for item in items:
            lines, nested = _body(item, float_digits)
            out += ["", f"[[{name}]]", *lines, *_arrays(name, nested, float_digits)]
    return out


def dumps(doc, *, header=(), float_digits=None):
    """TOML text of ``doc``.

    Parameters
    ----------
    doc : dict
        Top-level dict values become ``[tables]``, lists of dicts ``[[arrays of tables]]``;
        dicts inside a table are written inline.
    header : iterable of str
        Comment lines written first (without the ``#``).
    float_digits : int, optional
        Round every float to this many decimals.
    """
    out = [f"# {line}" if line else "#" for line in header]
    top = {k: v for k, v in doc.items() if not isinstance(v, dict)}
    lines, arrays = _body(top, float_digits)
    out += lines
    for k, v in doc.items():
        if isinstance(v, dict):
            t_lines, t_arrays = _body(v, float_digits)
            out += ["", f"[{_key(k)}]", *t_lines, *_arrays(_key(k), t_arrays, float_digits)]
    out += _arrays("", arrays, float_digits)
    return "\n".join(out).lstrip("\n") + "\n"
