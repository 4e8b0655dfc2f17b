"""One source for each game fact: the copies that remain are the referee's independent ones,
and they agree with the source; the one TOML writer round-trips what it writes."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pytest
import tomllib

from kernels.cluedo import layout as CL
from kernels.layout_tools import alloc_columns, column_dtypes, enum_names
from sim import api, registry, toml_writer
from sim.games.bloody_inn import adapter as bi
from sim.games.bloody_inn.referee.cards import annex_bits as referee_annex_bits
from sim.games.bloody_inn.referee.config import ENTRANCE_SIZE


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
    from sim.games.cluedo.referee.log import KINDS

    assert set(KINDS) <= set(names) and set(names) - set(KINDS) <= {"deal_start", "pile"}
    assert CL.EFFECT_NAMES == enum_names(CL.Effect)


def test_a_column_table_allocates_one_zeroed_typed_array_per_field():
    class Cols(NamedTuple):
        rounds: np.int16
        win: np.float32
        mask: np.int32

    assert column_dtypes(Cols) == {"rounds": np.int16, "win": np.float32, "mask": np.int32}
    cols = alloc_columns(Cols, 5)
    assert isinstance(cols, Cols)
    for name, dtype in column_dtypes(Cols).items():
        col = getattr(cols, name)
        assert col.dtype == dtype and col.shape == (5,) and col.flags.c_contiguous
        assert not col.any()
    # separate arrays: a store into one column leaves the others alone
    cols.rounds[2] = 7
    assert cols.win.tolist() == [0.0] * 5 and cols.mask.tolist() == [0] * 5


@pytest.mark.parametrize("game", ["bloody_inn", "cluedo"])
def test_the_tables_carry_the_kernels_columns_with_the_dtypes_of_their_one_table(game):
    """Each game declares its output columns once (``layout.GameCols`` / ``SeatCols``); the
    kernel writes them and every one the Arrow table shows as a number keeps its declared
    dtype, so no adapter narrows a copy of its own."""
    layout = bi.L if game == "bloody_inn" else CL
    rules = {"check_invariants": True} if game == "bloody_inn" else {}
    res = api.simulate({"game": game, "players": 3, "games": 8, "seed": 5, "rules": rules}, threads=1)
    for table, cols in ((res.games, layout.GameCols), (res.seats, layout.SeatCols)):
        shown = [name for name in cols._fields if name in table.schema.names]
        for name in shown:
            typ = table.schema.field(name).type
            if not pa.types.is_string(typ):
                assert typ == pa.from_numpy_dtype(column_dtypes(cols)[name]), (game, name)
        if game == "bloody_inn":  # every kernel column, in the table's order
            assert shown == list(cols._fields)
            names = table.schema.names
            assert [names.index(n) for n in shown] == sorted(names.index(n) for n in shown)


def test_the_bloody_inn_referees_vocabulary_is_the_kernels():
    """The referee's own copy of the log vocabulary (kept apart so it imports no kernel) names
    every event kind and action as the kernel writes them, with the kernel's Barn slot code."""
    from sim.games.bloody_inn.referee import log

    assert log.EVENT_NAMES == bi.L.EVENT_NAMES
    assert log.ACTION_NAMES == bi.L.ACTION_NAMES
    assert log.BARN_SLOT == bi.L.BARN_SLOT


@pytest.mark.parametrize("cards", [{}, {"marquis": {"effect": "discount(bribe;2)+multi_target(kill)"}}])
def test_the_bloody_inn_referee_reads_every_effect_as_the_adapter_does(cards):
    """BI-C5: the referee's own effect parser gives the adapter's reading of every card of the
    table as played (names and arguments, numbers as numbers)."""
    from sim.games.bloody_inn import cards as adapter_cards
    from sim.games.bloody_inn.referee.cards import parse_effect

    resolved = api.resolve({"game": "bloody_inn", "players": 2, "games": 1, "seed": 0, "cards": cards})
    effects = [row["effect"] for row in resolved["cards"]]
    assert any("+" in e for e in effects) and any(";" in e for e in effects)
    for text in effects:
        assert parse_effect(text) == adapter_cards.parse_effect(text), text
    with pytest.raises(ValueError, match="not name"):
        parse_effect("discount(bribe")
