"""Strategy dispatch: every decision a player makes goes through these functions.

A strategy is a module with ``place``, ``action``, ``payment``, ``token_room``,
``monk_room`` and ``wages`` njit functions and a ``PARAMS`` tuple.  Adding one means
writing that module, one ``elif`` per decision below and one line in ``REGISTRY``.
"""
from numba import njit

from .layout import P_STRAT
from . import strat_random, strat_greedy

RANDOM = 0
GREEDY = 1

#: name -> (id, PARAMS tuple of (name, default, meaning), one-line description)
REGISTRY = {
    "random": (RANDOM, (), "uniform over the legal choices at every decision (the rules fuzzer)"),
    "greedy": (GREEDY, strat_greedy.PARAMS, "takes the choice worth the most francs now"),
}


@njit(cache=True)
def decide_placement(st, pr, p, card):
    """BI-E1: the room (empty, open) where the first player puts ``card``."""
    s = st[P_STRAT + p]
    if s == GREEDY:
        return strat_greedy.place(st, pr, p, card)
    return strat_random.place(st, pr, p, card)


@njit(cache=True)
def decide_action(st, pr, p):
    """BI-N1..N7: fill ``D_ACTION`` and the targets / destinations / launder amount."""
    s = st[P_STRAT + p]
    if s == GREEDY:
        strat_greedy.action(st, pr, p)
    else:
        strat_random.action(st, pr, p)


@njit(cache=True)
def decide_payment(st, pr, p, action, cost, exclude):
    """BI-N2: ``cost`` cards of the hand (not ``exclude``) into ``D_PAY``."""
    s = st[P_STRAT + p]
    if s == GREEDY:
        strat_greedy.payment(st, pr, p, action, cost, exclude)
    else:
        strat_random.payment(st, pr, p, action, cost, exclude)


@njit(cache=True)
def decide_token_room(st, pr, p):
    """Concierge (Room Service): the open room whose key gets the token."""
    s = st[P_STRAT + p]
    if s == GREEDY:
        return strat_greedy.token_room(st, pr, p)
    return strat_random.token_room(st, pr, p)


@njit(cache=True)
def decide_monk_room(st, pr, p):
    """Monk (Room): the white-keyed room that takes the player's key."""
    s = st[P_STRAT + p]
    if s == GREEDY:
        return strat_greedy.monk_room(st, pr, p)
    return strat_random.monk_room(st, pr, p)


@njit(cache=True)
def decide_wages(st, pr, p, max_keep):
    """BI-M3/BI-V5: cards to dismiss into ``D_T`` (at most ``max_keep`` may stay)."""
    s = st[P_STRAT + p]
    if s == GREEDY:
        strat_greedy.wages(st, pr, p, max_keep)
    else:
        strat_random.wages(st, pr, p, max_keep)
