"""The referee's rules on small explicit situations built by hand (not from the kernel).

Each test lays a table, writes the events the rules call for (money after each event worked
out from ``../shared/rules/bloody-inn.md``), checks the referee accepts them, and checks it
objects to the nearest wrong version.  Tests cite the rule ids.
"""

from __future__ import annotations

import pytest

from sim.api import resolve
from sim.games.bloody_inn.referee import ending, evening, morning, night
from sim.games.bloody_inn.referee.config import ENTRANCE_SIZE, RefereeConfig
from sim.games.bloody_inn.referee.divergence import Objection
from sim.games.bloody_inn.referee.game import GameReplay
from sim.games.bloody_inn.referee.log import ACTION_OF, BARN_SLOT, Ev
from sim.games.bloody_inn.referee.state import EXIT, WHITE, Place


def make_cfg(players=2, rules=None, cards=None):
    raw = {"game": "bloody_inn", "players": players, "games": 1, "seed": 0, "rules": rules or {}}
    if cards:
        raw["cards"] = cards
    return RefereeConfig.from_resolved(resolve(raw))


def inst(cfg, kind, nth=0):
    """The ``nth`` card instance of ``kind``."""
    return [c.index for c in cfg.cards if c.kind == kind][nth]


def E(kind, seat=-1, card=-1, a=0, b=0, c=0, cash=-1, cheques=-1, phase="night", rnd=3):
    return Ev(0, rnd, phase, kind, seat, card, a, b, c, cash, cheques)


def A(seat, action, targets, cost, card=-1, cash=5, cheques=1, rnd=3):
    """The ``action`` event that starts a night action (before its payment)."""
    return E(
        "action", seat, card, a=ACTION_OF[action], b=targets, c=cost, cash=cash, cheques=cheques, rnd=rnd
    )


def table(cfg, events, phase="night"):
    """A game in round 3 with keys laid (seat p on room p, then white keys), 5 F and one
    cheque each, and ``events`` to judge."""
    g = GameReplay(cfg, 0, events)
    g.s.round, g.phase = 3, phase
    for p in range(cfg.players):
        g.s.rooms[p].key = p
        g.s.seats[p].cash, g.s.seats[p].cheques = 5, 1
    for r in range(cfg.players, cfg.players + cfg.white_keys):
        g.s.rooms[r].key = WHITE
    return g


def objects(fn, rule):
    with pytest.raises(Objection) as err:
        fn()
    assert err.value.rule == rule, err.value


# --- BI-N6 burial --------------------------------------------------------------------------


def test_bi_n6_odd_pocket_split_burier_takes_larger_half():
    """BI-N6: under another player's annex the pocket money is split; with an odd (edited)
    value the burier takes the larger half: 13 F -> 7 to the burier, 6 to the owner."""
    cfg = make_cfg(cards={"novice": {"pocket": 13}})
    corpse, annex = inst(cfg, "novice"), inst(cfg, "count")
    events = [
        A(0, "bury", 1, 0),  # a rank-0 corpse
        E("bury", 0, corpse, a=annex, b=1, c=7, cash=12, cheques=1),
        E("bury_share", 1, corpse, a=6, b=0, cash=11, cheques=1),
    ]
    g = table(cfg, events)
    g.s.move(corpse, Place("corpse", 0))
    g.s.move(annex, Place("annex", 1))
    night.turn(g, 0)
    assert g.s.fill[annex] == 1 and g.s.seats[0].buried == 1
    g = table(cfg, [events[0], events[1]._replace(c=6, cash=11), events[2]._replace(a=7, cash=12)])
    g.s.move(corpse, Place("corpse", 0))
    g.s.move(annex, Place("annex", 1))
    objects(lambda: night.turn(g, 0), "BI-N6")


