"""Small statistics helpers (NumPy; SciPy for the exact Poisson bound).

Every interval in the reports is a 95% interval unless a caller asks otherwise.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import polars as pl

# the interval primitives live in sim's base layer (used there by --precision and sim tune)
from sim.intervals import Z95, norm_sf, score_interval, wilson  # noqa: F401  (analysis.stats.wilson etc.)


def f64(col):
    """Column ``col`` as Float64 (the datasets store counts and flags as narrow integers)."""
    return pl.col(col).cast(pl.Float64)


def wilson_exprs(wins: str, n: str, prefix: str = "share", z: float = Z95):
    """Polars expressions: ``{prefix}``, ``{prefix}_lo``, ``{prefix}_hi`` (Wilson interval)
    from a column of successes and a column of trials."""
    s = pl.col(wins).cast(pl.Float64)
    nn = pl.col(n).cast(pl.Float64)
    p = s / nn
    z2 = z * z
    centre = (p + z2 / (2 * nn)) / (1 + z2 / nn)
    half = z * ((p * (1 - p) / nn + z2 / (4 * nn * nn)).sqrt()) / (1 + z2 / nn)
    return [
        p.alias(prefix),
        (centre - half).clip(0.0, 1.0).alias(f"{prefix}_lo"),
        (centre + half).clip(0.0, 1.0).alias(f"{prefix}_hi"),
    ]


def _gamma_series(a, x):
    term = 1.0 / a
    total = term
    ap = a
    for _ in range(10_000):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_cf(a, x):
    # Lentz's continued fraction for the upper incomplete gamma (Numerical Recipes 6.2).
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi2_sf(stat, df):
    """Survival function P(X >= stat) of the chi-square distribution with ``df`` degrees
    of freedom (regularised upper incomplete gamma Q(df/2, stat/2))."""
    if df <= 0 or stat != stat:
        return float("nan")
    if stat <= 0:
        return 1.0
    a, x = df / 2.0, stat / 2.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _gamma_series(a, x))
    return min(1.0, _gamma_cf(a, x))


def chi2_equal(observed):
    """Chi-square goodness-of-fit test of "all categories equal".

    Parameters
    ----------
    observed : array_like
        Counts per category (wins per seat; shared wins count 1/k).

    Returns
    -------
    (stat, df, p_value)
    """
    obs = np.asarray(observed, dtype=np.float64)
    k = obs.size
    total = obs.sum()
    if k < 2 or total <= 0:
        return float("nan"), max(k - 1, 0), float("nan")
    expected = total / k
    stat = float(((obs - expected) ** 2 / expected).sum())
    return stat, k - 1, chi2_sf(stat, k - 1)


def diff_interval(p1, var1, p2, var2, z=Z95):
    """Normal interval for a difference of two means given their sampling variances."""
    d = p1 - p2
    se = math.sqrt(max(var1 + var2, 0.0))
    return d, d - z * se, d + z * se


def spearman(x, y):
    """Spearman rank correlation (average ranks for ties)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.size < 3:
        return float("nan")
    rx = _avg_ranks(x)
    ry = _avg_ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def _avg_ranks(v):
    order = np.argsort(v, kind="mergesort")
    ranks = np.empty(v.size, dtype=np.float64)
    sv = v[order]
    i = 0
    while i < v.size:
        j = i
        while j + 1 < v.size and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0
        i = j + 1
    return ranks


#: shuffles behind every permutation p-value (its Monte Carlo error is printed with it)
N_PERM = 2000


def permutation_p(x, y, stat=spearman, n_perm=N_PERM, seed=12345):
    """Two-sided permutation p-value of ``stat(x, y)`` against shuffled ``y`` (fixed seed,
    so the same data give the same p-value); ``(hits + 1) / (n_perm + 1)``.  Its Monte
    Carlo error is ``mc_error(p, n_perm)``."""
    observed = stat(x, y)
    if observed != observed:
        return float("nan")
    rng = np.random.default_rng(seed)
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if stat is spearman:
        # Spearman is Pearson on ranks: shuffle the ranks of y, all at once
        rx, ry = _avg_ranks(x), _avg_ranks(y)
        rx = (rx - rx.mean()) / rx.std()
        perms = rng.permuted(np.broadcast_to(ry, (n_perm, ry.size)), axis=1)
        perms = (perms - ry.mean()) / ry.std()
        sims = perms @ rx / rx.size
        hits = int(np.count_nonzero(np.abs(sims) >= abs(observed) - 1e-12))
    else:
        hits = sum(abs(stat(x, rng.permutation(y))) >= abs(observed) - 1e-12 for _ in range(n_perm))
    return (hits + 1) / (n_perm + 1)


