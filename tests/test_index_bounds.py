"""The kernels' unsigned indices (``kernels/index.py``'s ``nowrap``) are never negative.

An index cast with ``nowrap`` skips numba's negative-index wraparound, so a negative one would
read or write outside its array without an error. Played with ``NUMBA_BOUNDSCHECK=1`` (its own
cache), such an index is an ``IndexError`` instead: one lineup per game holding every policy
(so every decision function is compiled in), at every player count, both Bloody Inn lengths and
both search methods, with the invariant checks on.
"""

import os
import subprocess
import sys
from pathlib import Path

from kernels import COMPILE_FLAGS

ROOT = Path(__file__).resolve().parent.parent

PLAY = r"""
from sim import api, registry

def search(method, placement):
    return {"strategy": "search",
            "params": {"determinizations": 4, "budget": 16, "placement": placement, "method": method}}

bloody = [[search(1, 1), {"strategy": "expert"}, {"strategy": "greedy"}, {"strategy": "random"}],
          [search(0, 0), {"strategy": "heuristic"}, {"strategy": "killer"}, {"strategy": "banker"}]]
for seats in bloody:
    for players in (1, 2, 3, 4):
        for length in ("short", "long"):
            n = 30 if players > 1 else 10
            cfg = {"game": "bloody_inn", "players": players, "seed": 40 + players, "rotate": True,
                   "rules": {"length": length, "check_invariants": True}, "seats": seats[:players],
                   "games": n}
            api.play_range(api.resolve(cfg), 0, n)

names = [s["name"] for s in registry.get_adapter("cluedo").strategies()]
for players in (2, 3, 4, 5, 6):
    seats = [{"strategy": names[(i + players) % len(names)]} for i in range(players)]
    cfg = {"game": "cluedo", "players": players, "seed": 50 + players, "rotate": True,
           "seats": seats, "games": 30}
    api.play_range(api.resolve(cfg), 0, 30)
print("PLAYED")
"""


def test_every_policy_plays_bounds_checked_without_an_index_outside_its_array(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in COMPILE_FLAGS and k != "NUMBA_CACHE_DIR"}
    env.update(BOARDSIM_CACHE_DIR=str(tmp_path / "cache"), NUMBA_BOUNDSCHECK="1", PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", PLAY], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "PLAYED" in out.stdout


def test_a_negative_unsigned_index_is_caught_when_bounds_are_checked(tmp_path):
    """The check above can fail: a ``nowrap`` index of -1 is an IndexError under the flag."""
    probe = (
        "import numpy as np\nfrom numba import njit\nfrom kernels.index import nowrap\n"
        "@njit\ndef at(a, i):\n    return a[nowrap(i - 1)]\n"
        "a = np.arange(4)\nassert at(a, 2) == 1\n"
        "try:\n    at(a, 0)\nexcept IndexError:\n    print('CAUGHT')\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in COMPILE_FLAGS and k != "NUMBA_CACHE_DIR"}
    env.update(BOARDSIM_CACHE_DIR=str(tmp_path / "cache"), NUMBA_BOUNDSCHECK="1", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "CAUGHT" in out.stdout