def test_bi_n6_barn_holds_one_corpse_and_pocket_is_capped_bi_n8():
    """BI-N6 / BI-C4 / BI-N8: a rank-3 corpse (26 F) under the own Barn with 30 F cash
    keeps 10 F (cap 40); a second corpse in the same Barn is over capacity."""
    cfg = make_cfg(players=2)
    major, other = inst(cfg, "major", 0), inst(cfg, "major", 1)
    hand = [inst(cfg, "baron", k) for k in range(3)]
    pays = [E("pay", 0, h, a=0, b=3, cash=30, cheques=1) for h in hand]
    events = (
        [A(0, "bury", 1, 3, cash=30)]
        + pays
        + [E("bury", 0, major, a=BARN_SLOT - 0, b=0, c=10, cash=40, cheques=1)]
    )
    g = table(cfg, events)
    g.s.seats[0].cash = 30
    for h in hand:
        g.s.move(h, Place("hand", 0))
    g.s.move(major, Place("corpse", 0))
    night.turn(g, 0)
    assert g.s.seats[0].barn_fill == 1 and all(h in g.s.exit for h in hand)
    g2 = table(cfg, [A(0, "bury", 1, 3), E("bury", 0, other, a=BARN_SLOT - 0, b=0, c=0, cash=5, cheques=1)])
    g2.s.seats[0].barn_fill = 1
    g2.s.move(other, Place("corpse", 0))
    g2.s.seats[0].cash = 5
    objects(lambda: night.turn(g2, 0), "BI-N6")


def test_bi_n2_chapel_returns_every_card_paid_for_bury():
    """BI-N6 (Chapel) / BI-N2: with the Chapel every card paid for Bury returns to hand;
    without it, only religious cards (affinity bury) do."""
    cfg = make_cfg()
    corpse, chapel = inst(cfg, "count"), inst(cfg, "priest")
    payers = [inst(cfg, "baron"), inst(cfg, "peasant")]
    events = [
        A(0, "bury", 1, 2),
        E("pay", 0, payers[0], a=1, b=3, cash=5, cheques=1),
        E("pay", 0, payers[1], a=1, b=3, cash=5, cheques=1),
        E("bury", 0, corpse, a=BARN_SLOT, b=0, c=18, cash=23, cheques=1),
    ]
    for with_chapel in (True, False):
        g = table(cfg, events)
        for c in payers:
            g.s.move(c, Place("hand", 0))
        g.s.move(corpse, Place("corpse", 0))
        if with_chapel:
            g.s.move(chapel, Place("annex", 0))
            night.turn(g, 0)
            assert set(payers) <= g.s.seats[0].hand
        else:
            objects(lambda: night.turn(g, 0), "BI-N2")


# --- BI-N3 / BI-N5 / BI-N7 ---------------------------------------------------------------


def test_bi_n3_brewery_bribes_four_peasants():
    """BI-N3: 1 or 2 peasants per bribe, 4 with the Brewery."""
    cfg = make_cfg()
    peasants = [inst(cfg, "peasant", k) for k in range(4)]
    events = [A(0, "bribe", 4, 0)] + [E("bribe", 0, c, a=-1, cash=5, cheques=1) for c in peasants]
    for brewery in (True, False):
        g = table(cfg, events)
        for c in peasants:
            g.s.move(c, Place("bistro"))
        if brewery:
            g.s.move(inst(cfg, "brewer"), Place("annex", 0))
            night.turn(g, 0)
            assert g.s.seats[0].peasants_bribed == 4
        else:
            objects(lambda: night.turn(g, 0), "BI-N3")


def test_bi_n5_discount_once_per_action_with_butchers_shop():
    """BI-N5 / BI-N2: the Butcher's Shop kills several travellers for the sum of their ranks
    (1 + 2); a discount(kill) annex lowers the whole action by 1, once: 2 cards."""
    cfg = make_cfg(cards={"baron": {"effect": "discount(kill)"}})
    g = _butcher_table(cfg, A(0, "kill", 2, 2))
    night.turn(g, 0)
    t1, t2 = inst(cfg, "brigadier"), inst(cfg, "count")
    assert g.s.seats[0].corpses == {t1, t2} and inst(cfg, "peasant") in g.s.bistro


def test_bi_n7_cashing_cheques_stops_at_the_cap():
    """BI-N7 / BI-N8: cheques may be cashed only while cash stays at most 40."""
    cfg = make_cfg()
    g = table(cfg, [A(0, "passing", 0, 0, cash=15, cheques=2), E("launder", 0, a=-2, cash=35, cheques=0)])
    g.s.seats[0].cash, g.s.seats[0].cheques = 15, 2
    night.turn(g, 0)
    g = table(cfg, [A(0, "passing", 0, 0, cash=21, cheques=2), E("launder", 0, a=-2, cash=41, cheques=0)])
    g.s.seats[0].cash, g.s.seats[0].cheques = 21, 2
    objects(lambda: night.turn(g, 0), "BI-N8")


