"""Cluedo's numeric rule constants as ``[rules]`` values (sim.games.cluedo.adapter ``RULE_CONSTANTS``):
printed by default, a changed value changes what CL-C2 says, a bad value is one line."""

import polars as pl
import pytest

import sim
from sim.errors import ConfigError

BASE = {"game": "cluedo", "players": 3, "seed": 4}


def _events(rules, games=20):
    r = sim.simulate({**BASE, "rules": rules}, games=games, events=True)
    return pl.from_arrow(r.events), r


def test_printed_defaults_are_recorded():
    rules = sim.resolve(BASE)["rules"]
    assert (rules["die_faces"], rules["clue_pile"]) == (6, 29)  # CL-C2: six-sided dice, 29 clue cards


def test_CL_C2_die_faces():
    """Dice of 3 faces roll 1..3 only, and every face shows up; face 1 is still the loupe."""
    ev, _ = _events({"die_faces": 3})
    rolls = ev.filter(pl.col("kind") == "roll")
    faces = set(rolls["a"].to_list()) | set(rolls["b"].to_list())
    assert faces == {1, 2, 3}
    loupes = (rolls["a"] == 1).cast(int) + (rolls["b"] == 1).cast(int)
    assert (rolls["c"] == loupes).all()
    printed, _ = _events({})
    assert set(printed.filter(pl.col("kind") == "roll")["a"].to_list()) == {1, 2, 3, 4, 5, 6}


def test_CL_C2_clue_pile():
    """A pile of 5 clue cards: 5 distinct cards per game in the pile (the printed rules: 29)."""
    ev, _ = _events({"clue_pile": 5})
    pile = ev.filter(pl.col("kind") == "pile")
    per_game = pile.group_by("game_id").agg(pl.len(), pl.col("a").n_unique().alias("distinct"))
    assert (per_game["len"] == 5).all() and (per_game["distinct"] == 5).all()
    assert pile["a"].n_unique() > 5  # a different five each game: drawn from the whole deck
    none, r = _events({"clue_pile": 0}, games=5)
    assert none.filter(pl.col("kind") == "pile").height == 0
    assert none.filter((pl.col("kind") == "roll") & (pl.col("d") == 1)).height == 0  # nothing to draw


@pytest.mark.parametrize(
    "rules,says",
    [
        (
            {"die_faces": 1},
            "rules.die_faces = 1 is invalid; allowed: an integer from 2 to 15 (CL-C2, printed 6)",
        ),
        ({"die_faces": 6.0}, "rules.die_faces = 6.0 is invalid"),
        ({"clue_pile": 30}, "rules.clue_pile = 30 is invalid; allowed: an integer from 0 to 29"),
        ({"clue_pile": True}, "rules.clue_pile = true is invalid"),
    ],
)
def test_bad_constants_are_one_line_errors(rules, says):
    with pytest.raises(ConfigError) as err:
        sim.resolve({**BASE, "rules": rules})
    assert says in str(err.value) and "\n" not in str(err.value)