# --- normal distribution ---------------------------------------------------------------


def mc_error(p, n):
    """Monte Carlo standard error of a p-value (or a proportion) estimated from ``n``
    random shuffles or resamples."""
    if p is None or p != p or not n:
        return float("nan")
    return math.sqrt(max(p * (1.0 - p), 0.0) / n)


def holm(pvalues):
    """Holm step-down adjusted p-values (family-wise error control, any dependence).

    NaN entries are left NaN and do not count in the family."""
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="mergesort")]
    adj = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(adj)
    return out


def equivalence_p(estimate, se, margin):
    """Two one-sided tests (TOST) of ``|true value| < margin``.

    A small p-value supports equivalence (the value lies within +/- ``margin``); it is the
    larger of the two one-sided normal p-values.  Vectorised; NaN where ``se`` is not
    positive.
    """
    est = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = norm_sf((est + margin) / se)  # H0: value <= -margin
        hi = norm_sf((margin - est) / se)  # H0: value >= +margin
    p = np.where(se > 0, np.maximum(lo, hi), np.nan)
    return float(p) if p.ndim == 0 else p


def mover_difference(a, a_lo, a_hi, b, b_lo, b_hi, z=Z95):
    """Difference ``b - a`` of two independent estimates from their own 95% intervals (MOVER,
    the method of variance estimates recovery: Zou & Donner 2008, the construction behind
    Newcombe's hybrid interval): each side of each interval gives that side's standard error,
    ``(estimate - lo) / 1.96`` and ``(hi - estimate) / 1.96``, and the difference's lower side
    combines ``b``'s lower with ``a``'s upper one.  Skewed intervals (Wilson near 0 or 1) keep
    their skew.

    Returns
    -------
    dict
        ``diff``, ``lo``, ``hi`` (at ``z``), ``se_down`` / ``se_up`` (the standard errors
        towards lower and higher values), ``p_value`` (two-sided, of "no difference": the
        level at which the interval just reaches 0).
    """
    sa_lo, sa_hi = (a - a_lo) / Z95, (a_hi - a) / Z95
    sb_lo, sb_hi = (b - b_lo) / Z95, (b_hi - b) / Z95
    d = b - a
    down, up = math.hypot(sb_lo, sa_hi), math.hypot(sb_hi, sa_lo)
    if d == 0:
        p = 1.0
    else:
        se = down if d > 0 else up
        p = math.erfc(abs(d) / se / math.sqrt(2.0)) if se > 0 else 0.0
    return {"diff": d, "lo": d - z * down, "hi": d + z * up, "se_down": down, "se_up": up, "p_value": p}


def equivalence_p_sides(estimate, se_down, se_up, margin):
    """TOST p-value of ``|true value| < margin`` for an estimate whose standard error
    differs by side (:func:`mover_difference`): the larger of the one-sided p-values of
    "value <= -margin" (``se_down``) and "value >= +margin" (``se_up``)."""

    def tail(x, se):
        if se > 0:
            return 0.5 * math.erfc(x / se / math.sqrt(2.0))
        return 0.0 if x > 0 else 1.0

    return max(tail(estimate + margin, se_down), tail(margin - estimate, se_up))


# --- differences of proportions ----------------------------------------------------------


def newcombe(s1, n1, s2, n2, z=Z95):
    """Newcombe's hybrid score interval for ``p1 - p2`` (his method 10): the two Wilson
    intervals combined, which keeps its coverage near 0 and 1 where the Wald interval
    collapses.

    Returns
    -------
    (diff, low, high)
    """
    p1, p2 = np.asarray(s1, float) / np.asarray(n1, float), np.asarray(s2, float) / np.asarray(n2, float)
    l1, u1 = wilson(s1, n1, z)
    l2, u2 = wilson(s2, n2, z)
    d = p1 - p2
    lo = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    if np.ndim(d) == 0:
        return float(d), float(lo), float(hi)
    return d, lo, hi