# --- the 'action' event: BI-N1 count, BI-N2 cost, targets, built card ------------------------


def _solo_bistro(cfg, events, n=3):
    g = table(cfg, events)
    peasants = [inst(cfg, "peasant", k) for k in range(n)]
    for c in peasants:
        g.s.move(c, Place("bistro"))
    return g, peasants


def test_bi_n1_solo_night_split_by_the_action_events():
    """BI-N1 / BI-N3: a solo player takes two actions in a row; two free Bistro bribes
    (2 + 1 peasants, or 1 + 2) are told apart by the 'action' events alone."""
    cfg = make_cfg(players=1)
    peasants = [inst(cfg, "peasant", k) for k in range(3)]
    bribes = [E("bribe", 0, c, a=-1, cash=5, cheques=1) for c in peasants]
    for first in (2, 1):
        events = [A(0, "bribe", first, 0)] + bribes[:first] + [A(0, "bribe", 3 - first, 0)] + bribes[first:]
        g, _ = _solo_bistro(cfg, events)
        night.night(g)
        assert g.turns == 2 and g.s.seats[0].peasants_bribed == 3
        assert set(peasants) <= g.s.seats[0].hand
    # three peasants in one bribe (no Brewery): the action events say so
    g, _ = _solo_bistro(cfg, [A(0, "bribe", 3, 0)] + bribes)
    objects(lambda: night.night(g), "BI-N3")
    # the action event announces one peasant, two follow
    g, _ = _solo_bistro(cfg, [A(0, "bribe", 1, 0)] + bribes[:2] + [A(0, "bribe", 1, 0)] + bribes[2:])
    objects(lambda: night.night(g), "BI-N3")
    # only one action in the night (its second 'action' event missing)
    g, _ = _solo_bistro(cfg, [A(0, "bribe", 2, 0)] + bribes[:2])
    objects(lambda: night.night(g), "BI-N1")
    # an action event with nothing after it (logged twice)
    g, _ = _solo_bistro(
        cfg, [A(0, "bribe", 2, 0), A(0, "bribe", 2, 0)] + bribes[:2] + [A(0, "bribe", 1, 0)] + bribes[2:]
    )
    objects(lambda: night.night(g), "BI-N1")


def _butcher_table(cfg, act):
    """Seat 0 with the Butcher's Shop and the Baron's annex, a brigadier and a count (ranks 1
    and 2) in white rooms 4 and 5, a major (police: returns on kill) and a peasant in hand;
    the log: ``act``, both payments, both kills."""
    t1, t2 = inst(cfg, "brigadier"), inst(cfg, "count")  # ranks 1 and 2
    payers = [inst(cfg, "major", 0), inst(cfg, "peasant")]  # police returns (kill)
    events = [
        act,
        E("pay", 0, payers[0], a=1, b=2, cash=5, cheques=1),
        E("pay", 0, payers[1], a=0, b=2, cash=5, cheques=1),
        E("kill", 0, t1, a=4, b=2, cash=5, cheques=1),
        E("kill", 0, t2, a=5, b=2, cash=5, cheques=1),
    ]
    g = table(cfg, events)
    g.s.rooms[4].key = g.s.rooms[5].key = WHITE
    g.s.move(t1, Place("room", 4))
    g.s.move(t2, Place("room", 5))
    for c in payers:
        g.s.move(c, Place("hand", 0))
    g.s.move(inst(cfg, "butcher"), Place("annex", 0))
    g.s.move(inst(cfg, "baron"), Place("annex", 0))
    return g


def test_bi_n2_action_event_cost_and_targets():
    """BI-N2: the 'action' event's cost is the sum of the targets' ranks minus the discount,
    once (1 + 2 - 1 = 2), not the undiscounted 3 nor a per-target discount (1); BI-N5: its
    target count is the number of travellers killed; BI-N1: its action id is the action's."""
    cfg = make_cfg(cards={"baron": {"effect": "discount(kill)"}})
    night.turn(_butcher_table(cfg, A(0, "kill", 2, 2)), 0)
    for cost in (3, 1):
        g = _butcher_table(cfg, A(0, "kill", 2, cost))
        objects(lambda: night.turn(g, 0), "BI-N2")
        assert g.current.kind == "action"
    g = _butcher_table(cfg, A(0, "kill", 1, 2))
    objects(lambda: night.turn(g, 0), "BI-N5")
    g = _butcher_table(cfg, A(0, "bribe", 2, 2))
    objects(lambda: night.turn(g, 0), "BI-N1")
    g = _butcher_table(cfg, A(1, "kill", 2, 2))  # another seat's action
    objects(lambda: night.turn(g, 0), "BI-N1")


