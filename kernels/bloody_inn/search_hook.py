"""The search seat's entry points into a game: its night action and its placement.

The game loop (``loop.advance``) and the Evening (``evening.fill_inn``) call these for a seat
playing ``search``.  They cannot import ``strat_search`` themselves: it plays its rollouts
through them (strat_search -> rollout -> loop), and a run without a search seat must not
import it (its functions have explicit signatures, so they compile at import).  So each entry
point is a numba overload that imports ``strat_search`` when a call to it is typed, which
happens only in a caller compiled with ``search`` not None; a caller loaded from the cache
imports nothing.
"""

from numba.extending import overload


def search_action(st, pr, p):
    """Seat ``p`` (``search``) decides its night action ahead of its turn, into the stash
    that ``take_action`` plays (``strat_search.search_action``).  Compiled code only."""
    raise NotImplementedError("search_action is called from compiled code only")


def search_placement(st, pr, p, card):
    """The room where seat ``p`` (``search``, first player) puts ``card`` (BI-E1), or -1 to
    place it as the heuristic does (``strat_search.search_placement``).  Compiled code only."""
    raise NotImplementedError("search_placement is called from compiled code only")


@overload(search_action, inline="always")
def _search_action(st, pr, p):
    from .strat_search import search_action as decide

    def impl(st, pr, p):
        decide(st, pr, p)

    return impl


@overload(search_placement, inline="always")
def _search_placement(st, pr, p, card):
    from .strat_search import search_placement as place

    def impl(st, pr, p, card):
        return place(st, pr, p, card)

    return impl