def dense_ids(*columns):
    """0-based ids of the distinct combinations of the given integer arrays (and their
    count), e.g. one id per (sweep point, game)."""
    keys = np.stack([np.asarray(c, dtype=np.int64) for c in columns], axis=1)
    _, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    return inv.astype(np.int64), int(inv.max()) + 1 if inv.size else 0


def stratified_lift(win, built, stratum, game, n_games=None, n_strata=None, z=Z95):
    """Win-share difference of builders against non-builders, compared within strata and
    combined with the builders' counts as weights, with a game-clustered interval.

    Parameters
    ----------
    win : ndarray of float
        One entry per (game, seat): 1 for a win, 1/k for a k-way shared win, else 0.
    built : ndarray of bool
        Whether that seat built the annex.
    stratum, game : ndarray of int
        0-based stratum id (seat, player count, strategy, swept parameters) and game id.

    Returns
    -------
    dict
        ``lift``, ``lift_lo``, ``lift_hi``, ``se`` (clustered), ``builders``, ``others``,
        ``builders_share``, ``others_share``, and ``influence``: the per-game influence of
        the estimate (its sum of squares is the clustered variance; differences of two
        lifts on the same games use the difference of their influences).

    Notes
    -----
    The interval is Newcombe's hybrid score interval for the two stratified shares, each
    arm's Wilson interval taken at its Kish effective size, widened (or narrowed) by the
    design effect of the game-clustered variance of the difference over the independent
    one: the seats of a game are dependent (only one can win), and builders and
    non-builders of one game are negatively correlated.  docs/analysis.md gives its
    measured coverage.
    """
    win = np.asarray(win, dtype=np.float64)
    b = np.asarray(built, dtype=bool)
    stratum = np.asarray(stratum, dtype=np.int64)
    game = np.asarray(game, dtype=np.int64)
    S = int(stratum.max()) + 1 if n_strata is None else n_strata
    G = int(game.max()) + 1 if n_games is None else n_games
    n_all = np.bincount(stratum, minlength=S).astype(np.float64)
    s_all = np.bincount(stratum, weights=win, minlength=S)
    nb = np.bincount(stratum, weights=b, minlength=S)
    sb = np.bincount(stratum, weights=win * b, minlength=S)
    no, so = n_all - nb, s_all - sb
    ok = (nb > 0) & (no > 0)
    w = np.where(ok, nb, 0.0)
    W = w.sum()
    out = {"builders": int(nb.sum()), "others": int(no.sum())}
    if W <= 0:
        return {
            **out,
            "lift": np.nan,
            "lift_lo": np.nan,
            "lift_hi": np.nan,
            "se": np.nan,
            "builders_share": np.nan,
            "others_share": np.nan,
            "influence": None,
        }
    with np.errstate(invalid="ignore", divide="ignore"):
        pb = np.where(ok, sb / nb, 0.0)
        po = np.where(ok, so / np.where(no > 0, no, 1), 0.0)
    a = w / W
    Pb, Po = float((a * pb).sum()), float((a * po).sum())
    lift = Pb - Po
    # per-row influence on the two stratified shares, summed per game (linearisation)
    keep = ok[stratum]
    # builders' rows also move the weights: (lift_s - lift) / W per builder
    dlt = pb - po - lift
    rb = np.where(keep & b, (win - pb[stratum] + dlt[stratum]) / W, 0.0)
    ro = np.where(keep & ~b, (win - po[stratum]) * (a / np.where(no > 0, no, 1))[stratum], 0.0)
    ib = np.bincount(game, weights=rb, minlength=G)
    io = np.bincount(game, weights=ro, minlength=G)
    infl = ib - io
    g_used = max(int(np.count_nonzero(np.bincount(game[keep], minlength=G))), 2)
    corr = g_used / (g_used - 1)
    var_cl = corr * float((infl * infl).sum())
    # the same variances as if every seat were an independent draw
    vb0 = float((a * a * pb * (1 - pb) / np.where(nb > 0, nb, 1)).sum())
    vo0 = float((a * a * po * (1 - po) / np.where(no > 0, no, 1)).sum())
    neff_b = 1.0 / float((a * a / np.where(nb > 0, nb, np.inf)).sum())
    neff_o = 1.0 / float((a * a / np.where(no > 0, no, np.inf)).sum())
    lb, ub = wilson(Pb * neff_b, neff_b, z)
    lo_, uo = wilson(Po * neff_o, neff_o, z)
    down = math.sqrt((Pb - lb) ** 2 + (uo - Po) ** 2)
    up = math.sqrt((ub - Pb) ** 2 + (Po - lo_) ** 2)
    deff = var_cl / (vb0 + vo0) if vb0 + vo0 > 0 and var_cl > 0 else 1.0
    f = math.sqrt(deff)
    return {
        **out,
        "lift": lift,
        "lift_lo": lift - f * down,
        "lift_hi": lift + f * up,
        "se": math.sqrt(var_cl),
        "builders_share": Pb,
        "others_share": Po,
        "influence": infl * math.sqrt(corr),
    }


