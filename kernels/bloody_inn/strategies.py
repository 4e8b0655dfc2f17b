"""Strategy dispatch: every decision a player makes goes through these functions.

A strategy is a module with ``place``, ``action``, ``payment``, ``token_room``,
``monk_room``, ``wages`` and ``fine`` njit functions and a ``PARAMS`` tuple.  Adding one means
writing that module, one branch per decision below (behind an argument of its own, see
:func:`lineup_strategies`) and one line in ``REGISTRY``.
A preset (same code, other parameter defaults) is data, not code: the archetypes and
``expert`` are TOML files of ``heuristic`` parameters (``configs/bloody_inn/strategies/``)
that the adapter adds to this table (``sim/games/bloody_inn/presets.py``), so the kernel
compiles three policies whatever the number of names.
"""

import numpy as np
from numba import njit

from ..index import nowrap
from . import layout as L
from . import strat_greedy, strat_random
from . import strat_heuristic as heur
from .search_params import SEARCH_BOUNDS, SEARCH_PARAMS, SEARCH_WHOLE

RANDOM = 0
GREEDY = 1
HEURISTIC = 2
SEARCH = 3  # decides its night actions ahead of time (strat_search), the rest as heuristic

#: policy name -> (id, PARAMS tuple of (name, default, meaning), one-line description);
#: ``search``'s heuristic part defaults to ``expert``'s values once the adapter adds them
REGISTRY = {
    "random": (RANDOM, (), "uniform over the legal choices at every decision (the rules fuzzer)"),
    "greedy": (GREEDY, strat_greedy.PARAMS, "takes the choice worth the most francs now"),
    "heuristic": (
        HEURISTIC,
        heur.PARAMS,
        "values every choice in francs with tunable weights "
        "(money now, corpses, capacity, accomplices, police risk, effects, laundering)",
    ),
    "search": (
        SEARCH,
        heur.PARAMS + SEARCH_PARAMS,
        "looks ahead: plays the heuristic's best few night actions forward over sampled hidden "
        "cards (opponents' hands and corpses, the Entrance below its top card, the box) with a "
        "rollout policy and takes the best mean outcome (kernels/bloody_inn/strat_search.py); "
        "its other decisions and its candidates use the heuristic parameters (expert's)",
    ),
}


#: Every policy compiled: the ``strats`` of a call made without one (the rollouts, whose
#: policy is a run-time parameter, and the tests).  ``np.int64``, not ``1``: an ``int``
#: constant would be typed as a literal and compile versions of its own.
ON = np.int64(1)
ALL = (ON, ON, ON)


def lineup_strategies(lineup):
    """The ``strats`` tuple of a lineup (strategy ids): for the heuristic (and every policy
    built on it), ``greedy`` and ``random``, ``np.int64(1)`` if a seat plays it, else None.

    The rules pass it, unpacked, to the ``decide_*`` functions below, whose branch of a
    None-typed policy is pruned before typing: an all-``expert`` run compiles neither
    ``greedy`` nor ``random`` (less to compile on a cold start), a ``random`` run not the
    heuristic.
    """
    ids = {int(s) for s in lineup}
    return (
        ON if any(s >= HEURISTIC for s in ids) else None,
        ON if GREEDY in ids else None,
        ON if RANDOM in ids else None,
    )


# Every ``decide_*`` takes the lineup's policies as its last three arguments (``*strats``,
# see lineup_strategies; by default all): a policy's branch is there only if its argument
# is not None.  The value after the branches is never returned: each of the lineup's
# strategies has its branch.


@njit(cache=True, error_model="numpy", _nrt=False)
def decide_placement(st, pr, p, card, with_heur=ON, with_greedy=ON, with_random=ON):
    """BI-E1: the room (empty, open) where the first player puts ``card``."""
    s = st[nowrap(L.P_STRAT + p)]
    if with_heur is not None:
        if s >= HEURISTIC:
            return heur.place(st, pr, p, card)
    if with_greedy is not None:
        if s == GREEDY:
            return strat_greedy.place(st, pr, p, card)
    if with_random is not None:
        return strat_random.place(st, pr, p, card)
    return -1


