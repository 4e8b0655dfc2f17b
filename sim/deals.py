"""Deal covariates: what chance dealt each game, replayed from ``(seed, game id)``.

The control-variate estimator (:mod:`analysis.variance`) needs, per game, numbers that the
deal fixes before anyone plays and that do not depend on the compared factor (the seat,
or the strategy).  They are recomputed here by replaying only the game's setup on its own
random stream (``kernels/<game>/deal_features.py``), so no dataset has to store them and
any finished dataset can be re-analysed.

- The Bloody Inn: the Entrance order (BI-S2; the only chance of the setup).  Per round of
  the first season (the first player changes every round, so round ``r`` is placed by seat
  ``r mod players``, BI-E1): the travellers' pocket money and rank summed, and how many of
  each type.
- Cluedo: per seat, its character (CL-S3) and its hand (CL-S2): cards held, and how many
  are suspects, weapons, rooms.

Their expected value (:func:`deal_means`) is exact for The Bloody Inn (every Entrance
position holds each traveller with the same chance, BI-S2) and, for Cluedo, the mean over
other deals (game ids far beyond any run's, so never a game that is analysed), whose own
error is carried into the interval.
"""

from __future__ import annotations

import numpy as np

from .errors import ConfigError

#: calibration deals start at this game id: no run plays that many games
CALIBRATION_FIRST_GAME = 1 << 40
#: deals replayed for the covariates' expected value
CALIBRATION_DEALS = 50_000

_BI_TYPES = ("merchant", "artisan", "religious", "police", "noble")


def supported(resolved):
    """Whether the game of ``resolved`` has deal covariates."""
    return resolved.get("game") in ("bloody_inn", "cluedo")


def covariates(resolved, first_game, count):
    """The deal covariates of games ``first_game .. first_game + count - 1`` of the run
    ``resolved`` (its seed), a ``(count, k)`` float array."""
    game = resolved.get("game")
    if game == "bloody_inn":
        return _bloody_inn(resolved, first_game, count)
    if game == "cluedo":
        return _cluedo(resolved, first_game, count)
    raise ConfigError("game", game, "bloody_inn or cluedo (games with deal covariates)")


def deal_means(resolved, deals=CALIBRATION_DEALS):
    """The covariates' expected value.

    Returns
    -------
    (mean, cov, deals) : (ndarray, ndarray or None, int or None)
        ``cov`` and ``deals`` None when the mean is exact; else the covariance of the
        covariates and the number of calibration deals (same seed, game ids from
        ``CALIBRATION_FIRST_GAME``: never an analysed game) the mean was taken over.
    """
    if resolved.get("game") == "bloody_inn":
        return _bloody_inn_mean(resolved), None, None
    x = covariates(resolved, CALIBRATION_FIRST_GAME, deals)
    return x.mean(axis=0), np.atleast_2d(np.cov(x, rowvar=False)), deals


def _bi_attrs(resolved):
    """Per card kind: pocket money, rank and a 0/1 per traveller type."""
    return np.array(
        [[r["pocket"], r["rank"]] + [r["type"] == t for t in _BI_TYPES] for r in resolved["cards"]],
        dtype=np.float64,
    )


def _bi_rounds(resolved):
    rules = resolved["rules"]
    open_rooms = resolved["players"] + rules["white_keys_count"]  # BI-S1
    return open_rooms, -(-rules["deck_size"] // open_rooms)


def _by_round(resolved, per_card):
    """``(count, deck, a)`` card attributes in Entrance order -> per season-1 round sums,
    the last type left out (a round's type counts add up to its cards)."""
    count, deck, a = per_card.shape
    open_rooms, rounds = _bi_rounds(resolved)
    pad = rounds * open_rooms - deck
    if pad:
        per_card = np.concatenate([per_card, np.zeros((count, pad, a))], axis=1)
    by_round = per_card.reshape(count, rounds, open_rooms, a).sum(axis=2)
    return by_round[:, :, :-1].reshape(count, -1)


def _bloody_inn_mean(resolved):
    # every position of the Entrance is a uniform draw from the travellers (BI-S2)
    attrs = _bi_attrs(resolved)
    copies = np.array([0 if r["type"] in ("peasant", "aid") else r["copies"] for r in resolved["cards"]])
    mean = (attrs * copies[:, None]).sum(axis=0) / copies.sum()
    deck = resolved["rules"]["deck_size"]
    return _by_round(resolved, np.broadcast_to(mean, (1, deck, len(mean))).copy())[0]


def _bloody_inn(resolved, first_game, count):
    from kernels.bloody_inn.deal_features import entrance_kinds

    from .games.bloody_inn.adapter import BloodyInnAdapter

    st = BloodyInnAdapter().build_template(resolved)[0]
    rules = resolved["rules"]
    deck = rules["deck_size"]
    kinds = np.zeros((count, deck), dtype=np.int64)
    entrance_kinds(st, np.int64(resolved["seed"]), np.int64(first_game), kinds)
    return _by_round(resolved, _bi_attrs(resolved)[kinds])


def _cluedo(resolved, first_game, count):
    from kernels.cluedo import layout as L
    from kernels.cluedo.deal_features import seat_deals

    from .games.cluedo.adapter import build_tables

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