def influence_diff(est_a, infl_a, est_b, infl_b, z=Z95):
    """Normal interval for the difference of two estimates computed on the same games,
    from their per-game influences (the clustered covariance is accounted for).

    Returns
    -------
    (diff, low, high, se)
    """
    d = est_a - est_b
    se = math.sqrt(float(((infl_a - infl_b) ** 2).sum()))
    return d, d - z * se, d + z * se, se


# --- meta-regression ---------------------------------------------------------------------


def _betacf(a, b, x):
    # continued fraction of the incomplete beta (Numerical Recipes 6.4, modified Lentz)
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a, b, x):
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1 - x) / b


def t_sf(t, df):
    """Upper tail P(T >= t) of Student's t with ``df`` degrees of freedom."""
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, x)
    return tail if t >= 0 else 1.0 - tail


@functools.lru_cache(maxsize=256)
def t_quantile(q, df):
    """The ``q`` quantile of Student's t (bisection on ``t_sf``)."""
    lo, hi = -1e4, 1e4
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if 1.0 - t_sf(mid, df) < q:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _random_effects(X, y, se):
    """Random-effects weighted least squares: DerSimonian-Laird between-row variance tau²
    (for a regression), weights 1/(se² + tau²), Hartung-Knapp variance (t on k - p df).

    Returns (beta, cov, df, tau2)."""
    k, p = X.shape
    w = 1.0 / se**2
    XtW = X.T * w
    A = np.linalg.inv(XtW @ X)
    beta = A @ (XtW @ y)
    q_e = float((w * (y - X @ beta) ** 2).sum())
    trace = float(w.sum() - np.trace(A @ ((X.T * w**2) @ X)))
    tau2 = max(0.0, (q_e - (k - p)) / trace) if trace > 0 else 0.0
    w = 1.0 / (se**2 + tau2)
    XtW = X.T * w
    A = np.linalg.inv(XtW @ X)
    beta = A @ (XtW @ y)
    dof = k - p
    q = float((w * (y - X @ beta) ** 2).sum()) / dof if dof > 0 else 1.0
    # the Hartung-Knapp factor, not allowed below 1 (the modified version: never narrower
    # than the random-effects interval)
    return beta, A * max(q, 1.0), dof, tau2


def weighted_mean(y, se, z=Z95):
    """Random-effects mean of values with standard errors (DerSimonian-Laird tau²,
    Hartung-Knapp interval on t with k - 1 df).  One value gives no interval (NaN bounds):
    the spread between values, tau, cannot be estimated from one, and the value's own
    sampling interval leaves it out.

    Returns
    -------
    (mean, low, high)
    """
    y, se = np.asarray(y, float), np.asarray(se, float)
    ok = np.isfinite(y) & np.isfinite(se) & (se > 0)
    y, se = y[ok], se[ok]
    if y.size == 0:
        return np.nan, np.nan, np.nan
    if y.size == 1:
        return float(y[0]), np.nan, np.nan
    beta, cov, dof, _ = _random_effects(np.ones((y.size, 1)), y, se)
    m, s = float(beta[0]), math.sqrt(cov[0, 0])
    t = t_quantile(0.5 + (1 - 2 * norm_sf(z)) / 2, dof)
    return m, m - t * s, m + t * s


