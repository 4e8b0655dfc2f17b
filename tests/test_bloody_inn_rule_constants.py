"""The Bloody Inn's numeric rule constants as ``[rules]`` values (sim.games.bloody_inn.adapter
``RULE_CONSTANTS``): each one defaults to the printed rules and, changed, changes what its
rule says it changes; a bad value is one line naming the key, the value and what is allowed."""

import pytest
from bloody_inn_harness import LOC, L, Table
from typer.testing import CliRunner

import sim
from kernels.bloody_inn import play
from sim.cli import app
from sim.errors import ConfigError
from sim.games.bloody_inn.adapter import ADAPTER, RULE_CONSTANTS

NO_DISMISS = {"voluntary_dismissal": False}

#: the printed rules (../shared/rules/bloody-inn.md), written out here, not read from the code
PRINTED = {
    "start_cash": 5,  # BI-S3
    "start_cheques": 1,  # BI-S3
    "start_peasants": 2,  # BI-S3
    "solo_bistro_peasants": 2,  # BI-X1
    "room_service_per_rank": 1,  # BI-E2: the traveller's rank
    "peasants_per_bribe": 2,  # BI-N3
    "police_to_investigate": 1,  # BI-M1: at least one police traveller
    "fine_per_corpse": 10,  # BI-M1
    "leave_income_per_room": 1,  # BI-M2
    "wage_per_accomplice": 1,  # BI-M3
    "final_fine_per_corpse": 10,  # BI-G1
}


def test_every_constant_defaults_to_the_printed_rules_and_is_recorded_in_the_resolved_config():
    resolved = sim.resolve({"game": "bloody_inn", "players": 3})
    assert {k: resolved["rules"][k] for k in PRINTED} == PRINTED
    assert set(RULE_CONSTANTS) == set(PRINTED)
    facts = ADAPTER.dataset_facts(resolved)["rule_constants"]
    assert facts["fine_per_corpse"]["rule"] == "BI-M1" and facts["start_cash"]["rule"] == "BI-S3"


# -- BI-S3, BI-X1 -------------------------------------------------------------------------


def test_BI_S3_start_cash_cheques_and_peasants():
    t = Table(3, rules={"start_cash": 12, "start_cheques": 0, "start_peasants": 1})
    for p in range(3):
        assert (t.cash(p), t.cheques(p), len(t.hand(p))) == (12, 0, 1)
    assert all(t.kind(c) == "peasant" for p in range(3) for c in t.hand(p))
    t.check()
    printed = Table(3)
    assert [(printed.cash(p), printed.cheques(p), len(printed.hand(p))) for p in range(3)] == [(5, 1, 2)] * 3


def test_BI_X1_solo_bistro_peasants():
    t = Table(1, rules={"solo_bistro_peasants": 5, "start_peasants": 3})
    assert len(t.bistro()) == 5 and len(t.hand(0)) == 3
    t.check()
    assert len(Table(1).bistro()) == 2


# -- BI-E2 --------------------------------------------------------------------------------


@pytest.mark.parametrize("per_rank,gain", [(1, 2), (3, 6), (0, 0)])
def test_BI_E2_room_service_pays_the_rank_times_the_rate(per_rank, gain):
    """BI-E2: a count (rank 2) placed on seat 1's token pays 2 F printed, 3 F per rank when
    the rate is 3, nothing at 0."""
    t = Table(2, rules={"room_service_per_rank": per_rank}, events=True).clear()
    for r in t.open_rooms():
        if r != 4:
            t.to_room(r, "novice")
    t[L.R_TOKENS + 4 * L.MAXP + 1] = 1
    t.set_money(1, cash=5)
    t.set_entrance("count", "baron")
    assert t.evening()
    assert t.kind(t.room_card(4)) == "count" and t.cash(1) == 5 + gain
    t.check()


# -- BI-N3 --------------------------------------------------------------------------------


@pytest.mark.parametrize("limit,n,ok", [(2, 3, False), (3, 3, True), (3, 4, False), (1, 2, False)])
def test_BI_N3_peasants_one_bribe_may_take(limit, n, ok):
    t = Table(2, rules={"peasants_per_bribe": limit}).clear()
    peasants = t.to_bistro(4)
    assert t.act_bribe(0, peasants=n) is ok
    assert len(t.hand(0)) == (n if ok else 0) and set(t.hand(0)) <= set(peasants)


# -- BI-M1, BI-G1 -------------------------------------------------------------------------


@pytest.mark.parametrize("police,fined", [(1, False), (2, True)])
def test_BI_M1_police_needed_for_an_investigation(police, fined):
    """BI-M1 with ``police_to_investigate = 2``: one police traveller in the inn is not
    enough, two are."""
    t = Table(2, rules={"police_to_investigate": 2, **NO_DISMISS}).clear()
    for r in range(police):
        t.to_room(r, "major")
    body = t.to_corpse(0, "count")[0]
    t.set_money(0, cash=20, cheques=0)
    t.morning()
    if fined:
        assert t.loc(body) == LOC.box and t.p(L.P_FINES, 0) == 10
    else:
        assert t.corpses(0) == [body] and t.p(L.P_FINES, 0) == 0
    t.check()


