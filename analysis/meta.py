"""Meta-game ratings from a payoff table: Nash averaging and alpha-Rank.

The payoff table of a round-robin (``sim meta``) is turned into the symmetric zero-sum
*meta-game* ``A`` (antisymmetric: ``A = -A.T``): with 2 players ``A[i, j] = (P[i, j] -
P[j, i]) / 2`` from the win shares ``P`` (``P[i, j] - 1/2`` when every game has a winner);
with 3-4 players the same from the deviator's advantage ``D[i, j]`` (strategy ``i`` alone in
a field of ``j``: its win share minus ``1/n``).

- **Nash averaging** (Balduzzi, Tuyls, Perolat & Graepel, "Re-evaluating evaluation",
  NeurIPS 2018): the maximum-entropy Nash equilibrium ``p`` of ``A``; a strategy's rating is
  its payoff against that mix, ``(A p)_i`` (0 for the strategies in the support, below 0 for
  the others).  Invariant to adding copies of a strategy, which an average over the field is
  not.  The equilibrium comes from nashpy (``Game.linear_program``, the zero-sum linear
  program; a maintained library for exactly this).  Choosing the maximum-entropy one among
  the equilibria is done here by hand (nashpy has no such selection): the optimal row
  strategies of a zero-sum game form a polytope ``{p >= 0, sum p = 1, A.T p >= v}``; one
  linear program per strategy outside nashpy's support (and a best response to its column
  strategy: any other is in no equilibrium's support) finds the largest mass it can take
  there (0: it is in no equilibrium's support), and the entropy is maximised over the
  playable ones (SLSQP, from the average of those points and nashpy's, which lies in the
  polytope's relative interior).
- **alpha-Rank** (Omidshafiei et al., "alpha-Rank: Multi-agent evaluation by evolution",
  Scientific Reports 2019), single population: a Markov chain over the strategies; from a
  population all playing ``s``, a mutant ``r`` (chosen uniformly) takes over with the
  fixation probability of the Moran process at selection intensity ``alpha``; the ranking is
  the chain's stationary distribution.  Written by hand (a few lines) because OpenSpiel, the
  reference implementation (``open_spiel.python.egt.alpharank``), is a 16 MB compiled
  package that is an optional extra here (``pip install boardsim[openspiel]``); when it is
  installed, :func:`alpharank_openspiel` gives its numbers for comparison, and
  tests/test_meta.py checks the two agree.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

#: mass below which a strategy is taken to be outside an equilibrium's support
SUPPORT_TOL = 1e-6
#: OpenSpiel's defaults: selection intensity and population size
ALPHA = 100.0
POPULATION = 50


def antisymmetric(table):
    """The antisymmetric part ``(T - T.T) / 2`` of a square payoff table."""
    t = np.asarray(table, dtype=np.float64)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ValueError(f"a square payoff table is needed, got shape {t.shape}")
    return (t - t.T) / 2.0


def _optimal_set_bounds(A, value, tol, skip=()):
    """Per strategy, the largest mass it has in an optimal row strategy of the zero-sum game
    ``A`` with value ``value`` (one linear program each; the strategies in ``skip`` are known
    to be playable and are not asked), and the maximising points."""
    from scipy.optimize import linprog

    n = A.shape[0]
    # optimal: A.T p >= value (every column pays at least the value), p in the simplex
    a_ub = -A.T
    b_ub = -(value - tol) * np.ones(n)
    best, points = np.zeros(n), []
    for i in range(n):
        if i in skip:
            continue
        c = np.zeros(n)
        c[i] = -1.0
        res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=np.ones((1, n)), b_eq=[1.0], bounds=[(0, 1)] * n)
        if res.status == 0:
            best[i] = res.x[i]
            points.append(res.x)
    return best, points


def maxent_nash(A, tol=1e-9):
    """The maximum-entropy optimal (Nash) strategy of the row player of zero-sum game ``A``.

    Parameters
    ----------
    A : (n, n) array
        Row player's payoffs (the column player gets ``-A``).
    tol : float
        Slack on the value when the set of optimal strategies is described.

    Returns
    -------
    p : (n,) array
        The maximum-entropy equilibrium strategy (sums to 1).
    value : float
        The game's value (0 for an antisymmetric ``A``).
    """
    import nashpy
    from scipy.optimize import minimize

    A = np.asarray(A, dtype=np.float64)
    n = A.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row, col = nashpy.Game(A).linear_program()
    value = float(row @ A @ col)
    row = np.clip(row, 0.0, None) / np.clip(row, 0.0, None).sum()
    # nashpy's equilibrium already shows its support playable: ask the others only
    known = {i for i in range(n) if row[i] > SUPPORT_TOL}
    # a strategy that is no best response to the column's optimal strategy is in no optimal
    # row strategy's support (each one pays the value against it): only the others are asked
    worse = {i for i in range(n) if (A @ col)[i] < value - 1e-7}
    best, points = _optimal_set_bounds(A, value, tol, skip=known | worse)
    best[list(known)] = row[list(known)]
    free = best > SUPPORT_TOL
    if free.sum() <= 1:
        p = np.where(free, 1.0, 0.0)
        return p / p.sum(), value
    start = np.mean([row, *points], axis=0)[free]
    start = start / start.sum()
    Af = A[free]  # rows of the strategies that can be played

    def neg_entropy(x):
        x = np.clip(x, 1e-300, None)
        return float(np.sum(x * np.log(x)))

    def grad(x):
        return np.log(np.clip(x, 1e-300, None)) + 1.0

    cons = [
        {"type": "eq", "fun": lambda x: np.sum(x) - 1.0, "jac": lambda x: np.ones_like(x)},
        {"type": "ineq", "fun": lambda x: Af.T @ x - (value - tol), "jac": lambda x: Af.T},
    ]
    res = minimize(
        neg_entropy,
        start,
        jac=grad,
        constraints=cons,
        bounds=[(0.0, 1.0)] * int(free.sum()),
        method="SLSQP",
        options={"maxiter": 500, "ftol": 1e-12},
    )
    x = res.x if res.success and np.all(Af.T @ res.x >= value - 1e-6) else start
    p = np.zeros(n)
    p[free] = np.clip(x, 0.0, None)
    return p / p.sum(), value


def nash_average(A):
    """Nash averaging of the antisymmetric meta-game ``A``.

    Returns
    -------
    p : (n,) array
        The maximum-entropy Nash equilibrium mix.
    ratings : (n,) array
        ``A @ p``: each strategy's payoff against the mix (0 in the support, < 0 outside).
    """
    p, _ = maxent_nash(A)
    return p, np.asarray(A, dtype=np.float64) @ p


def _log_fixation(u, m):
    """log of the Moran fixation probability ``(1 - e^-u) / (1 - e^-m u)`` (stable)."""
    if abs(u) < 1e-14:
        return -math.log(m)
    if u > 0:
        # (1 - e^-u) / (1 - e^-mu): both terms in (0, 1]
        return math.log(-math.expm1(-u)) - math.log(-math.expm1(-m * u))
    w = -u  # = (e^w - 1) / (e^mw - 1) = e^{(1-m) w} (1 - e^-w) / (1 - e^-mw)
    return (1 - m) * w + math.log(-math.expm1(-w)) - math.log(-math.expm1(-m * w))


def _fitness_gap(M, r, s, k, m, local):
    """Fitness of an ``r`` player minus an ``s`` player with ``k`` of ``m`` playing ``r``."""
    if local:
        return M[r, s] - M[s, r]
    f_r = ((k - 1) * M[r, r] + (m - k) * M[r, s]) / (m - 1)
    f_s = (k * M[s, r] + (m - k - 1) * M[s, s]) / (m - 1)
    return f_r - f_s


def fixation(M, r, s, alpha=ALPHA, m=POPULATION, local=True):
    """Probability that one mutant ``r`` takes over a population of ``m`` playing ``s``.

    ``local=True`` is OpenSpiel's default local selection model (a player's fitness is its
    payoff against the one it meets); ``local=False`` averages over the population:
    ``1 / (1 + sum_l prod_{k<=l} exp(-alpha (f_r(k) - f_s(k))))``.
    """
    if local:
        return math.exp(_log_fixation(alpha * (M[r, s] - M[s, r]), m))
    logs = [0.0]
    acc = 0.0
    for k in range(1, m):
        acc += -alpha * _fitness_gap(M, r, s, k, m, False)
        logs.append(acc)
    top = max(logs)
    return math.exp(-(top + math.log(sum(math.exp(v - top) for v in logs))))


def alpharank(M, alpha=ALPHA, m=POPULATION, local=True):
    """Single-population alpha-Rank of a symmetric payoff table ``M`` (``M[r, s]``: payoff
    of ``r`` against ``s``).

    Returns
    -------
    pi : (n,) array
        The stationary distribution of the strategy-to-strategy Markov chain (the ranking's
        mass; sums to 1).
    """
    M = np.asarray(M, dtype=np.float64)
    n = M.shape[0]
    eta = 1.0 / (n - 1)
    C = np.zeros((n, n))
    for s in range(n):
        for r in range(n):
            if r != s:
                C[s, r] = eta * fixation(M, r, s, alpha, m, local)
        C[s, s] = 1.0 - C[s].sum()
    return stationary(C)


def stationary(C):
    """Stationary distribution of a row-stochastic matrix (``pi C = pi``, ``sum pi = 1``)."""
    n = C.shape[0]
    a = np.vstack([C.T - np.eye(n), np.ones((1, n))])
    b = np.zeros(n + 1)
    b[-1] = 1.0
    pi, *_ = np.linalg.lstsq(a, b, rcond=None)
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


def alpharank_openspiel(M, alpha=ALPHA, m=POPULATION, local=True):
    """OpenSpiel's single-population alpha-Rank of ``M`` (None when OpenSpiel is not
    installed: it is the optional extra ``openspiel``)."""
    try:
        from open_spiel.python.egt import alpharank as osp
    except ImportError:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, _, pi, _, _ = osp.compute(
            [np.asarray(M, dtype=np.float64)], m=m, alpha=alpha, use_local_selection_model=local
        )
    return np.asarray(pi, dtype=np.float64)


def dominant(lo, fair):
    """Indices of strategies whose every off-diagonal interval lies above ``fair``.

    ``lo[i, j]`` is the lower 95% bound of row ``i``'s payoff against column ``j`` (NaN on
    the diagonal).  Dominant means the intervals separate: it beats every other strategy.
    """
    lo = np.asarray(lo, dtype=np.float64)
    n = lo.shape[0]
    off = ~np.eye(n, dtype=bool)
    return [i for i in range(n) if np.all(lo[i][off[i]] > fair)]