def meta_regression(x, y, se, z=Z95):
    """Random-effects meta-regression of ``y`` on ``x``: weights 1/(se² + tau²) with the
    DerSimonian-Laird between-row variance tau², Hartung-Knapp standard error and a t
    test on k - 2 df (the annexes differ by more than their standard errors: a
    fixed-effect fit would reject a true null far too often).

    Returns
    -------
    dict
        ``slope``, ``slope_lo``, ``slope_hi``, ``p_value`` (two-sided), ``intercept``,
        ``tau`` (between-row standard deviation), ``k`` (rows used).
    """
    x, y, se = (np.asarray(v, float) for v in (x, y, se))
    ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(se) & (se > 0)
    x, y, se = x[ok], y[ok], se[ok]
    k = x.size
    nan = {
        "slope": np.nan,
        "slope_lo": np.nan,
        "slope_hi": np.nan,
        "p_value": np.nan,
        "intercept": np.nan,
        "tau": np.nan,
        "k": k,
    }
    if k < 3 or np.ptp(x) == 0:
        return nan
    beta, cov, dof, tau2 = _random_effects(np.column_stack([np.ones(k), x]), y, se)
    slope, s = float(beta[1]), math.sqrt(cov[1, 1])
    t = t_quantile(0.5 + (1 - 2 * norm_sf(z)) / 2, dof)
    p = 2.0 * t_sf(abs(slope) / s, dof) if s > 0 else float("nan")
    return {
        "slope": slope,
        "slope_lo": slope - t * s,
        "slope_hi": slope + t * s,
        "p_value": p,
        "intercept": float(beta[0]),
        "tau": math.sqrt(tau2),
        "k": k,
    }


# --- shares of categories that share games --------------------------------------------------


def clustered_equal_shares(win, category, game, n_categories=None, n_games=None):
    """Game-clustered Wald test that every category (e.g. a Cluedo character) has the same
    win share, when several categories play in each game and at most one wins.

    The win shares' covariance is estimated from per-game sums of the linearised
    residuals, so the negative dependence inside a game (only one seat wins) is in it; the
    plain 2 x K homogeneity table treats every seat as independent and rejects too often.

    Returns
    -------
    (stat, df, p_value)
    """
    win = np.asarray(win, dtype=np.float64)
    c = np.asarray(category, dtype=np.int64)
    g = np.asarray(game, dtype=np.int64)
    K = int(c.max()) + 1 if n_categories is None else n_categories
    G = int(g.max()) + 1 if n_games is None else n_games
    n = np.bincount(c, minlength=K).astype(np.float64)
    present = np.flatnonzero(n > 0)
    if present.size < 2:
        return float("nan"), max(present.size - 1, 0), float("nan")
    s = np.bincount(c, weights=win, minlength=K)
    p = np.where(n > 0, s / np.where(n > 0, n, 1), 0.0)
    if p[present].max() <= 0 or p[present].min() >= 1:
        return float("nan"), present.size - 1, float("nan")
    resid = (win - p[c]) / n[c]
    infl = np.bincount(g * K + c, weights=resid, minlength=G * K).reshape(G, K)[:, present]
    used = max(int(np.count_nonzero(np.bincount(g, minlength=G))), 2)
    V = infl.T @ infl * (used / (used - 1))
    k = present.size
    C = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
    d = C @ p[present]
    M = C @ V @ C.T
    try:
        stat = float(d @ np.linalg.solve(M, d))
    except np.linalg.LinAlgError:
        stat = float(d @ np.linalg.pinv(M) @ d)
    return stat, k - 1, chi2_sf(stat, k - 1)


def clustered_shares(frame, by, game=("point", "game_id"), win="win", n_name="seat_games", z=Z95):
    """Win share per group over its seats, with a game-clustered Wilson interval.

    When a group (a strategy in self-play, an annex's builders) holds several seats of one
    game, those seats are dependent (only one can win): the variance of the share is the
    game-clustered one, and the Wilson interval is taken at the effective sample size
    ``n / deff`` (deff = clustered variance over the binomial one).

    Parameters
    ----------
    frame : pl.LazyFrame or pl.DataFrame
        One row per (game, seat) with the ``by`` and ``game`` columns and ``win``.

    Returns
    -------
    pl.DataFrame
        ``by``, ``n_name``, ``wins``, ``share``, ``share_lo``, ``share_hi``, ``deff``.
    """
    by, game = list(by), list(game)
    w = pl.col(win).cast(pl.Float64)
    per_game = (
        frame.lazy().group_by([*by, *game]).agg(pl.len().cast(pl.Float64).alias("_n"), w.sum().alias("_s"))
    )
    t = (
        per_game.group_by(by)
        .agg(
            pl.col("_n").sum().alias(n_name),
            pl.col("_s").sum().alias("wins"),
            (pl.col("_s") ** 2).sum().alias("_ss"),
            (pl.col("_s") * pl.col("_n")).sum().alias("_sn"),
            (pl.col("_n") ** 2).sum().alias("_nn"),
            pl.len().alias("_g"),
        )
        .collect()
    )
    p, lo, hi, deff = clustered_wilson(
        t[n_name].to_numpy(),
        t["wins"].to_numpy(),
        t["_ss"].to_numpy(),
        t["_sn"].to_numpy(),
        t["_nn"].to_numpy(),
        t["_g"].to_numpy(),
        z,
    )
    return t.select([*by, pl.col(n_name).cast(pl.Int64), "wins"]).with_columns(
        pl.Series("share", p), pl.Series("share_lo", lo), pl.Series("share_hi", hi), pl.Series("deff", deff)
    )


