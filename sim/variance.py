"""Variance reduction: a control variate from the deal, its coefficients cross-fitted.

A game's result ``y`` (a seat's win share, a lineup entry's) varies with the deal as well as
with the factor compared.  Numbers the deal fixes before anyone plays, ``x`` (``sim.deals``),
have an expected value ``mu`` that no seat, strategy or rule of play can move.  The estimate

    theta = mean_i( y_i - (x_i - mu) . beta_f(i) )

is unbiased for ``E[y]`` whatever ``beta`` is, as long as ``beta`` does not come from game
``i`` itself: ``beta_f`` is fitted (least squares of ``y`` on ``x``) on the games of the other
folds only (cross-fitting; the fold is the unit id modulo ``folds``), so ``x_i - mu`` has
mean 0 and is independent of ``beta_f(i)``.  Fitted on the same games, the coefficients
would chase the noise and the interval would be too narrow (tests/test_variance.py shows
both).  ``mu`` comes from other deals (``sim.deals.deal_means``); its own error is in the
variance.  The variance of the adjusted results over that of ``y`` is the variance ratio:
``1 / ratio`` is how many times fewer games give the same interval.

Nothing here imports a kernel: the covariates are passed in (sim.deals replays them), so
the runner (``--precision``) and the analyses both use it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .intervals import Z95

#: folds of the cross-fit
FOLDS = 10


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95% interval, from plain means or the control variate."""

    estimator: str  # "control variate" or "plain"
    value: float
    se: float
    low: float
    high: float
    units: int
    se_plain: float  # the plain mean's standard error on the same units
    variance_ratio: float  # var(adjusted) / var(plain); < 1 is a gain

    @property
    def half_width(self):
        return (self.high - self.low) / 2

    @property
    def units_for_plain(self):
        """Units the plain mean would need for this estimate's width."""
        return self.units / self.variance_ratio if self.variance_ratio > 0 else math.inf


def plain_mean(y):
    """The plain mean of ``y`` with its normal 95% interval."""
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    se = float(y.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf
    m = float(y.mean()) if n else math.nan
    return Estimate("plain", m, se, m - Z95 * se, m + Z95 * se, n, se, 1.0)


def folds_of(unit_ids, folds=FOLDS):
    """The cross-fit fold of each unit: its id modulo ``folds`` (the same whatever the chunk
    size or thread count)."""
    return np.asarray(unit_ids, dtype=np.int64) % folds


def fit_beta(y, x):
    """Least-squares slopes of ``y`` on ``x`` (with an intercept); minimum-norm when the
    columns are dependent."""
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    xc = x - x.mean(axis=0)
    beta, *_ = np.linalg.lstsq(xc, y - y.mean(), rcond=None)
    return beta


class FoldSums:
    """Sufficient sums of ``y`` and the centred covariates ``x - mu`` per fold: the
    cross-fit is then exact and costs ``O(folds k^2)`` whatever the number of units, and
    units can be added chunk by chunk (``--precision``)."""

    def __init__(self, k, folds=FOLDS):
        self.folds = folds
        self.n = np.zeros(folds)
        self.sy = np.zeros(folds)
        self.syy = np.zeros(folds)
        self.sx = np.zeros((folds, k))
        self.sxx = np.zeros((folds, k, k))
        self.sxy = np.zeros((folds, k))

    def add(self, y, xc, unit_ids):
        """Add units: results ``y``, centred covariates ``xc`` (``x - mu``), their ids."""
        y = np.asarray(y, dtype=np.float64)
        xc = np.asarray(xc, dtype=np.float64).reshape(len(y), -1)
        fold = folds_of(unit_ids, self.folds)
        for f in np.unique(fold):
            m = fold == f
            yf, xf = y[m], xc[m]
            self.n[f] += len(yf)
            self.sy[f] += yf.sum()
            self.syy[f] += yf @ yf
            self.sx[f] += xf.sum(axis=0)
            self.sxx[f] += xf.T @ xf
            self.sxy[f] += xf.T @ yf

    def betas(self):
        """Each fold's slopes, fitted on the other folds' units only."""
        n, sy, sx, sxx, sxy = self.n.sum(), self.sy.sum(), self.sx.sum(0), self.sxx.sum(0), self.sxy.sum(0)
        out = np.zeros_like(self.sx)
        for f in range(self.folds):
            no = n - self.n[f]
            if no < 2:
                continue
            sxo, syo = sx - self.sx[f], sy - self.sy[f]
            cxx = (sxx - self.sxx[f]) - np.outer(sxo, sxo) / no
            cxy = (sxy - self.sxy[f]) - sxo * syo / no
            out[f] = np.linalg.pinv(cxx, rcond=1e-10, hermitian=True) @ cxy
        return out

    def estimate(self, mu_cov=None, mu_units=None):
        """The cross-fitted estimate (see :func:`control_variate`)."""
        n = self.n.sum()
        sy, syy = self.sy.sum(), self.syy.sum()
        pm = sy / n if n else math.nan
        pvar = max(syy - n * pm * pm, 0.0) / (n - 1) if n > 1 else math.inf
        pse = math.sqrt(pvar / n) if n > 1 else math.inf
        plain = Estimate("plain", pm, pse, pm - Z95 * pse, pm + Z95 * pse, int(n), pse, 1.0)
        if (self.n < 2).any() or n < 2 * self.folds:
            return plain
        beta = self.betas()
        s = sum(self.sy[f] - self.sx[f] @ beta[f] for f in range(self.folds))
        s2 = sum(
            self.syy[f] - 2 * beta[f] @ self.sxy[f] + beta[f] @ self.sxx[f] @ beta[f]
            for f in range(self.folds)
        )
        m = s / n
        # the residual degrees of freedom: the folds' slopes share most of their games, so
        # the spread of the adjusted values understates the estimate's by about k / n
        k = self.sx.shape[1]
        se2 = max(s2 - n * m * m, 0.0) / max(n - k - 1, 1) / n
        if mu_cov is not None and mu_units:
            beta_bar = (self.n[:, None] * beta).sum(0) / n
            se2 += float(beta_bar @ np.atleast_2d(mu_cov) @ beta_bar) / mu_units
        se = math.sqrt(se2)
        ratio = se2 / pse**2 if pse > 0 else math.nan
        return Estimate("control variate", float(m), se, m - Z95 * se, m + Z95 * se, int(n), pse, ratio)


def control_variate(y, x, mu, mu_cov=None, mu_units=None, unit_ids=None, folds=FOLDS):
    """Cross-fitted control-variate estimate of ``E[y]``.

    Parameters
    ----------
    y : (n,) array
        One result per unit (a game; a deal's mean over its rotations).
    x : (n, k) array
        The unit's deal covariates.
    mu : (k,) array
        Their expected value, from other deals.
    mu_cov, mu_units : (k, k) array and int, optional
        The covariates' covariance and the number of deals ``mu`` is the mean of: the
        variance of ``mu`` (``mu_cov / mu_units``) is added to the estimate's.  None when
        ``mu`` is exact.
    unit_ids : (n,) array, optional
        Unit ids for the folds (default ``0..n-1``).
    folds : int
        Folds of the cross-fit (at least 2).

    Returns
    -------
    Estimate
        The plain mean when there are fewer than ``2 * folds`` units.
    """
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64).reshape(len(y), -1)
    sums = FoldSums(x.shape[1], folds)
    sums.add(y, x - np.asarray(mu, dtype=np.float64), np.arange(len(y)) if unit_ids is None else unit_ids)
    return sums.estimate(mu_cov, mu_units)