@pytest.mark.parametrize("fine,cash,cheques,paid_cash,paid_cheques", [(20, 40, 0, 40, 0), (30, 5, 4, 5, 4)])
def test_BI_M1_fine_per_corpse(fine, cash, cheques, paid_cash, paid_cheques):
    """BI-M1 at ``fine`` F per corpse: two corpses cost 2 * fine (cash first, whole tens:
    the random player's choice is fixed by its range), a short player pays what they can."""
    t = Table(2, rules={"fine_per_corpse": fine}).clear()
    t.to_room(3, "major")
    t.to_corpse(0, "duke", "peasant")
    t.set_money(0, cash=cash, cheques=cheques)
    lo, hi = t.fine_range(0, 2 * fine // 10)
    t.investigate(0)
    assert lo <= cheques - t.cheques(0) <= hi
    owed = 2 * fine
    if cash + 10 * cheques >= owed:
        assert (cash - t.cash(0)) + 10 * (cheques - t.cheques(0)) == owed
    else:
        assert (t.cash(0), t.cheques(0)) == (cash - paid_cash, cheques - paid_cheques)
    assert t.corpses(0) == []
    t.check()


def test_BI_G1_final_fine_per_corpse_differs_from_the_morning_fine():
    t = Table(2, rules={"final_fine_per_corpse": 0, "fine_per_corpse": 20}).clear()
    body = t.to_corpse(0, "duke")[0]
    t.set_money(0, cash=30, cheques=0)
    t.investigate(0, final=True)
    assert t.cash(0) == 30 and t.loc(body) == LOC.box
    t.to_corpse(1, "count")
    t.set_money(1, cash=30, cheques=0)
    t.investigate(1)
    assert t.cash(1) == 10


# -- BI-M2, BI-M3 -------------------------------------------------------------------------


def test_BI_M2_leave_income_per_room():
    t = Table(3, rules={"leave_income_per_room": 3}).clear()  # keys: 0, 1, 2, W, W, W
    t.to_room(0, "baron")
    t.to_room(2, "duke")
    t.to_room(3, "count")
    for p in range(3):
        t.set_money(p, cash=10)
    t.travellers_leave()
    assert [t.cash(p) for p in range(3)] == [13, 10, 13]


@pytest.mark.parametrize("wage,cash,kept,left", [(2, 5, 2, 1), (2, 6, 3, 0), (0, 0, 3, 0), (3, 2, 0, 2)])
def test_BI_M3_wage_per_accomplice(wage, cash, kept, left):
    """BI-M3 at ``wage`` F per accomplice: three in hand, as many kept as the cash pays."""
    t = Table(2, rules={"wage_per_accomplice": wage, **NO_DISMISS}).clear()
    t.to_hand(0, "peasant", "duke", "newsboy")
    t.set_money(0, cash=cash, cheques=2)
    t.pay_wages(0)
    assert (len(t.hand(0)), t.cash(0), t.cheques(0)) == (kept, left, 2)
    assert t.p(L.P_WAGES, 0) == kept * wage
    t.check()


# -- whole games ----------------------------------------------------------------------------


def test_constants_reach_whole_games_without_a_new_compile():
    """Games at other values of the constants play with the same compiled kernel (the
    constants are state, not code), and the columns the rules name move: no fines at 0 F,
    no wages at 0 F, the first player's income with richer Room Service."""
    base = {"game": "bloody_inn", "players": 3, "seed": 3, "seats": [{"strategy": "expert"}]}
    printed = sim.simulate(base, games=60)
    before = len(play._play_block.signatures)
    free = sim.simulate(
        {**base, "rules": {"fine_per_corpse": 0, "final_fine_per_corpse": 0, "wage_per_accomplice": 0}},
        games=60,
    )
    assert len(play._play_block.signatures) == before
    assert printed.seats["fines"].to_numpy().sum() > 0 and printed.seats["wages"].to_numpy().sum() > 0
    assert free.seats["fines"].to_numpy().sum() == 0 and free.seats["wages"].to_numpy().sum() == 0


# -- bad values -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules,players,says",
    [
        ({"start_cash": -1}, 3, "rules.start_cash = -1 is invalid; allowed: an integer from 0"),
        ({"start_cash": "5"}, 3, "rules.start_cash = '5' is invalid"),
        ({"start_cheques": True}, 3, "rules.start_cheques = true is invalid"),
        ({"fine_per_corpse": 15}, 3, "rules.fine_per_corpse = 15 is invalid; allowed: a multiple of 10"),
        (
            {"police_to_investigate": 0},
            3,
            "rules.police_to_investigate = 0 is invalid; allowed: an integer from 1",
        ),
        ({"start_cash": 50}, 3, "rules.start_cash = 50 is invalid; allowed: at most rules.wealth_cap = 40"),
        (
            {"start_peasants": 3},
            3,
            "rules.start_peasants = 3 is invalid; allowed: at most 2 with 3 player(s)",
        ),
        ({"start_peasants": 7}, 1, "at most 6 with 1 player(s) and 2 in the Bistro"),
    ],
)
def test_bad_constants_are_one_line_errors(rules, players, says):
    with pytest.raises(ConfigError) as err:
        sim.resolve({"game": "bloody_inn", "players": players, "rules": rules})
    msg = str(err.value)
    assert says in msg and "\n" not in msg


def test_bad_constant_in_a_file_exits_2_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.toml").write_text(
        'game = "bloody_inn"\nplayers = 2\n[rules]\nwage_per_accomplice = 99\n'
    )
    for cmd in ("run", "validate"):
        res = CliRunner().invoke(app, [cmd, "bad.toml"])
        assert res.exit_code == 2, res.output
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: bad.toml")
        assert (
            "rules.wage_per_accomplice = 99" in lines[0]
            and "from 0 to 40" in lines[0]
            and "BI-M3" in lines[0]
        )
    assert not (tmp_path / "results").exists()