def clustered_wilson(n, s, ss, sn, nn, g, z=Z95):
    """Share ``s / n`` with a Wilson interval at the game-clustered effective sample size,
    from per-game sums: ``ss`` = sum of (successes in a game)^2, ``sn`` = sum of
    successes x seats, ``nn`` = sum of seats^2, ``g`` = games (vectorised).

    Returns
    -------
    (share, low, high, deff)
    """
    n, s, ss, sn, nn = (np.asarray(v, dtype=np.float64) for v in (n, s, ss, sn, nn))
    g = np.asarray(g, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = s / n
        ssq = ss - 2 * p * sn + p * p * nn
        var_cl = np.maximum(ssq, 0.0) / (n * n) * np.where(g > 1, g / (g - 1), 1.0)
        var_bin = p * (1 - p) / n
        deff = np.where((var_bin > 0) & (var_cl > 0), var_cl / var_bin, 1.0)
    lo, hi = wilson(p * n / deff, n / deff, z)
    return p, lo, hi, deff


# --- "which is best" among cells that may share games ---------------------------------------


def imbalance_bootstrap(wins, games, n_ids, n_boot=1000, seed=20_240_601, chunk=100):
    """Bootstrap replicates of each cell's seat imbalance (largest minus smallest seat win
    share).

    Every game id gets one Poisson(1) weight per replicate, *shared by every cell*: the
    points of a sweep play the same game ids from the same seed, so whatever they share is
    resampled together (for differences between cells this is the paired bootstrap).

    Parameters
    ----------
    wins : list of ndarray (games_c, seats)
        Per cell, one row per game: each seat's win (1, 1/k shared, 0).
    games : list of ndarray of int
        Per cell, the game id of each row, in ``[0, n_ids)``.

    Returns
    -------
    ndarray (n_boot, cells)
    """
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, len(wins)))
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        weight = rng.poisson(1.0, (b, n_ids)).astype(np.float64)
        for c, (w, g) in enumerate(zip(wins, games)):
            wg = weight if g.size == n_ids and np.array_equal(g, np.arange(n_ids)) else weight[:, g]
            shares = (wg @ w) / np.maximum(wg.sum(axis=1, keepdims=True), 1.0)
            out[start : start + b, c] = shares.max(axis=1) - shares.min(axis=1)
    return out


def best_set(observed, boots, alpha=0.05):
    """Cells not detectably worse than the best, and each cell's probability of being best.

    A cell is detectably worse than the observed best when the bootstrap distribution of
    its difference to the best lies above 0 beyond the ``alpha / (k - 1)`` quantile
    (Bonferroni over the k - 1 comparisons), so the set holds the truly best cell with
    probability about ``1 - alpha`` or more.

    Returns
    -------
    (best index, in_set bool ndarray, prob_best ndarray)
    """
    observed = np.asarray(observed, dtype=np.float64)
    k = observed.size
    best = int(np.argmin(observed))
    if k == 1:
        return best, np.array([True]), np.array([1.0])
    diff = boots - boots[:, [best]]
    q = np.quantile(diff, alpha / (k - 1), axis=0)
    in_set = q <= 0
    in_set[best] = True
    winners = np.argmin(boots, axis=1)
    prob = np.bincount(winners, minlength=k) / boots.shape[0]
    return best, in_set, prob


# --- paired differences that may be sparse or constant ---------------------------------------


