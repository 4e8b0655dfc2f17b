"""What a helper process compiles during a cold compile of the block kernel (opt-in).

``kernels.cold_compile.help_compile`` starts a second process when ``play._play_block``
misses the compile cache; it compiles :func:`helper_targets` into the cache while this process
compiles the rest, and this process loads each of them when its typing reaches it.  The
split follows the order in which the block kernel's typing meets the kernels (setup, the
evening, the night action's policy, the night's rules, the morning, the end of the game):
this process types the setup, the evening and the heuristic's ``action``; the helper starts
with the heuristic's own callees, which ``action`` meets only after typing its ~1,000 lines,
then the night's rules, the morning and the scoring, which the block kernel meets after
``action``.  On a quiet two-core machine this process then waits for none of them.  (The
evening too in the helper made the run slower, 16.2 against 14.5 s: this process then
waited for the helper at the morning and the scoring.)

The argument types are those of the calls in ``night.take_action``, ``play.play_one`` and
``strat_heuristic.action``.  If a call changes and its types here do not, nothing breaks —
the helper compiles a version no one asks for and this process compiles the right one
itself, only slower; ``tests/test_cold_compile.py`` fails then, so they are kept in step.
"""

from numba import types

from kernels.sigs import PR, ST, B, F, I

from . import morning, night, scoring, strat_heuristic

# the heuristic's callees that ``action`` calls as functions (not inlined), in the order it
# meets them
_ACTION_CALLEES = (
    (strat_heuristic._exposed_payable, (I, I, I, I, I, I, I, I, I, I, B, I, I, B, F)),
    (strat_heuristic._end_francs, (ST, I, I, F, I)),
    (strat_heuristic._extend_bury, (ST, I, I, I, I, I, F, F)),
    (strat_heuristic._extend_kill, (ST, I, I, I, I, I, F, F, I, I, F, F, I, B, I, I, B, I, F, F, F)),
    (strat_heuristic._extend_bribe, (ST, I, I, I, I, I, F, F, F, F, F, F, F, F)),
)


def helper_targets(block_args):
    """``(dispatcher, argument types)`` for the helper, given the argument types of
    ``play._play_block`` (its ``with_heur, with_greedy, with_random`` are the last three)."""
    flags = tuple(block_args[-3:])
    strats = types.BaseTuple.from_types(flags)  # play_one's (with_heur, with_greedy, with_random)
    targets = list(_ACTION_CALLEES) if flags[0] != types.none else []
    targets += [
        (night.bribe, (ST, PR, I, strats)),
        (night.build, (ST, PR, I, strats)),
        (night.kill, (ST, PR, I, strats)),
        (night.bury, (ST, PR, I, strats)),
        (night.launder, (ST, PR, I)),
        (morning.morning, (ST, PR, strats)),
        (scoring.end_game, (ST, PR, strats)),
    ]
    return targets
