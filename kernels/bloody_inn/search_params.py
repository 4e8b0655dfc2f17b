"""Parameters of the ``search`` strategy (kernels/bloody_inn/strat_search.py).

They follow the 16 heuristic parameters in a search seat's parameter block (indices
``SEARCH_BASE`` on), which the search uses for its candidates, for the decisions it does
not search (payment, placement, wages, Room Service, Monk) and for its rollouts.
"""

SEARCH_BASE = 16  # index of the first search parameter in a seat's block

#: (name, default, meaning), in parameter-block order from ``SEARCH_BASE``.
SEARCH_PARAMS = (
    ("candidates", 4.0, "night actions searched: the heuristic's best few by its own value"),
    (
        "determinizations",
        64.0,
        "samples of the hidden cards (opponents' hands and corpses, the Entrance below its "
        "top card, the box) per decision; every candidate is played on each (common random numbers)",
    ),
    ("rollouts", 1.0, "games played on per candidate and sample (they differ by the rollout's own shuffles)"),
    (
        "rollout_rounds",
        0.0,
        "rounds a rollout plays before it is scored as if the game ended there; 0: to the end",
    ),
    (
        "rollout_policy",
        2.0,
        "policy of every seat in a rollout: 2 heuristic (this seat's parameters), 1 greedy, 0 random",
    ),
    ("budget", 256.0, "most rollouts per decision (determinizations are cut to fit)"),
    (
        "margin_weight",
        0.5,
        "with opponents, the outcome is the win share (ties split) plus this weight x the score "
        "margin over the best opponent / 100",
    ),
    ("gap", 30.0, "candidates valued more than this many francs below the heuristic's best are not searched"),
    (
        "placement",
        1.0,
        "1: as first player, also search where each drawn traveller goes (BI-E1): the heuristic's "
        "best rooms of distinct value, played forward like a night action; 0: the heuristic places",
    ),
    (
        "method",
        1.0,
        "0: determinized Monte Carlo at one ply (DMC); 1: information-set MCTS (SO-ISMCTS) over "
        "the seat's own next tree_depth night actions, as many iterations as DMC plays rollouts",
    ),
    (
        "exploration",
        0.7,
        "ISMCTS: UCB1 constant on the outcome (win share + margin_weight x margin / 100; solo: the score / 40)",
    ),
    ("tree_depth", 2.0, "ISMCTS: own night actions in the tree (1: the root's choice only)"),
    (
        "tree_reuse",
        1.0,
        "ISMCTS, 1: a decision starts from the visits and outcomes its actions had one level "
        "below the seat's last chosen action, and plays only the iterations left of its budget",
    ),
    (
        "common_samples",
        1.0,
        "ISMCTS, 1: a root action's k-th iteration of a decision plays sample k, so the root's "
        "actions are compared on the same samples (common random numbers)",
    ),
)

#: A parameter's value that plays as the code did before the parameter existed: a resolved
#: config that lacks it (a dataset's manifest made then) is played with this value, so it
#: reruns to the same rows; a new config gets the default.
SEARCH_PARAMS_BEFORE = {"tree_reuse": 0.0, "common_samples": 0.0}

SEARCH_BOUNDS = {
    "candidates": (1.0, 12.0),
    "determinizations": (1.0, 256.0),
    "rollouts": (1.0, 8.0),
    "rollout_rounds": (0.0, 30.0),
    "rollout_policy": (0.0, 2.0),
    "budget": (1.0, 4096.0),
    "margin_weight": (0.0, 5.0),
    "gap": (0.0, 1000.0),
    "placement": (0.0, 1.0),
    "method": (0.0, 1.0),
    "exploration": (0.0, 10.0),
    "tree_depth": (1.0, 8.0),
    "tree_reuse": (0.0, 1.0),
    "common_samples": (0.0, 1.0),
}

#: parameters that count something or pick one of a few settings: whole numbers only.  A
#: config outside ``SEARCH_BOUNDS`` or not whole here is refused (the kernels size their
#: scratch by these bounds, and ``placement = 0.5`` would mean nothing)
SEARCH_WHOLE = frozenset(
    ("candidates", "determinizations", "rollouts", "rollout_rounds", "rollout_policy", "budget")
    + ("placement", "method", "tree_depth", "tree_reuse", "common_samples")
)


def search_index(name):
    """Index of search parameter ``name`` in a seat's parameter block (kernels use these
    constants, never literal offsets: the tuple may grow)."""
    return SEARCH_BASE + [n for n, _, _ in SEARCH_PARAMS].index(name)