def paired_diff_interval(n, pos_sum, pos_sq, pos_max, neg_sum, neg_sq, neg_max, z=Z95):
    """Interval for the mean of per-unit paired differences in [-1, 1] that may be sparse
    (most units 0) or constant, from sums over the units.  Vectorised.

    The differences are split into their positive and negative parts (``pos = max(d, 0)``,
    ``neg = max(-d, 0)``); each part, scaled by the largest difference seen (1 when every
    unit is 0), gets :func:`score_interval`, and the two are combined as in Newcombe's hybrid
    score interval for paired data (his method 10), with the correlation of the two parts (at
    most 0: a unit has only one sign).  When many units differ it is the normal interval; when
    few or none do, or all differ by the same amount, it keeps the score interval's width
    where the normal one collapses to a point.

    Parameters
    ----------
    n : array_like
        Units (deals).
    pos_sum, pos_sq, pos_max : array_like
        Sum, sum of squares and largest value of the positive parts; ``neg_*`` the same for
        the negative parts.

    Returns
    -------
    (mean, low, high)
    """
    n = np.asarray(n, dtype=np.float64)
    # one scale for both parts, the largest difference seen (1, the largest possible, when
    # every unit is 0): a part never seen is bounded as if its units could differ by as much
    big = np.maximum(np.asarray(pos_max, dtype=np.float64), np.asarray(neg_max, dtype=np.float64))
    c = np.where(big > 0, big, 1.0)
    parts = []
    for s, q in ((pos_sum, pos_sq), (neg_sum, neg_sq)):
        s, q = (np.asarray(v, dtype=np.float64) for v in (s, q))
        with np.errstate(invalid="ignore", divide="ignore"):
            m = s / n
            var = np.maximum(q - n * m * m, 0.0) / np.maximum(n - 1, 1)  # per unit, unscaled
            lo, hi = score_interval(m / c, var / (c * c), n, z)
        parts.append((m, c * np.asarray(lo), c * np.asarray(hi), var))
    (mp, lp, up, vp), (mn, ln, un, vn) = parts
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = -mp * mn * n / np.maximum(n - 1, 1)  # the parts never both differ from 0 in a unit
        rho = np.where((vp > 0) & (vn > 0), cov / np.sqrt(vp * vn), 0.0)
    rho = np.clip(rho, -1.0, 0.0)
    d = mp - mn
    lo = d - np.sqrt((mp - lp) ** 2 + (un - mn) ** 2 - 2 * rho * (mp - lp) * (un - mn))
    hi = d + np.sqrt((up - mp) ** 2 + (mn - ln) ** 2 - 2 * rho * (up - mp) * (mn - ln))
    if np.ndim(d) == 0:
        return float(d), float(lo), float(hi)
    return d, lo, hi


def paired_diff_sums(d, axis=-1):
    """The sums :func:`paired_diff_interval` takes, from an array of per-unit differences."""
    d = np.asarray(d, dtype=np.float64)
    p, q = np.maximum(d, 0.0), np.maximum(-d, 0.0)
    return (
        np.full(np.delete(d.shape, axis % d.ndim), d.shape[axis], dtype=np.float64),
        p.sum(axis),
        (p * p).sum(axis),
        p.max(axis),
        q.sum(axis),
        (q * q).sum(axis),
        q.max(axis),
    )


def paired_diff_p(n, pos_sum, pos_sq, pos_max, neg_sum, neg_sq, neg_max):
    """Two-sided p-value of "the mean paired difference is 0" that agrees with
    :func:`paired_diff_interval`: the level at which its interval just reaches 0 (found by
    bisection on the normal quantile; 1 when the interval holds 0 even at z = 0, about 1e-23
    when it excludes 0 at z = 10).  Vectorised."""
    args = [
        np.atleast_1d(np.asarray(v, dtype=np.float64))
        for v in (n, pos_sum, pos_sq, pos_max, neg_sum, neg_sq, neg_max)
    ]
    lo_z = np.zeros(args[0].shape)
    hi_z = np.full(args[0].shape, 10.0)
    for _ in range(45):
        mid = 0.5 * (lo_z + hi_z)
        _, lo, hi = paired_diff_interval(*args, z=mid)
        excl = (np.asarray(lo) > 0) | (np.asarray(hi) < 0)
        lo_z = np.where(excl, mid, lo_z)
        hi_z = np.where(excl, hi_z, mid)
    p = 2.0 * np.asarray(norm_sf(lo_z))
    return float(p[0]) if np.ndim(n) == 0 else p