# inline: one library less that re-optimises the policies at cold compile; its
# policies' branches are pruned on the block kernel's arguments (``play.play_one``)
@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def decide_action(st, pr, p, with_heur=ON, with_greedy=ON, with_random=ON):
    """BI-N1..N7: fill ``D_ACTION`` and the targets / destinations / launder amount.

    A decision taken ahead of its turn (``G_STASH``, see layout) is played as it is: the
    search seat's choice in a real game, or the candidate a rollout tests.
    """
    if st[L.G_STASH] == st[L.G_TURNS] + 1 and st[L.G_STASH_SEAT] == p:
        st[L.G_STASH] = 0
        st[L.D_ACTION] = st[L.G_STASH_ACTION]
        st[L.D_NT] = st[L.G_STASH_NT]
        st[L.D_PEASANTS] = st[L.G_STASH_PEAS]
        st[L.D_LAUNDER] = st[L.G_STASH_LAUNDER]
        return
    s = st[nowrap(L.P_STRAT + p)]
    if with_heur is not None:
        if s >= HEURISTIC:  # a search seat without a decision ahead (tests) acts as heuristic
            heur.action(st, pr, p)
            return
    if with_greedy is not None:
        if s == GREEDY:
            strat_greedy.action(st, pr, p)
            return
    if with_random is not None:
        strat_random.action(st, pr, p)


@njit(cache=True, error_model="numpy", _nrt=False)
def decide_payment(st, pr, p, action, cost, exclude, with_heur=ON, with_greedy=ON, with_random=ON):
    """BI-N2: ``cost`` cards of the hand (not ``exclude``) into ``D_PAY``."""
    s = st[nowrap(L.P_STRAT + p)]
    if with_heur is not None:
        if s >= HEURISTIC:
            heur.payment(st, pr, p, action, cost, exclude)
            return
    if with_greedy is not None:
        if s == GREEDY:
            strat_greedy.payment(st, pr, p, action, cost, exclude)
            return
    if with_random is not None:
        strat_random.payment(st, pr, p, action, cost, exclude)


@njit(cache=True, error_model="numpy", _nrt=False)
def decide_token_room(st, pr, p, with_heur=ON, with_greedy=ON, with_random=ON):
    """Concierge (Room Service): the open room whose key gets the token."""
    s = st[nowrap(L.P_STRAT + p)]
    if with_heur is not None:
        if s >= HEURISTIC:
            return heur.token_room(st, pr, p)
    if with_greedy is not None:
        if s == GREEDY:
            return strat_greedy.token_room(st, pr, p)
    if with_random is not None:
        return strat_random.token_room(st, pr, p)
    return -1


@njit(cache=True, error_model="numpy", _nrt=False)
def decide_monk_room(st, pr, p, with_heur=ON, with_greedy=ON, with_random=ON):
    """Monk (Room): the white-keyed room that takes the player's key."""
    s = st[nowrap(L.P_STRAT + p)]
    if with_heur is not None:
        if s >= HEURISTIC:
            return heur.monk_room(st, pr, p)
    if with_greedy is not None:
        if s == GREEDY:
            return strat_greedy.monk_room(st, pr, p)
    if with_random is not None:
        return strat_random.monk_room(st, pr, p)
    return -1


@njit(cache=True, error_model="numpy", _nrt=False)
def decide_wages(st, pr, p, max_keep, with_heur=ON, with_greedy=ON, with_random=ON):
    """BI-M3/BI-V5: cards to dismiss into ``D_T`` (at most ``max_keep`` may stay)."""
    s = st[nowrap(L.P_STRAT + p)]
    if with_heur is not None:
        if s >= HEURISTIC:
            heur.wages(st, pr, p, max_keep)
            return
    if with_greedy is not None:
        if s == GREEDY:
            strat_greedy.wages(st, pr, p, max_keep)
            return
    if with_random is not None:
        strat_random.wages(st, pr, p, max_keep)


@njit(cache=True, error_model="numpy", _nrt=False)
def decide_fine(st, pr, p, tens, lo, hi, final, with_heur=ON, with_greedy=ON, with_random=ON):
    """BI-M1: how many cheques (``lo``..``hi``) pay part of ``p``'s fine of ``tens`` times
    10 F (one ten per corpse printed); cash pays the rest.  ``final`` is 1 at the investigation of the game end (BI-G1)."""
    s = st[nowrap(L.P_STRAT + p)]
    if with_heur is not None:
        if s >= HEURISTIC:  # the heuristic and every policy built on it
            return heur.fine(st, pr, p, tens, lo, hi, final)
    if with_greedy is not None:
        if s == GREEDY:
            return strat_greedy.fine(st, pr, p, tens, lo, hi, final)
    if with_random is not None:
        return strat_random.fine(st, pr, p, tens, lo, hi, final)
    return lo


#: Search ranges of the tunable parameters (``sim tune``), per registry name.
BOUNDS = {"heuristic": heur.BOUNDS, "search": {**heur.BOUNDS, **SEARCH_BOUNDS}}

#: Hard limits a config is checked against, per registry name: ``(lo, hi, whole)``.  The
#: heuristic's weights have none (their tuning ranges are not limits: negative weights are
#: allowed on purpose); the search's own parameters are counts and switches.
LIMITS = {"search": {n: (lo, hi, n in SEARCH_WHOLE) for n, (lo, hi) in SEARCH_BOUNDS.items()}}
