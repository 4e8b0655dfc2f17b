"""Strength-ladder verdicts (analysis/ladder.py) on constructed ladders whose answer is known.

"holds" must rest on the differences between adjacent rungs being shown small (equivalence),
not on overlapping intervals; "changes" on a difference clear of 0 after Holm; the games that
"would decide" an undecided number are checked by simulating studies of that many games
from the observed values (binomial games, Wilson intervals) and counting how often they
decide, and against the textbook sample size of two proportions.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from analysis.ladder import verdict, verdicts
from analysis.stats import wilson

RUNGS = ["heuristic", "expert", "search8"]


def _k(est, lo, hi, games=20_000, **kw):
    return {"estimate": est, "lo": lo, "hi": hi, "games": games, **kw}


def _gap(wins, games, players=2):
    """A first-player gap key number from a seat's wins, as the seats question gives it
    (Wilson interval of the share, minus 1/players)."""
    lo, hi = wilson(wins, games)
    f = 1.0 / players
    return _k(wins / games - f, lo - f, hi - f, games)


def _games_printed(sentence):
    m = re.search(r"about ([\d,]+) games per rung", sentence)
    assert m, sentence
    return int(m.group(1).replace(",", ""))


def test_an_effect_that_triples_is_not_holds():
    # the quick study's Distillery lift (heuristic, expert, search8): -2.7 -> -8.5 -> -9.7 pts,
    # every interval below 0 and the top two overlapping (the old rule said "holds")
    distillery = [
        _k(-0.027, -0.035, -0.020),
        _k(-0.085, -0.093, -0.076),
        _k(-0.097, -0.158, -0.027, games=240),
    ]
    word, text = verdict(distillery, RUNGS)
    assert word == "changes" and "between heuristic and expert: -5.8 pts" in text
    assert "between expert and search8" not in text  # that step is not clear of 0


def test_a_sign_flip_or_a_step_at_the_top_changes_and_says_where():
    word, text = verdict([_k(0.01, 0.005, 0.015), _k(-0.04, -0.05, -0.03), _k(-0.04, -0.05, -0.03)], RUNGS)
    assert word == "changes" and "between heuristic and expert: -5.0 pts" in text
    assert "between expert and search8" not in text
    word, text = verdict([_k(-0.04, -0.05, -0.03), _k(-0.04, -0.05, -0.03), _k(-0.1, -0.12, -0.08)], RUNGS)
    assert word == "changes" and "between expert and search8: -6.0 pts" in text
    assert "between heuristic and expert" not in text


def test_overlapping_intervals_can_still_differ():
    # -4.0 [-4.6, -3.4] and -5.0 [-5.6, -4.4] overlap, yet their difference is -1.0 pts with
    # a standard error of about 0.43: clear of 0
    word, text = verdict([_k(-0.040, -0.046, -0.034), _k(-0.050, -0.056, -0.044)], RUNGS[:2])
    assert word == "changes" and "-1.0 pts [-1.8, -0.2]" in text


def test_equal_tight_values_hold():
    same = [_k(-0.040, -0.042, -0.038)] * 3
    assert verdict(same, RUNGS) == ("holds", "holds at every strength (adjacent rungs within ±1 pt)")
    # equal values with intervals too wide to show them within 1 pt of each other: not "holds"
    wide = [_k(-0.040, -0.050, -0.030)] * 3
    assert verdict(wide, RUNGS)[0] == "undecided"
    # the same tight values on both sides of 0: never "holds", whatever the differences
    flip = [_k(0.002, 0.001, 0.003), _k(-0.002, -0.003, -0.001)]
    assert verdict(flip, RUNGS[:2])[0] != "holds"


def test_a_level_holds_within_one_percent_and_changes_beyond():
    rounds = {"zero": False, "unit": "rounds", "digits": 2}
    held = [_k(15.000, 14.99, 15.01, **rounds), _k(15.005, 14.995, 15.015, **rounds)]
    assert verdict(held, RUNGS[:2]) == (
        "holds",
        "holds at every strength (adjacent rungs within ±1% of the value)",
    )
    # 0.05 rounds apart, known to +-0.01: a change, and a small one
    small = [_k(15.00, 14.99, 15.01, **rounds), _k(15.05, 15.04, 15.06, **rounds)]
    assert verdict(small, RUNGS[:2])[1].endswith("each within ±1% of the value)")
    moved = [_k(14.56, 14.55, 14.57, **rounds), _k(15.36, 15.35, 15.37, **rounds)]
    word, text = verdict(moved, RUNGS[:2])
    assert word == "changes" and "+0.80 rounds" in text
    # 0.05 rounds apart but each known only to +-0.1: neither
    vague = [_k(10.0, 9.9, 10.1, **rounds), _k(10.05, 9.95, 10.15, **rounds)]
    assert verdict(vague, RUNGS[:2])[0] == "undecided"


def test_holm_runs_over_the_whole_table():
    # on its own this difference (-0.9 pts, p about 0.03) changes; in a table of 18
    # differences the other 17 of which are nothing, Holm tests it at 0.05 / 18
    alone = [_k(-0.028, -0.034, -0.022), _k(-0.037, -0.043, -0.032)]
    assert verdict(alone, RUNGS[:2])[0] == "changes"
    nothing = [[_k(0.02, 0.01, 0.03), _k(0.02, 0.01, 0.03)]] * 17
    assert verdicts([alone, *nothing], RUNGS[:2])[0][0] == "undecided"
    # beside 17 differences far clear of 0 it is tested last, at 0.05: it changes
    big = [[_k(0.0, -0.005, 0.005), _k(0.1 + i / 100, 0.095 + i / 100, 0.105 + i / 100)] for i in range(17)]
    assert verdicts([alone, *big], RUNGS[:2])[0][0] == "changes"


def test_a_number_that_more_games_do_not_narrow_says_so():
    slope = [_k(0.088, 0.029, 0.148, scales=False), _k(0.022, -0.059, 0.104, scales=False)]
    assert verdict(slope, RUNGS[:2]) == (
        "undecided",
        "undecided (more games would not decide it: the spread between annexes, not the games, "
        "sets the interval)",
    )
    assert verdict([_k(0.01, 0.0, 0.02), None], RUNGS[:2]) == (
        "undecided",
        "measured at fewer than two rungs",
    )
    no_interval = _k(0.01, float("nan"), float("nan"))
    assert verdict([_k(0.01, 0.0, 0.02), no_interval], RUNGS[:2])[1] == "measured at fewer than two rungs"


def _simulate(shares, games, reps, rng):
    """``reps`` ladders of two rungs: the first player's wins drawn from ``shares`` at
    ``games`` per rung; the verdict word of each."""
    wins = rng.binomial(games, shares, size=(reps, len(shares)))
    return [verdict([_gap(w, g) for w, g in zip(row, games)], RUNGS[: len(shares)])[0] for row in wins]


def test_games_to_decide_a_change_give_80_percent_power():
    # weak rung +2 pts, strong rung -1 pt (2 players), 500 games each: the difference is
    # about one standard error, undecided
    shares, n = (0.52, 0.49), 500
    word, text = verdict([_gap(shares[0] * n, n), _gap(shares[1] * n, n)], RUNGS[:2])
    assert word == "undecided" and "80% power to show a change" in text
    big_n = _games_printed(text)
    # the textbook sample size for two proportions, (z + z_power)^2 (p1 q1 + p2 q2) / d^2
    textbook = (1.959964 + 0.841621) ** 2 * sum(p * (1 - p) for p in shares) / (shares[0] - shares[1]) ** 2
    assert big_n == pytest.approx(textbook, rel=0.03)
    # studies of that many games from these shares show the change about 80% of the time
    got = _simulate(np.array(shares), [big_n, big_n], 2000, np.random.default_rng(7))
    rate = got.count("changes") / len(got)
    assert 0.76 <= rate <= 0.84, rate


def test_games_to_decide_that_it_holds_give_80_percent_power():
    # both rungs -4 pts (2 players), 2,000 games each: clear of 0, but the difference is not
    # yet shown within 1 pt
    shares, n = (0.46, 0.46), 2000
    word, text = verdict([_gap(shares[0] * n, n), _gap(shares[1] * n, n)], RUNGS[:2])
    assert word == "undecided" and "80% power to show that it holds" in text
    big_n = _games_printed(text)
    assert 30_000 < big_n < 60_000
    got = _simulate(np.array(shares), [big_n, big_n], 2000, np.random.default_rng(8))
    rate = got.count("holds") / len(got)
    assert 0.76 <= rate <= 0.84, rate


def test_changes_is_rarely_claimed_when_nothing_changes():
    # four numbers, three rungs, every rung the same truth: the chance of any "changes" in
    # the table stays near 5% (Holm over the 8 differences; Monte Carlo error about 0.7 pt)
    rng = np.random.default_rng(11)
    reps, n, p = 1000, 3000, 0.45
    wins = rng.binomial(n, p, size=(reps, 4, 3))
    any_change = 0
    for table in wins:
        rows = [[_gap(w, n) for w in number] for number in table]
        any_change += any(word == "changes" for word, _ in verdicts(rows, RUNGS))
    assert any_change / reps <= 0.07


def test_holds_is_rarely_claimed_when_the_rungs_differ_by_the_margin():
    # -4 and -5 pts apart by exactly the 1-pt margin, 40,000 games each: "holds" (the
    # equivalence test) must be wrong at most about 5% of the time
    rng = np.random.default_rng(12)
    got = _simulate(np.array([0.46, 0.45]), [40_000, 40_000], 1000, rng)
    assert got.count("holds") / len(got) <= 0.065


def test_a_rung_difference_from_wilson_intervals_is_newcombes():
    # MOVER on two Wilson intervals is Newcombe's hybrid score interval (his method 10)
    from analysis.stats import mover_difference, newcombe

    s1, n1, s2, n2 = 30, 200, 55, 250
    (l1, u1), (l2, u2) = wilson(s1, n1), wilson(s2, n2)
    d = mover_difference(s2 / n2, l2, u2, s1 / n1, l1, u1)
    assert (d["diff"], d["lo"], d["hi"]) == pytest.approx(newcombe(s1, n1, s2, n2), abs=1e-12)
