"""Skill vs luck (the ``skill`` question): the variance decomposition on constructed duplicate
deals whose answer is known.

- pure skill: the stronger entry wins every game -> skill share 1, deal and seats 0;
- pure luck: every game a fair coin flip -> skill share about 0, the seats (within-deal) about 1;
- the deal decides: a coin flip per deal, the same winner in both seat orders -> deal share
  about 1;
- a known mix: the stronger entry wins each game independently with probability 3/4 ->
  between-strategy variance 1/16 of a total 1/4 (a Bernoulli(1/2) result overall), skill
  share 1/4.
"""

from __future__ import annotations

import numpy as np
import pytest

from analysis.questions.skill import cell_deal_table, decompose


def _heads_up(a_result, rotations=2):
    """Rows of a 2-entry pairing: entry a's results (deals x rotations), entry b's the
    complement; returns (y, cell, deal) columns."""
    a = np.asarray(a_result, dtype=np.float64)
    deals, rot = a.shape
    assert rot == rotations
    d = np.repeat(np.arange(deals), rot)
    y = np.concatenate([a.ravel(), 1.0 - a.ravel()])
    cell = np.concatenate([np.zeros(a.size, int), np.ones(a.size, int)])
    return y, cell, np.concatenate([d, d])


def _shares(a_result, n_boot=300):
    y, cell, deal = _heads_up(a_result)
    means, ss = cell_deal_table(y, cell, deal, 2)
    return decompose(means, ss, 2, n_boot=n_boot)


def test_pure_skill_the_stronger_always_wins():
    r = _shares(np.ones((200, 2)))
    assert r["skill_share"] == pytest.approx(1.0)
    assert r["skill_share_lo"] == pytest.approx(1.0)
    assert r["deal_share"] == pytest.approx(0.0) and r["within_share"] == pytest.approx(0.0)


def test_pure_luck_coin_flips():
    rng = np.random.default_rng(1)
    r = _shares(rng.integers(0, 2, (2000, 2)))
    assert r["skill_share"] < 0.01
    assert r["skill_share_lo"] == pytest.approx(0.0, abs=1e-12)
    assert r["within_share"] > 0.95


def test_the_deal_decides():
    rng = np.random.default_rng(2)
    per_deal = rng.integers(0, 2, 2000)
    r = _shares(np.stack([per_deal, per_deal], axis=1))
    assert r["deal_share"] > 0.99
    assert r["skill_share"] < 0.01


def test_a_known_mix_of_skill_and_luck():
    rng = np.random.default_rng(3)
    wins = (rng.random((4000, 2)) < 0.75).astype(float)
    r = _shares(wins)
    assert r["skill_share"] == pytest.approx(0.25, abs=0.02)
    assert r["skill_share_lo"] < 0.25 < r["skill_share_hi"]
    assert r["deal_share"] < 0.02


def test_incomplete_deals_are_left_out():
    # a deal of which one rotation is missing does not enter the table
    y, cell, deal = _heads_up(np.ones((10, 2)))
    keep = ~((deal == 3) & (np.arange(deal.size) % 2 == 0))
    means, ss = cell_deal_table(y[keep], cell[keep], deal[keep], 2)
    assert means.shape == (2, 9)
