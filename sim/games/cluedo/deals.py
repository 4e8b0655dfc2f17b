"""Cluedo's deal covariates (:mod:`sim.deals`): per seat, its character (CL-S3) and its hand
(CL-S2) — cards held, and how many are suspects, weapons, rooms — replayed from
``(seed, game id)`` by ``kernels/cluedo/deal_features.py``.  Their expected value is the mean
over calibration deals, whose own error is carried into the interval.
"""

from __future__ import annotations

import numpy as np


def covariates(resolved, first_game, count):
    """The covariates of games ``first_game .. first_game + count - 1``, a ``(count, k)`` float array."""
    from kernels.cluedo import layout as L
    from kernels.cluedo.deal_features import seat_deals

    from .adapter import build_tables

    n = resolved["players"]
    tb = build_tables(resolved)
    st = np.zeros(L.STATE_SIZE, np.int64)
    raw = np.zeros((count, n, 3), dtype=np.int64)
    seat_deals(st, tb, np.int64(first_game), np.int64(n), raw)
    bits = (raw[:, :, 1:2] >> np.arange(L.N_CARDS)) & 1  # (count, n, cards)
    # cards 0-5 suspects, 6-11 weapons, 12-20 rooms (CL-S2)
    held = np.stack(
        [bits[:, :, :6].sum(axis=2), bits[:, :, 6:12].sum(axis=2), bits[:, :, 12:].sum(axis=2)], axis=2
    )
    chars = (raw[:, :, 0:1] == np.arange(6)).astype(np.float64)  # (count, n, 6)
    # a seat's own character among its cards, and the character one-hot: the last is left out
    own = np.take_along_axis(bits[:, :, :6], np.clip(raw[:, :, 0:1], 0, 5), axis=2)
    feats = np.concatenate([held, own, chars[:, :, :-1]], axis=2)
    return feats.reshape(count, -1).astype(np.float64)


def means(resolved, deals):
    """The covariates' mean over ``deals`` calibration deals (game ids from
    :data:`sim.deals.CALIBRATION_FIRST_GAME`): ``(mean, covariance, deals)``."""
    from sim.deals import CALIBRATION_FIRST_GAME

    x = covariates(resolved, CALIBRATION_FIRST_GAME, deals)
    return x.mean(axis=0), np.atleast_2d(np.cov(x, rowvar=False)), deals