def test_bi_n6_bury_cost_counts_no_peasant():
    """BI-N6 / BI-N2: with the Crypt a peasant corpse (cost 0) and a rank-2 corpse are
    buried for 2 cards; the 'action' event says 2 targets and cost 2."""
    cfg = make_cfg()
    peasant, count = inst(cfg, "peasant"), inst(cfg, "count")
    payers = [inst(cfg, "baron", 0), inst(cfg, "baron", 1)]
    crypt = inst(cfg, "archbishop")

    def run(act):
        events = (
            [act]
            + [E("pay", 0, c, a=0, b=3, cash=5, cheques=1) for c in payers]
            + [
                E("bury", 0, peasant, a=BARN_SLOT, b=0, c=4, cash=9, cheques=1),
                E("bury", 0, count, a=crypt, b=0, c=18, cash=27, cheques=1),
            ]
        )
        g = table(cfg, events)
        for c in payers:
            g.s.move(c, Place("hand", 0))
        for c in (peasant, count):
            g.s.move(c, Place("corpse", 0))
        g.s.move(crypt, Place("annex", 0))
        night.turn(g, 0)
        return g

    assert run(A(0, "bury", 2, 2)).s.seats[0].buried == 2
    objects(lambda: run(A(0, "bury", 2, 3)), "BI-N2")
    objects(lambda: run(A(0, "bury", 1, 2)), "BI-N6")


def test_bi_n4_action_event_names_the_built_card():
    """BI-N4 / BI-N2: a Workshop (discount(build)) makes a rank-2 build cost 1 card; the
    'action' event names the card being built and that cost."""
    cfg = make_cfg()
    built, payer = inst(cfg, "distiller"), inst(cfg, "baron")

    def run(act):
        events = [
            act,
            E("pay", 0, payer, a=0, b=1, cash=5, cheques=1),
            E("build", 0, built, a=1, cash=5, cheques=1),
        ]
        g = table(cfg, events)
        for c in (built, payer):
            g.s.move(c, Place("hand", 0))
        g.s.move(inst(cfg, "mechanic"), Place("annex", 0))
        night.turn(g, 0)
        return g

    assert built in run(A(0, "build", 1, 1, card=built)).s.seats[0].annexes
    objects(lambda: run(A(0, "build", 1, 1, card=payer)), "BI-N4")
    objects(lambda: run(A(0, "build", 1, 2, card=built)), "BI-N2")


def test_refused_decision_is_a_lone_pass():
    """A decision the kernel refused is logged as 'passing' with a = -1 and no 'action'
    event: legal as a pass and counted; after an 'action' event it is a LOG-2 divergence."""
    cfg = make_cfg()
    g = table(cfg, [E("passing", 0, a=-1, b=ACTION_OF["kill"], cash=5, cheques=1)])
    night.turn(g, 0)
    assert g.fallback_passes == 1 and g.turns == 1
    g = table(cfg, [A(0, "kill", 1, 0), E("passing", 0, a=-1, b=ACTION_OF["kill"], cash=5, cheques=1)])
    objects(lambda: night.turn(g, 0), "LOG-2")
    g = table(cfg, [A(0, "passing", 0, 0), E("passing", 0, a=0, cash=5, cheques=1)])
    night.turn(g, 0)
    assert g.fallback_passes == 0


# --- BI-E evening ---------------------------------------------------------------------------


def test_bi_e2_room_service_pays_rank_times_tokens():
    """BI-E2: a rank-2 traveller placed in a room with seat 1's token pays seat 1 2 F."""
    cfg = make_cfg()
    guest = inst(cfg, "count")
    events = [
        E("place", 0, guest, a=3, cash=5, cheques=1, phase="evening"),
        E("room_service", 1, guest, a=2, b=3, c=1, cash=7, cheques=1, phase="evening"),
    ]
    g = table(cfg, events, phase="evening")
    g.s.rooms[3].tokens[1] = 1
    g.s.move(guest, Place("entrance"))
    g.s.entrance = [guest]
    evening.place(g, guest)
    assert g.s.seats[1].cash == 7


