"""One source for each game fact: the copies that remain are the referee's independent ones,
and they agree with the source; the one TOML writer round-trips what it writes."""

from __future__ import annotations

import pytest
import tomllib

from kernels.cluedo import layout as CL
from kernels.layout_tools import enum_names
from sim import api, registry, toml_writer
from sim.games import bloody_inn as bi
from sim.referee.cards import annex_bits as referee_annex_bits
from sim.referee.config import ENTRANCE_SIZE


def test_the_referees_deck_table_is_an_independent_copy_that_agrees():
    assert ENTRANCE_SIZE == bi.DECK_SIZE


@pytest.mark.parametrize("cards", [{}, {"marquis": {"rank": 2}}, {"cultivator": {"copies": 0}}])
def test_annex_bits_agree_between_kernel_facts_and_referee(cards):
    resolved = api.resolve({"game": "bloody_inn", "players": 2, "games": 1, "seed": 0, "cards": cards})
    facts = registry.dataset_facts(resolved)
    assert {cid: i for i, cid in enumerate(facts["annex_bits"])} == referee_annex_bits(resolved)
    # the card table as played carries each annex's bit
    by_id = {c["id"]: c for c in facts["cards"]}
    assert [c for c in facts["annex_bits"] if by_id[c]["annex_bit"] < 0] == []
    assert facts["official_deck_size"]["long"]["3"] == bi.DECK_SIZE[("long", 3)]


def test_the_toml_writer_round_trips():
    doc = {
        "game": "bloody_inn",
        "players": 3,
        "ratio": 0.125,
        "flag": True,
        "name": 'a "quoted" \\ name',
        "rules": {"length": "long", "deck_size": 54, "white_keys": "standard"},
        "seats": [{"strategy": "greedy", "params": {"police_risk": 2.0}}, {"strategy": "random"}],
        "tune": {"best": [1.5, 2.5], "generation": [{"index": 0, "best_params": {"a": 1.0}}]},
    }
    assert tomllib.loads(toml_writer.dumps(doc)) == doc
    text = toml_writer.dumps({"x": 1 / 3}, header=["a comment"], float_digits=3)
    assert text.startswith("# a comment\n") and tomllib.loads(text) == {"x": 0.333}


def test_cluedo_vocabularies_follow_their_enumerations():
    """The event and clue-effect names written to the data are the enumerations' members."""
    names = CL.EV_NAMES
    assert len(set(names)) == len(names) == len(CL.Ev._fields)
    assert (names[CL.EV.PASSAGE], names[CL.EV.DEAL_START], names[CL.EV.PILE]) == (
        "new_passage",
        "deal_start",
        "pile",
    )
    # the referee's independent vocabulary reads every kind the kernel writes under that name
    from sim.referee_cluedo.log import KINDS

    assert set(KINDS) <= set(names) and set(names) - set(KINDS) <= {"deal_start", "pile"}
    assert CL.EFFECT_NAMES == enum_names(CL.Effect)
