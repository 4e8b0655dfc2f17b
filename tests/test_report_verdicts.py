"""Verdict sentences from constructed results: a clear advantage, none, a change with
strength, a degenerate arm; no verdict claims more than its interval supports."""

from analysis.verdicts import classify, speaking_rung, verdict


def _k(key, est, lo, hi, games=20_000, **kw):
    return {"key": key, "estimate": est, "lo": lo, "hi": hi, "games": games, "unit": "pts", **kw}


def test_clear_advantage_is_stated_with_number_interval_strength_and_scope():
    v = verdict(
        "seats",
        "First player",
        [("expert", [_k("first-player gap, 2p", -0.041, -0.049, -0.033)])],
        scope="every seat plays expert",
    )
    s = v.sentence
    assert s.startswith("Under expert (20,000 games per cell, every seat plays expert)")
    assert "-4.1 pts [-4.9, -3.3]" in s and "below 0" in s


def test_no_advantage_only_when_interval_within_margin():
    narrow = verdict("seats", "t", [("", [_k("gap", 0.001, -0.004, 0.006)])]).sentence
    assert "no advantage" in narrow and "undecided" not in narrow
    # a wide interval holding 0 is not "no advantage"
    wide = verdict("seats", "t", [("", [_k("gap", 0.001, -0.06, 0.06, games=240)])]).sentence
    assert "undecided" in wide and "no advantage" not in wide


def test_strongest_rung_narrow_enough_speaks_and_disagreeing_rung_is_named():
    rungs = [
        ("search8", [_k("gap, 4p", 0.0, -0.06, 0.06, games=240)]),  # strongest, too wide to decide
        ("expert", [_k("gap, 4p", -0.037, -0.045, -0.029)]),
        ("heuristic", [_k("gap, 4p", 0.02, 0.012, 0.028)]),
    ]
    assert speaking_rung(rungs) == 1
    s = verdict("seats", "t", rungs).sentence
    assert s.startswith("Under expert")
    changed = s.split("Changes with strength: ")[1]
    assert changed.startswith("gap, 4p changes with strength (between heuristic and expert: ")
    assert "search8" not in changed


def test_overlapping_rungs_support_without_claiming_sameness():
    rungs = [("expert", [_k("gap", -0.04, -0.05, -0.03)]), ("heuristic", [_k("gap", -0.035, -0.045, -0.025)])]
    s = verdict("seats", "t", rungs).sentence
    assert "Support: heuristic (no change between rungs shown)" in s
    assert "holds" not in s and "same" not in s


def test_overlapping_intervals_with_a_clear_difference_change_with_strength():
    """Overlap is not the test: -4.0 [-4.6, -3.4] and -3.0 [-3.6, -2.4] overlap, yet their
    difference (-1.0 pts, se about 0.43) is clear of 0, as the ladder table says."""
    rungs = [
        ("expert", [_k("gap", -0.040, -0.046, -0.034)]),
        ("heuristic", [_k("gap", -0.030, -0.036, -0.024)]),
    ]
    s = verdict("seats", "t", rungs).sentence
    assert "Changes with strength: gap changes with strength (between heuristic and expert: " in s


def test_degenerate_arm_is_flagged_never_ranked():
    k = _k("bury power", 0.5, 0.5, 0.5, games=5000)
    assert classify(k) == "degenerate"
    s = verdict("power", "Causal power", [("", [k])]).sentence
    assert "degenerate" in s and "not ranked" in s and "above 0" not in s
    # a degenerate number is never a disagreement between rungs
    s2 = verdict("power", "t", [("a", [_k("x", 0.1, 0.05, 0.15)]), ("b", [_k("x", 0.5, 0.5, 0.5)])]).sentence
    assert "Changes with strength" not in s2


def test_nothing_to_say_gives_no_verdict():
    assert verdict("deck", "t", [("", [])]) is None


def test_power_arm_whose_seat_never_won_is_degenerate_not_ranked():
    import polars as pl

    from analysis.verdicts import power_keys

    t = pl.DataFrame(
        {
            "players": [2, 2],
            "target": ["bury", "launder"],
            "units": [100, 100],
            "share_restricted": [0.0, 0.015],
            "power": [0.5, 0.485],
            "power_lo": [0.474, 0.452],
            "power_hi": [0.5, 0.495],
        }
    )
    s = verdict("power", "Causal power", [("", power_keys(t))]).sentence
    assert "bury, 2p +50.0 pts [+47.4, +50.0], degenerate" in s
    assert "launder, 2p +48.5 pts [+45.2, +49.5], above 0" in s
    assert "100 paired deals per cell" in s


def test_a_level_from_few_games_does_not_speak_over_a_precise_rung():
    lvl = dict(unit="rounds", zero=False, digits=2)
    rungs = [
        ("search8", [_k("rounds, 2p", 15.33, 14.92, 15.75, games=6, **lvl)]),
        ("expert", [_k("rounds, 2p", 14.97, 14.96, 14.98, **lvl)]),
    ]
    s = verdict("duration", "t", rungs).sentence
    assert s.startswith("Under expert") and "imprecise" not in s.split("Support")[0]


def test_a_level_is_known_to_its_own_precision():
    """A description (lead changes per game) is read to +-10% of itself, a rate (rounds per
    game) to +-1%: the same interval is a measurement for one and imprecise for the other."""
    lvl = dict(unit="changes", zero=False, digits=2)
    k = _k("lead changes", 3.13, 3.0, 3.26, **lvl)  # +-4% of the value
    assert classify(k) == "imprecise"
    assert classify({**k, "precision": 0.10}) == "level"
    s = verdict("experience", "t", [("", [{**k, "precision": 0.10}])]).sentence
    assert "3.13 changes [3.00, 3.26]" in s and "imprecise" not in s
    wide = {**_k("skill share", 15.3, 13.5, 17.1, unit="%", zero=False), "precision": 0.10}  # +-12%
    s = verdict("skill", "t", [("", [wide])]).sentence
    assert "imprecise (the interval is wider than ±10% of the value)" in s
    s = verdict("skill", "t", [("", [{**wide, "precision": 0.01}])]).sentence
    assert "imprecise (the interval is wider than ±1% of the value)" in s