def _exact_fill(season_change):
    """Two players, 5 open rooms, the Entrance's last 5 cards fill the inn exactly, 2 cards
    in the Exit; the log shuffles the Exit right after the fifth placement."""
    cfg = make_cfg(rules={"season_change": season_change})
    guests = [inst(cfg, "baron", k) for k in range(4)] + [inst(cfg, "novice", 0)]
    old_exit = [inst(cfg, "duke"), inst(cfg, "prince")]
    events = [E("place", 0, c, a=r, cash=5, cheques=1, phase="evening") for r, c in enumerate(guests)]
    events += [E("season", -1, c, a=i, phase="evening") for i, c in enumerate(old_exit)]
    g = table(cfg, events, phase="evening")
    g.s.rooms[4].key = WHITE
    for i, c in enumerate(guests):
        g.s.move(c, Place("entrance", -1, i))
    g.s.entrance = list(guests)
    for c in old_exit:
        g.s.move(c, EXIT)
    return g, old_exit


def test_bi_e3_the_exit_is_shuffled_when_the_last_card_is_drawn():
    """BI-E3: the last card filling the inn still changes the season that Evening."""
    g, old_exit = _exact_fill("when_empty")
    assert evening.evening(g) is True
    assert g.s.season == 2 and g.s.entrance == old_exit and not g.s.exit


def test_bi_v11_on_next_draw_refuses_the_early_shuffle_and_bi_e3_the_late_one():
    """BI-V11 ``on_next_draw``: the shuffle waits for the next draw, so a log shuffling
    right after the last placement is refused; under BI-E3 a log that does not shuffle
    then is refused."""
    g, _ = _exact_fill("on_next_draw")
    objects(lambda: evening.evening(g), "BI-E3")
    g, _ = _exact_fill("when_empty")
    g.events = [e for e in g.events if e.kind != "season"]
    objects(lambda: evening.evening(g), "BI-E3")


def test_a_config_without_the_new_flags_is_replayed_with_the_old_readings():
    """BI-V11 / BI-V12: a dataset resolved before these flags existed was played with the
    Exit shuffled at the next draw and stacking tokens; a resolved config names them."""
    raw = {"game": "bloody_inn", "players": 2, "games": 1, "seed": 0}
    resolved = resolve(raw)
    new = RefereeConfig.from_resolved(resolved)
    assert (new.season_on_next_draw, new.one_token_per_room) == (False, True)
    for key in ("season_change", "room_service_per_room"):
        del resolved["rules"][key]
    old = RefereeConfig.from_resolved(resolved)
    assert (old.season_on_next_draw, old.one_token_per_room) == (True, False)


def test_bi_e4_last_round_needs_as_many_travellers_as_players():
    """BI-E4: when the Entrance runs out the second time the round is played only if at
    least as many travellers as players are in the inn."""
    cfg = make_cfg(players=3)
    guest = inst(cfg, "count")
    g = table(cfg, [E("last_round", a=1, b=0, phase="evening")], phase="evening")
    g.s.season = 2
    g.s.move(guest, Place("room", 0))
    assert evening.evening(g) is False
    g = table(cfg, [E("last_round", a=1, b=1, phase="evening")], phase="evening")
    g.s.season = 2
    g.s.move(guest, Place("room", 0))
    objects(lambda: evening.evening(g), "BI-E4")


# --- BI-M morning ----------------------------------------------------------------------------


def _fine_table(cfg, corpses, cash, cheques, paid_cash, paid_cheques, final=False):
    """Seat 0 with ``corpses`` unburied corpses, police in room 1, the money given, and a
    log that pays ``paid_cash`` F and ``paid_cheques`` cheques."""
    bodies = [inst(cfg, "peasant", k) for k in range(corpses)]
    phase = "end" if final else "morning"
    after = dict(cash=cash - paid_cash, cheques=cheques - paid_cheques, phase=phase)
    kind = "final_investigation" if final else "investigation"
    events = [E(kind, 0, a=corpses, b=paid_cash, c=paid_cheques, **after)]
    events += [E("corpse_boxed", 0, c, **after) for c in bodies]
    g = table(cfg, events, phase=phase)
    g.s.seats[0].cash, g.s.seats[0].cheques = cash, cheques
    for c in bodies:
        g.s.move(c, Place("corpse", 0))
    g.s.move(inst(cfg, "major"), Place("room", 1))
    return g, bodies


