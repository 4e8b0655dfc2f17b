"""Deal covariates: what chance dealt each game, replayed from ``(seed, game id)``.

The control-variate estimator (:mod:`sim.variance`) needs, per game, numbers that the
deal fixes before anyone plays and that do not depend on the compared factor (the seat,
or the strategy).  Each game that has them says so through its adapter's ``deals()``: a
module ``sim/games/<game>/deals.py`` with ``covariates(resolved, first_game, count)`` and
``means(resolved, deals)``, replaying only the game's setup on its own random stream, so no
dataset has to store them and any finished dataset can be re-analysed.  Expected values come
either exact (from the rules) or as the mean over other deals (game ids far beyond any run's,
so never a game that is analysed), whose own error is carried into the interval.
"""

from __future__ import annotations

from . import registry
from .errors import ConfigError

#: calibration deals start at this game id: no run plays that many games
CALIBRATION_FIRST_GAME = 1 << 40
#: deals replayed for the covariates' expected value
CALIBRATION_DEALS = 50_000


def _module(resolved):
    game = resolved.get("game")
    if game not in registry.game_names():
        return None
    return registry.get_adapter(game).deals()


def supported(resolved):
    """Whether the game of ``resolved`` has deal covariates."""
    return _module(resolved) is not None


def covariates(resolved, first_game, count):
    """The deal covariates of games ``first_game .. first_game + count - 1`` of the run
    ``resolved`` (its seed), a ``(count, k)`` float array."""
    mod = _module(resolved)
    if mod is None:
        with_deals = [g for g in registry.game_names() if registry.get_adapter(g).deals() is not None]
        raise ConfigError(
            "game", resolved.get("game"), " or ".join(with_deals) + " (games with deal covariates)"
        )
    return mod.covariates(resolved, first_game, count)


def deal_means(resolved, deals=CALIBRATION_DEALS):
    """The covariates' expected value.

    Returns
    -------
    (mean, cov, deals) : (ndarray, ndarray or None, int or None)
        ``cov`` and ``deals`` None when the mean is exact; else the covariance of the
        covariates and the number of calibration deals (same seed, game ids from
        ``CALIBRATION_FIRST_GAME``: never an analysed game) the mean was taken over.
    """
    return _module(resolved).means(resolved, deals)
