"""The Bloody Inn's deal covariates (:mod:`sim.deals`): the Entrance order (BI-S2; the only
chance of the setup), replayed from ``(seed, game id)`` by ``kernels/bloody_inn/deal_features.py``.

Per round of the first season (the first player changes every round, so round ``r`` is placed
by seat ``r mod players``, BI-E1): the travellers' pocket money and rank summed, and how many of
each type.  Their expected value is exact: every Entrance position holds each traveller with
the same chance (BI-S2).
"""

from __future__ import annotations

import numpy as np

_TYPES = ("merchant", "artisan", "religious", "police", "noble")


def covariates(resolved, first_game, count):
    """The covariates of games ``first_game .. first_game + count - 1``, a ``(count, k)`` float array."""
    from kernels.bloody_inn.deal_features import entrance_kinds

    from .adapter import BloodyInnAdapter

    st = BloodyInnAdapter().build_template(resolved)[0]
    kinds = np.zeros((count, resolved["rules"]["deck_size"]), dtype=np.int64)
    entrance_kinds(st, np.int64(resolved["seed"]), np.int64(first_game), kinds)
    return _by_round(resolved, _attrs(resolved)[kinds])


def means(resolved, deals):
    """The covariates' exact expected value: ``(mean, None, None)`` (``deals`` is not used)."""
    # every position of the Entrance is a uniform draw from the travellers (BI-S2)
    attrs = _attrs(resolved)
    copies = np.array([0 if r["type"] in ("peasant", "aid") else r["copies"] for r in resolved["cards"]])
    mean = (attrs * copies[:, None]).sum(axis=0) / copies.sum()
    deck = resolved["rules"]["deck_size"]
    return _by_round(resolved, np.broadcast_to(mean, (1, deck, len(mean))).copy())[0], None, None


def _attrs(resolved):
    """Per card kind: pocket money, rank and a 0/1 per traveller type."""
    return np.array(
        [[r["pocket"], r["rank"]] + [r["type"] == t for t in _TYPES] for r in resolved["cards"]],
        dtype=np.float64,
    )


def _rounds(resolved):
    rules = resolved["rules"]
    open_rooms = resolved["players"] + rules["white_keys_count"]  # BI-S1
    return open_rooms, -(-rules["deck_size"] // open_rooms)


def _by_round(resolved, per_card):
    """``(count, deck, a)`` card attributes in Entrance order -> per season-1 round sums,
    the last type left out (a round's type counts add up to its cards)."""
    count, deck, a = per_card.shape
    open_rooms, rounds = _rounds(resolved)
    pad = rounds * open_rooms - deck
    if pad:
        per_card = np.concatenate([per_card, np.zeros((count, pad, a))], axis=1)
    by_round = per_card.reshape(count, rounds, open_rooms, a).sum(axis=2)
    return by_round[:, :, :-1].reshape(count, -1)