@pytest.mark.parametrize("final", [False, True])
def test_bi_m1_any_legal_split_of_the_fine(final):
    """BI-M1 (and BI-G1's final investigation): 30 F owed with 25 F and 2 cheques may be
    paid 20 F + 1 cheque or 10 F + 2 cheques, the player's choice; the corpses are boxed."""
    cfg = make_cfg()
    for paid in ((20, 1), (10, 2)):
        g, bodies = _fine_table(cfg, 3, 25, 2, *paid, final=final)
        morning.investigation(g, final=final)
        seat = g.s.seats[0]
        assert seat.fines == 30 and (seat.cash, seat.cheques) == (25 - paid[0], 2 - paid[1])
        assert all(c in g.s.box for c in bodies)


@pytest.mark.parametrize(
    "corpses,cash,cheques,paid",
    [
        (3, 25, 2, (25, 0)),  # can pay 30 F but pays 25
        (3, 25, 2, (20, 2)),  # pays 40 F for a 30 F fine
        (1, 40, 3, (0, 2)),  # two cheques for one corpse
        (2, 14, 0, (10, 0)),  # short but keeps 4 F
        (3, 14, 1, (14, 0)),  # short but keeps the cheque
        (1, 5, 0, (10, 0)),  # pays cash it does not have
    ],
)
def test_bi_m1_illegal_splits_are_refused(corpses, cash, cheques, paid):
    """BI-M1: a split must pay exactly 10 F per corpse from what the player has, or, when
    the player is short, everything they have."""
    g, _ = _fine_table(make_cfg(), corpses, cash, cheques, *paid)
    objects(lambda: morning.investigation(g, final=False), "BI-M1")


def test_bi_m1_short_player_pays_everything():
    """BI-M1: 20 F owed with 4 F and 1 cheque: the cheque and the 4 F."""
    g, _ = _fine_table(make_cfg(), 2, 4, 1, 4, 1)
    morning.investigation(g, final=False)
    assert (g.s.seats[0].cash, g.s.seats[0].cheques, g.s.seats[0].fines) == (0, 0, 14)


def test_bi_m1_no_investigation_without_police():
    """BI-M1 / BI-N5: no police traveller in a room, no fine."""
    cfg = make_cfg()
    corpse = inst(cfg, "peasant")
    g = table(
        cfg, [E("investigation", 0, a=1, b=5, c=0, cash=0, cheques=1, phase="morning")], phase="morning"
    )
    g.s.move(corpse, Place("corpse", 0))
    objects(lambda: morning.investigation(g, final=False), "BI-M1")


def test_bi_m2_gardens_pay_two_even_without_guests():
    """BI-M2: 1 F per own-keyed room with a traveller, +2 F with the Gardens."""
    cfg = make_cfg()
    g = table(cfg, [E("leave_income", 0, a=2, b=0, c=2, cash=7, cheques=1, phase="morning")], phase="morning")
    g.s.move(inst(cfg, "gardener"), Place("annex", 0))
    morning.travellers_leave(g)
    assert g.s.seats[0].cash == 7


def test_bi_m3_distillery_and_cash_only_wages():
    """BI-M3: 3 accomplices, 1 F cash and the Distillery (one free): two can stay, one must
    go; wages are 1 F in cash."""
    cfg = make_cfg()
    hand = [inst(cfg, "peasant", k) for k in range(3)]
    events = [
        E("dismiss", 0, hand[0], cash=1, cheques=1, phase="morning"),
        E("wages", 0, a=1, b=2, c=1, cash=0, cheques=1, phase="morning"),
    ]
    g = table(cfg, events, phase="morning")
    g.s.seats[0].cash = 1
    for c in hand:
        g.s.move(c, Place("hand", 0))
    g.s.move(inst(cfg, "distiller"), Place("annex", 0))
    morning.wages(g)
    assert hand[0] in g.s.bistro and g.s.seats[0].wages == 1
    g = table(cfg, events[1:], phase="morning")  # keeping all three is not affordable
    g.s.seats[0].cash = 1
    for c in hand:
        g.s.move(c, Place("hand", 0))
    g.s.move(inst(cfg, "distiller"), Place("annex", 0))
    objects(lambda: morning.wages(g), "BI-M3")


# --- BI-G end -------------------------------------------------------------------------------


def test_bi_g3_places_tie_break_and_shared_win():
    """BI-G3: highest score wins; a tie goes to more corpses buried; a remaining tie is
    shared (both first, the next is third)."""
    cfg = make_cfg(players=3)
    g = table(cfg, [])
    for p, (cash, buried) in enumerate(((30, 2), (30, 1), (20, 5))):
        g.s.seats[p].cash, g.s.seats[p].cheques, g.s.seats[p].buried = cash, 0, buried
    assert ending.places(g) == [1, 2, 3] and ending.winners(g) == [0]
    g.s.seats[1].buried = 2
    assert ending.places(g) == [1, 1, 3] and ending.winners(g) == [0, 1]


def test_bi_g2_end_bonus_capped_and_bi_v8_uncapped():
    """BI-G2 / BI-V8: the Park pays 4 F per red card in the Exit, capped at 40 unless
    end_bonus_capped is false."""
    for capped, kept in ((True, 4), (False, 8)):
        cfg = make_cfg(rules={"end_bonus_capped": capped})
        park = inst(cfg, "landscaper")
        reds = [inst(cfg, "cultivator", 0), inst(cfg, "mechanic", 0)]
        g = table(
            cfg,
            [E("end_bonus", 0, park, a=kept, b=2, c=0, cash=36 + kept, cheques=1, phase="end")],
            phase="end",
        )
        g.s.seats[0].cash = 36
        g.s.move(park, Place("annex", 0))
        for c in reds:
            g.s.move(c, EXIT)
        ending.end_bonuses(g)
        assert g.s.seats[0].cash == 36 + kept


def test_bi_v10_unlimited_wealth_turns_cash_into_cheques():
    """BI-V10 unlimited_wealth: above 40 the player takes four cheques and moves cash back."""
    cfg = make_cfg(rules={"unlimited_wealth": True})
    g = table(cfg, [])
    g.s.seats[0].cash, g.s.seats[0].cheques = 35, 0
    assert g.s.gain(0, 26) == 26
    assert (g.s.seats[0].cash, g.s.seats[0].cheques) == (21, 4)


def test_bi_v10_greenhouse_counts_the_cheques_held_before_the_end_bonuses():
    """BI-V10 with BI-G2: the Park's 20 F take cash over the cap and make four cheques; the
    Greenhouse still counts the two cheques held before the bonuses (6 F, not 18 F)."""
    cfg = make_cfg(rules={"unlimited_wealth": True})
    park, greenhouse = inst(cfg, "landscaper"), inst(cfg, "prince")
    reds = [inst(cfg, "cultivator", k) for k in range(4)] + [inst(cfg, "mechanic", 0)]

    def run(greenhouse_count, greenhouse_gain, cash_after):
        events = [
            E("end_bonus", 0, park, a=20, b=5, c=0, cash=10, cheques=6, phase="end"),
            E(
                "end_bonus",
                0,
                greenhouse,
                a=greenhouse_gain,
                b=greenhouse_count,
                c=1,
                cash=cash_after,
                cheques=6,
                phase="end",
            ),
        ]
        g = table(cfg, events, phase="end")
        g.s.seats[0].cash, g.s.seats[0].cheques = 30, 2
        g.s.move(park, Place("annex", 0))
        g.s.move(greenhouse, Place("annex", 0))
        for c in reds:
            g.s.move(c, EXIT)
        ending.end_bonuses(g)
        return g

    assert run(2, 6, 16).s.seats[0].score == 16 + 60
    objects(lambda: run(6, 18, 28), "BI-G2")


def _concierge_build(cfg, room, tokens):
    """Seat 0 builds a Concierge (rank 2, paid by two merchants that return) whose token the
    log puts on ``room``; ``tokens``: room -> {seat: count} already on the table."""
    built = inst(cfg, "concierge")
    payers = [inst(cfg, "newsboy", 0), inst(cfg, "newsboy", 1)]
    events = [A(0, "build", 1, 2, card=built)]
    events += [E("pay", 0, c, a=0, b=ACTION_OF["build"], cash=5, cheques=1) for c in payers]
    events += [E("build", 0, built, a=2, cash=5, cheques=1)]
    if room is not None:
        events.append(E("token", 0, built, a=room, cash=5, cheques=1))
    g = table(cfg, events)
    for c in [built] + payers:
        g.s.move(c, Place("hand", 0))
    for r, owners in tokens.items():
        g.s.rooms[r].tokens.update(owners)
    night.turn(g, 0)
    return g


def test_bi_v12_one_room_service_token_per_room():
    """BI-V12: by default a token may not join another on a room (the objection names
    BI-V12); with ``any`` it may; with every open room taken no token is logged."""
    cfg = make_cfg()
    assert _concierge_build(cfg, 2, {1: {1: 1}}).s.rooms[2].tokens == {0: 1}
    objects(lambda: _concierge_build(cfg, 1, {1: {1: 1}}), "BI-V12")
    full = {r: {1: 1} for r in range(5)}
    g = _concierge_build(cfg, None, full)
    assert inst(cfg, "concierge") in g.s.seats[0].annexes
    objects(lambda: _concierge_build(cfg, None, {1: {1: 1}}), "BI-C5")  # a room was free
    cfg_any = make_cfg(rules={"room_service_per_room": "any"})
    assert _concierge_build(cfg_any, 1, {1: {1: 1}}).s.rooms[1].tokens == {1: 1, 0: 1}


def test_winner_columns_for_a_shared_win():
    """BI-G3 / design.md: the games table names no seat for a shared win (winner -1) and
    sets the winners' bits."""
    from sim.games.bloody_inn.referee.tables import expected_game_row

    cfg = make_cfg(players=3)
    g = table(cfg, [])
    for p, (cash, buried) in enumerate(((30, 1), (30, 1), (20, 0))):
        g.s.seats[p].cash, g.s.seats[p].cheques, g.s.seats[p].buried = cash, 0, buried
    row = expected_game_row(g)
    assert (row["winner"], row["n_winners"], row["winners"]) == (-1, 2, 0b011)
    g.s.seats[1].buried = 0
    row = expected_game_row(g)
    assert (row["winner"], row["n_winners"], row["winners"]) == (0, 1, 0b001)


# --- BI-S setup ------------------------------------------------------------------------------


@pytest.mark.parametrize("length", ["short", "long"])
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_bi_s2_default_entrance_size_and_bi_s1_keys(players, length):
    """BI-S2 / BI-V2: the run's Entrance size defaults to the player-aid table (times
    deck_copies); BI-S1 / BI-X1: 3 white keys with 1-3 players, 4 with 4."""
    for copies in (1, 2):
        cfg = make_cfg(players, {"length": length, "deck_copies": copies})
        assert cfg.deck_size == ENTRANCE_SIZE[(length, players)] * copies
        assert cfg.white_keys == (3 if players <= 3 else 4)
        assert len(cfg.travellers) == 70 * copies and len(cfg.peasants) == 8


def test_referee_imports_nothing_of_the_kernel_or_the_adapter(tmp_path):
    """The referee is independent: replaying real games imports no game kernel (only the
    ``kernels`` package itself, which ``sim`` imports first to set the compile cache's
    directory) and neither the adapter nor its card loader; of the game packages only the
    referee and the packages holding it (which import nothing)."""
    import json
    import subprocess
    import sys

    import pyarrow.parquet as pq

    from sim.api import simulate

    cfg = {"game": "bloody_inn", "players": 3, "games": 3, "seed": 4, "seats": [{"strategy": "random"}] * 3}
    r = simulate(cfg, threads=1, events=True)
    (tmp_path / "resolved.json").write_text(json.dumps(r.resolved))
    for name in ("games", "seats", "events"):
        pq.write_table(getattr(r, name), tmp_path / f"{name}.parquet")
    code = (
        "import json, sys, pyarrow.parquet as pq, sim.games.bloody_inn.referee as R\n"
        f"d = {str(tmp_path)!r}\n"
        "t = {n: pq.read_table(f'{d}/{n}.parquet') for n in ('games', 'seats', 'events')}\n"
        "report = R.replay_tables(json.load(open(f'{d}/resolved.json')), t['games'], t['seats'], t['events'])\n"
        "assert report.ok and report.games == 3, report.summary()\n"
        "home = ('sim.games', 'sim.games.bloody_inn')\n"
        "bad = [m for m in sys.modules if m.startswith(('kernels.', 'sim.games')) and m not in home\n"
        "       and not m.startswith('sim.games.bloody_inn.referee')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
