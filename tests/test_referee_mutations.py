"""Mutation tests: corrupt one event of a clean kernel log and the referee must object,
naming the rule the corrupted log breaks and (where the fault is in one event) that event.

Every test starts from a log that replays cleanly, changes the least it can, and checks the
rule id; tests cite the rule they guard.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from sim.api import simulate
from sim.games.bloody_inn.referee import RefereeConfig, replay_game, replay_result, replay_tables
from sim.games.bloody_inn.referee.log import ACTION_OF, split_games

FUZZ_CARDS = {  # cheap cards with rare effects (see test_referee_batch)
    "baron": {"effect": "peasant_bribe_limit(4)+room_service_token"},
    "newsboy": {"effect": "multi_target(bribe)"},
    "mechanic": {"effect": "replace_white_key+end_cash_per_cheque(3)"},
}


class Log:
    """The games of one simulation, ready to be corrupted and replayed one by one."""

    def __init__(self, config, games, seed):
        self.res = simulate(config, games=games, seed=seed, events=True)
        self.cfg = RefereeConfig.from_resolved(self.res.resolved)
        self.games = dict(split_games(self.res.events))
        self.rows = {r["game_id"]: r for r in self.res.games.to_pylist()}
        self.seats = {}
        for r in self.res.seats.to_pylist():
            self.seats.setdefault(r["game_id"], []).append(r)

    def replay(self, gid, events, game_row=None, seats=None):
        return replay_game(self.cfg, gid, events, game_row or self.rows[gid], seats or self.seats[gid])

    def find(self, pred):
        """First (game id, events, index) where ``pred(events, i)`` holds."""
        for gid, evs in self.games.items():
            for i in range(len(evs)):
                if pred(evs, i):
                    return gid, evs, i
        pytest.skip("no event of that shape in the sample")


@pytest.fixture(scope="module")
def greedy():
    return Log({"game": "bloody_inn", "players": 3, "seats": [{"strategy": "greedy"}]}, 300, 5)


@pytest.fixture(scope="module")
def fuzz():
    return Log(
        {"game": "bloody_inn", "players": 2, "seats": [{"strategy": "greedy"}], "cards": FUZZ_CARDS}, 300, 9
    )


@pytest.fixture(scope="module")
def rand():
    return Log(
        {
            "game": "bloody_inn",
            "players": 3,
            "seats": [{"strategy": "random"}],
            "rules": {"voluntary_dismissal": False},
        },
        300,
        13,
    )


@pytest.fixture(scope="module")
def next_draw():
    """BI-V11 ``on_next_draw`` and BI-V12 ``any``: the old readings."""
    return Log(
        {
            "game": "bloody_inn",
            "players": 2,
            "seats": [{"strategy": "greedy"}],
            "rules": {"season_change": "on_next_draw", "room_service_per_room": "any"},
        },
        60,
        17,
    )


def changed(evs, i, **fields):
    out = list(evs)
    out[i] = out[i]._replace(**fields)
    return out


def removed(evs, *idx):
    return [e for j, e in enumerate(evs) if j not in idx]


def inserted(evs, i, ev):
    return evs[:i] + [ev] + evs[i:]


def assert_caught(div, rule, event=None):
    assert div is not None, "the referee accepted a corrupted log"
    assert div.rule == rule, div.format()
    if event is not None:
        assert div.event is not None and div.event["seq"] == event.seq, div.format()
    assert div.referee_state and div.message


def test_clean_logs_replay(greedy, fuzz, rand, solo):
    for log in (greedy, fuzz, rand, solo):
        report = replay_result(log.res)
        assert report.ok, report.divergences[0].format()


# --- BI-N2 payment ---------------------------------------------------------------------


def _boxed_card(evs):
    return next(e.card for e in evs if e.kind == "box")


def test_payment_with_a_card_not_in_hand(greedy):
    """BI-N2: the cards paid come from the player's hand (here: a card boxed at setup)."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "pay")
    assert_caught(greedy.replay(gid, changed(evs, i, card=_boxed_card(evs))), "BI-N2", evs[i])


def test_payment_card_returned_against_its_affinity(greedy):
    """BI-N2: only a card whose affinity matches the action returns to hand."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "pay")
    assert_caught(greedy.replay(gid, changed(evs, i, a=1 - evs[i].a)), "BI-N2", evs[i])


def test_payment_one_card_short(greedy):
    """BI-N2: the action costs the target's rank; one card fewer is not enough."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "pay")
    assert_caught(greedy.replay(gid, removed(evs, i)), "BI-N2")


def test_payment_for_another_action(greedy):
    """BI-N2: the payment belongs to the action that follows it."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "pay")
    assert_caught(greedy.replay(gid, changed(evs, i, b=(evs[i].b + 1) % 4)), "BI-N2", evs[i])


def test_build_at_the_wrong_cost(greedy):
    """BI-N4 / BI-N2: a build costs the card's rank (minus a discount)."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "build")
    assert_caught(greedy.replay(gid, changed(evs, i, a=evs[i].a + 1)), "BI-N2", evs[i])


# --- the 'action' event: one per night action, before its payment ---------------------


def test_action_event_missing(greedy):
    """BI-N1: every night action starts with an 'action' event; without it the action is
    not delimited (the payment or the bribe that follows is objected to)."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "action" and evs[i].c > 0)
    assert_caught(greedy.replay(gid, removed(evs, i)), "BI-N1", evs[i + 1])


def test_action_event_missing_in_a_solo_night(solo):
    """BI-N1: in a solo night the two actions of seat 0 follow each other; dropping the
    'action' event of the second one leaves its events without an action."""

    def second_of_night(evs, i):
        e = evs[i]
        return (
            e.kind == "action"
            and evs[i - 1].phase == "night"
            and evs[i + 1].kind not in ("pay", evs[i - 1].kind)
        )

    gid, evs, i = solo.find(second_of_night)
    assert_caught(solo.replay(gid, removed(evs, i)), "BI-N1", evs[i + 1])


def test_action_event_missing_between_two_solo_actions_of_a_kind(solo):
    """BI-N1 / BI-N3 / BI-N5 / BI-N6: two solo actions of the same kind in one night; without
    the second 'action' event the first action would take the second one's targets too (more
    than its 'action' event announces, or than the rules allow), or a pass has no action."""

    def same_kind(evs, i):
        return evs[i].kind == "action" and evs[i - 1].phase == "night" and evs[i + 1].kind == evs[i - 1].kind

    gid, evs, i = solo.find(same_kind)
    rule = {"bribe": "BI-N3", "kill": "BI-N5", "bury": "BI-N6"}.get(evs[i + 1].kind, "BI-N1")
    assert_caught(solo.replay(gid, removed(evs, i)), rule)


def test_action_event_duplicated(greedy):
    """BI-N1: one 'action' event per action; a second one has no events of its own."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "action")
    assert_caught(greedy.replay(gid, inserted(evs, i + 1, evs[i])), "BI-N1", evs[i])


def test_action_event_duplicated_after_its_action(rand):
    """BI-N1: an 'action' event repeated after the action's own events is one action too
    many (the next seat's action, or a third one in the night)."""
    gid, evs, i = rand.find(lambda evs, i: evs[i].kind == "action" and evs[i + 1].kind == "passing")
    assert_caught(rand.replay(gid, inserted(evs, i + 2, evs[i])), "BI-N1", evs[i])


def test_action_event_wrong_cost(greedy):
    """BI-N2: the logged cost after discount is the referee's (sum of ranks - discount)."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "action" and evs[i].c > 0)
    assert_caught(greedy.replay(gid, changed(evs, i, c=evs[i].c - 1)), "BI-N2", evs[i])
    gid, evs, i = greedy.find(
        lambda evs, i: evs[i].kind == "action" and evs[i + 1].kind == "bribe" and evs[i + 1].a == -1
    )
    assert_caught(greedy.replay(gid, changed(evs, i, c=1)), "BI-N2", evs[i])  # Bistro: free


def test_action_event_wrong_action_id(greedy):
    """BI-N1: the action id of the 'action' event is the action taken."""
    for action in range(5):
        gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "action" and evs[i].a == action)
        wrong = (action + 1 + gid % 4) % 5
        assert_caught(greedy.replay(gid, changed(evs, i, a=wrong)), "BI-N1", evs[i])


def test_action_event_wrong_target_count(greedy):
    """BI-N3 / BI-N5: the 'action' event announces the number of targets taken."""
    for kind, rule in (("bribe", "BI-N3"), ("kill", "BI-N5")):
        gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "action" and evs[i].a == ACTION_OF[kind])
        assert_caught(greedy.replay(gid, changed(evs, i, b=evs[i].b + 1)), rule, evs[i])


def test_action_event_names_another_card_for_a_build(greedy):
    """BI-N4: a build's 'action' event names the card being built."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "action" and evs[i].a == ACTION_OF["build"])
    assert_caught(greedy.replay(gid, changed(evs, i, card=_boxed_card(evs))), "BI-N4", evs[i])


def test_refused_decision_after_an_action_event(rand):
    """LOG-2: a refused decision is a lone 'passing' with a = -1; after an 'action' event it
    is not (the kernel's contract)."""
    gid, evs, i = rand.find(lambda evs, i: evs[i].kind == "action" and evs[i + 1].kind == "passing")
    bad = changed(evs, i + 1, a=-1, b=ACTION_OF["passing"])
    assert_caught(rand.replay(gid, bad), "LOG-2", evs[i + 1])
    # without the 'action' event it is a legal (counted) pass
    report_ok = rand.replay(gid, removed(bad, i))
    assert report_ok is None, report_ok.format()


def test_key_logged_before_the_starting_money(greedy):
    """BI-S3: keys are logged once the starting money is dealt: a key's stamp is 5 F and
    one cheque."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "key" and evs[i].seat >= 0)
    assert_caught(greedy.replay(gid, changed(evs, i, cash=0, cheques=0)), "BI-S3", evs[i])


# --- BI-N3 / BI-N5 / BI-N9 targets ----------------------------------------------------


def test_bribe_from_the_wrong_room(greedy):
    """BI-N3: the bribed traveller is in the room the log names."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "bribe" and evs[i].a >= 0)
    assert_caught(greedy.replay(gid, changed(evs, i, a=(evs[i].a + 1) % 6)), "BI-N3", evs[i])


def test_bribe_of_a_card_in_another_hand(greedy):
    """BI-N9: cards in hand cannot be bribed: seat 0's first bribe of the game redirected at
    a peasant seat 1 holds since setup (seat 1 has not acted yet)."""

    def first_action_is_bribe(evs, i):
        e = evs[i]
        return (
            e.kind == "bribe"
            and e.a >= 0
            and e.round == 1
            and e.seat == 0
            and all(x.phase != "night" for x in evs[:i] if x.kind not in ("action", "pay"))
        )

    gid, evs, i = greedy.find(first_action_is_bribe)
    peasant = next(e.card for e in evs if e.kind == "deal" and e.seat == 1)
    assert_caught(greedy.replay(gid, changed(evs, i, card=peasant)), "BI-N9", evs[i])


def test_two_travellers_bribed_without_the_store(greedy):
    """BI-N3: one traveller per bribe unless the briber owns the Store."""

    def bribe_with_survivor(evs, i):
        e = evs[i]
        if e.kind != "bribe" or e.a < 0:
            return False
        night = [x for x in evs if x.round == e.round and x.phase == "night"]
        targeted = {x.card for x in night if x.kind in ("bribe", "kill")}
        placed = [x for x in evs if x.round == e.round and x.kind == "place"]
        return any(x.card not in targeted and x.card != e.card for x in placed)

    gid, evs, i = greedy.find(bribe_with_survivor)
    e = evs[i]
    night = [x for x in evs if x.round == e.round and x.phase == "night"]
    targeted = {x.card for x in night if x.kind in ("bribe", "kill")}
    other = next(x for x in evs if x.round == e.round and x.kind == "place" and x.card not in targeted)
    extra = e._replace(card=other.card, a=other.a)
    assert_caught(greedy.replay(gid, inserted(evs, i + 1, extra)), "BI-N3", extra)


def test_two_peasants_killed_in_one_action(rand):
    """BI-N5: a kill takes one peasant from the Bistro."""
    gid, evs, i = rand.find(lambda evs, i: evs[i].kind == "kill" and evs[i].a == -1)
    extra = evs[i]._replace(card=evs[i].card)
    assert_caught(rand.replay(gid, inserted(evs, i + 1, extra)), "BI-N5")


def test_a_third_action_in_a_night(greedy):
    """BI-N1: each player takes exactly two actions per round, in seat order."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "passing")
    assert_caught(greedy.replay(gid, inserted(evs, i + 1, evs[i])), "BI-N1")


@pytest.fixture(scope="module")
def solo():
    return Log({"game": "bloody_inn", "players": 1, "seats": [{"strategy": "greedy"}]}, 300, 17)


def test_a_third_action_in_a_solo_night(solo):
    """BI-N1: a solo player also takes exactly two actions per round."""
    gid, evs, i = solo.find(lambda evs, i: evs[i].kind == "round" and evs[i].a == 2)
    j = next(k for k in range(i, len(evs)) if evs[k].phase == "night")
    before = next(e for e in reversed(evs[:j]) if e.seat == 0)  # money before the night
    extra = evs[j]._replace(kind="passing", card=-1, a=0, b=0, c=0, cash=before.cash, cheques=before.cheques)
    assert_caught(solo.replay(gid, inserted(evs, j, extra)), "BI-N1")


def test_solo_player_fined_instead_of_losing(solo):
    """BI-X2: a solo player caught with an unburied corpse loses at once (no fine)."""
    gid, evs, i = solo.find(lambda evs, i: evs[i].kind == "solo_lost" and evs[i].phase == "morning")
    e = evs[i]
    fined = e._replace(kind="investigation", b=min(e.cash, 10 * e.a), c=0)
    assert_caught(solo.replay(gid, changed(evs, i, **fined._asdict())), "BI-X2", e)


def test_launder_more_cheques_than_cash(rand):
    """BI-N7: cheques are bought with whole tens of cash the player has."""
    gid, evs, i = rand.find(lambda evs, i: evs[i].kind == "launder" and evs[i].a > 0)
    assert_caught(rand.replay(gid, changed(evs, i, a=evs[i].a + 5)), "BI-N7", evs[i])


# --- BI-N6 burial ------------------------------------------------------------------------


def test_corpse_buried_in_a_full_barn(greedy):
    """BI-N6 / BI-C4: the Barn holds one corpse; a second burial there is over capacity."""

    def later_bury(evs, i):
        return evs[i].kind == "bury" and any(e.kind == "bury" and e.a < 0 for e in evs[:i])

    gid, evs, i = greedy.find(later_bury)
    full = next(e for e in evs[:i] if e.kind == "bury" and e.a < 0)
    div = greedy.replay(gid, changed(evs, i, a=full.a, b=full.b))
    assert_caught(div, "BI-N6", evs[i])
    assert "full" in div.message


def test_corpse_buried_under_a_rank_0_annex(greedy):
    """BI-N6 / BI-C3: an annex holds as many corpses as its rank: none for rank 0."""
    cfg = greedy.cfg

    def bury_after_rank0_build(evs, i):
        return evs[i].kind == "bury" and any(
            e.kind == "build" and cfg.cards[e.card].rank == 0 for e in evs[:i]
        )

    gid, evs, i = greedy.find(bury_after_rank0_build)
    annex = next(e for e in evs[:i] if e.kind == "build" and cfg.cards[e.card].rank == 0)
    div = greedy.replay(gid, changed(evs, i, a=annex.card, b=annex.seat))
    assert_caught(div, "BI-N6", evs[i])
    assert "full" in div.message


def test_burial_pocket_money_wrong(greedy):
    """BI-N6 / BI-C2: the burier gains the pocket money (half under another's annex)."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "bury")
    assert_caught(greedy.replay(gid, changed(evs, i, c=evs[i].c + 2)), "BI-N6", evs[i])


def test_burial_share_missing(greedy):
    """BI-N6: under another player's annex the pocket money is split with its owner."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "bury_share")
    assert_caught(greedy.replay(gid, removed(evs, i)), "BI-N6")


# --- BI-E evening ------------------------------------------------------------------------


def test_wrong_room_service_amount(fuzz):
    """BI-E2: the token's owner gains the traveller's rank."""
    gid, evs, i = fuzz.find(lambda evs, i: evs[i].kind == "room_service")
    assert_caught(fuzz.replay(gid, changed(evs, i, a=evs[i].a + 1)), "BI-E2", evs[i])


def test_room_service_not_paid(fuzz):
    """BI-E2: a traveller placed in a room with a token pays its owner."""
    gid, evs, i = fuzz.find(lambda evs, i: evs[i].kind == "room_service" and evs[i].a > 0)
    assert_caught(fuzz.replay(gid, removed(evs, i)), "BI-E2")


def test_traveller_placed_out_of_entrance_order(greedy):
    """BI-E1: the first player draws the top card of the Entrance."""
    gid, evs, i = greedy.find(
        lambda evs, i: evs[i].kind == "place" and evs[i + 1].kind == "place" and evs[i].round == 2
    )
    swapped = changed(changed(evs, i, card=evs[i + 1].card), i + 1, card=evs[i].card)
    assert_caught(greedy.replay(gid, swapped), "BI-E1", evs[i])


def test_season_change_with_a_card_not_in_the_exit(greedy):
    """BI-E3: the new Entrance is the Exit, shuffled."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "season")
    assert_caught(greedy.replay(gid, changed(evs, i, card=_boxed_card(evs))), "BI-E3", evs[i])


def _season_block(evs):
    """(first, end) indices of the game's block of ``season`` events."""
    first = next(i for i, e in enumerate(evs) if e.kind == "season")
    end = first
    while evs[end].kind == "season":
        end += 1
    return first, end


def test_season_change_postponed_to_the_next_evening(greedy):
    """BI-E3: the Exit becomes the new Entrance in the Evening the last card is drawn; a log
    that shuffles only at the next Evening's start (the BI-V11 reading) is refused at the
    event that follows the last placement."""
    gid = next(iter(greedy.games))
    evs = greedy.games[gid]
    first, end = _season_block(evs)
    nxt = next(j for j in range(end, len(evs)) if evs[j].kind == "round")
    late = evs[:first] + evs[end : nxt + 1] + evs[first:end] + evs[nxt + 1 :]
    assert_caught(greedy.replay(gid, late), "BI-E3", evs[end])


def test_season_change_brought_forward_under_on_next_draw(next_draw):
    """BI-V11 ``on_next_draw``: with the inn filled by the last card, the shuffle waits for
    the next Evening; a log shuffling right after the last placement is refused."""
    gid = next(iter(next_draw.games))
    evs = next_draw.games[gid]
    first, end = _season_block(evs)
    assert evs[first - 1].kind == "round"  # the shuffle opens the Evening
    last_place = max(j for j in range(first) if evs[j].kind in ("place", "room_service"))
    early = evs[: last_place + 1] + evs[first:end] + evs[last_place + 1 : first] + evs[end:]
    assert_caught(next_draw.replay(gid, early), "BI-E3", evs[first])


def test_the_old_readings_replay_clean(next_draw):
    """BI-V11 / BI-V12 alternatives: the kernel's logs replay without divergence."""
    report = replay_result(next_draw.res)
    assert report.ok, report.divergences[0].format()


def test_end_trigger_says_the_round_is_not_played(greedy):
    """BI-E4: the last round is played unless fewer travellers than players are in the inn."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "last_round" and evs[i].b == 1)
    assert_caught(greedy.replay(gid, changed(evs, i, b=0)), "BI-E4", evs[i])


# --- BI-C5 annex effects -----------------------------------------------------------------


def test_room_service_token_on_a_room_that_holds_one(fuzz):
    """BI-V12: by default a room holds at most one Room-Service token."""

    def second_token(evs, i):
        return evs[i].kind == "token" and any(e.kind == "token" for e in evs[:i])

    gid, evs, i = fuzz.find(second_token)
    taken = next(e.a for e in evs[:i] if e.kind == "token")
    assert_caught(fuzz.replay(gid, changed(evs, i, a=taken)), "BI-V12", evs[i])


def test_room_key_replaces_an_own_key(fuzz):
    """BI-C5: the Room (Monk) replaces a white key, not a player's."""
    gid, evs, i = fuzz.find(lambda evs, i: evs[i].kind == "monk_key")
    assert_caught(fuzz.replay(gid, changed(evs, i, a=0)), "BI-C5", evs[i])


def test_on_build_cash_wrong(greedy):
    """BI-C5: "immediately earn" effects pay what the card says."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "effect_cash")
    assert_caught(greedy.replay(gid, changed(evs, i, a=evs[i].a + 1, b=evs[i].b + 1)), "BI-C5", evs[i])


# --- BI-M morning ------------------------------------------------------------------------


def test_investigation_fine_skipped(greedy):
    """BI-M1: with police in the inn, every player with unburied corpses is fined."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "investigation")
    boxed = [
        j
        for j in range(i + 1, len(evs))
        if evs[j].kind == "corpse_boxed"
        and evs[j].seat == evs[i].seat
        and all(evs[k].kind == "corpse_boxed" for k in range(i + 1, j))
    ]
    assert_caught(greedy.replay(gid, removed(evs, i, *boxed)), "BI-M1")


def test_investigation_fine_not_paid(greedy):
    """BI-M1: 10 F per corpse, whole tens of cash first, then cheques, then cash."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "investigation" and evs[i].b > 0)
    assert_caught(greedy.replay(gid, changed(evs, i, b=0, c=0)), "BI-M1", evs[i])


def test_fine_overpaid_with_a_cheque(greedy):
    """BI-M1: the split pays exactly 10 F per corpse; one cheque more is not a legal split."""
    gid, evs, i = greedy.find(
        lambda evs, i: evs[i].kind in ("investigation", "final_investigation") and evs[i].cheques > 0
    )
    e = evs[i]
    assert_caught(greedy.replay(gid, changed(evs, i, c=e.c + 1, cheques=e.cheques - 1)), "BI-M1", e)


def test_fine_underpaid_by_ten_francs(greedy):
    """BI-M1: a player who can pay the fine pays all of it (cash or cheques)."""
    gid, evs, i = greedy.find(
        lambda evs, i: evs[i].kind in ("investigation", "final_investigation") and evs[i].b >= 10
    )
    e = evs[i]
    assert_caught(greedy.replay(gid, changed(evs, i, b=e.b - 10, cash=e.cash + 10)), "BI-M1", e)


def test_fine_split_by_cheque_instead_of_cash_is_accepted(rand):
    """BI-M1: a different legal split (one cheque for 10 F of the cash) is the player's
    choice, not a divergence of the investigation itself: the referee follows it, and
    objects only later, where the money the log carries stops matching."""
    gid, evs, i = rand.find(
        lambda evs, i: evs[i].kind == "investigation" and evs[i].b >= 10 and evs[i].cheques > 0
    )
    e = evs[i]
    div = rand.replay(gid, changed(evs, i, b=e.b - 10, c=e.c + 1, cash=e.cash + 10, cheques=e.cheques - 1))
    assert div is not None and div.event is not None and div.event["seq"] > e.seq


def test_wage_paid_by_cheque(greedy):
    """BI-M3: wages are paid in cash; cheques are refused."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "wages" and evs[i].a > 0 and evs[i].cheques > 0)
    e = evs[i]
    assert_caught(greedy.replay(gid, changed(evs, i, cash=e.cash + e.a, cheques=e.cheques - 1)), "BI-M3", e)


def test_accomplice_kept_without_pay(rand):
    """BI-M3: accomplices the player cannot pay leave; dropping the dismissal keeps one too
    many (or the wages do not add up)."""
    gid, evs, i = rand.find(lambda evs, i: evs[i].kind == "dismiss")
    assert_caught(rand.replay(gid, removed(evs, i)), "BI-M3")


def test_voluntary_dismissal_refused_when_off(rand):
    """BI-V5 (voluntary_dismissal = false): only unpaid accomplices may leave."""

    def payable_hand(evs, i):
        e = evs[i]
        if e.kind != "wages" or e.b < 1 or evs[i - 1].kind == "dismiss":
            return False
        return _card_in_hand(evs, i) is not None

    gid, evs, i = rand.find(payable_hand)
    card = _card_in_hand(evs, i)
    e = evs[i]  # the dismissal comes before the wages are paid
    extra = e._replace(kind="dismiss", card=card, a=0, b=0, c=0, cash=e.cash + e.a)
    assert_caught(rand.replay(gid, inserted(evs, i, extra)), "BI-V5", extra)


def _card_in_hand(evs, i):
    """A card surely in the wages payer's hand: bribed this round and not paid since."""
    e = evs[i]
    bribed = [
        x.card for x in evs[:i] if x.kind == "bribe" and x.seat == e.seat and x.round == e.round and x.a >= 0
    ]
    gone = {x.card for x in evs[:i] if x.round == e.round and x.kind in ("pay", "build")}
    left = [c for c in bribed if c not in gone]
    return left[0] if left else None


def test_travellers_leave_income_wrong(greedy):
    """BI-M2: 1 F per own-keyed room holding a traveller."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "leave_income")
    assert_caught(greedy.replay(gid, changed(evs, i, a=evs[i].a + 1)), "BI-M2", evs[i])


def test_morning_steps_out_of_order(greedy):
    """BI-M: travellers leave (with their income) before wages; moving the income after the
    wages breaks the order."""
    gid, evs, i = greedy.find(
        lambda evs, i: (
            evs[i].kind == "leave_income"
            and any(e.kind == "wages" and e.round == evs[i].round for e in evs[i : i + 20])
        )
    )
    j = next(k for k in range(i, len(evs)) if evs[k].kind == "wages")
    moved = evs[:i] + evs[i + 1 : j + 1] + [evs[i]] + evs[j + 1 :]
    assert_caught(greedy.replay(gid, moved), "BI-M2")


def test_first_player_does_not_pass_left(greedy):
    """BI-M4: the first player passes to the next seat."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "first_player")
    assert_caught(greedy.replay(gid, changed(evs, i, seat=(evs[i].seat + 1) % 3)), "BI-M4", evs[i])


# --- BI-G end ----------------------------------------------------------------------------


def test_end_bonus_wrong(fuzz):
    """BI-G2: end-of-game annexes pay per card of their colour in the Exit / per cheque."""
    gid, evs, i = fuzz.find(lambda evs, i: evs[i].kind == "end_bonus")
    assert_caught(fuzz.replay(gid, changed(evs, i, a=evs[i].a + 3)), "BI-G2", evs[i])


def test_final_investigation_skipped(greedy):
    """BI-G1: at the end an investigation happens regardless of police."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "final_investigation")
    boxed = [
        j
        for j in range(i + 1, len(evs))
        if evs[j].kind == "corpse_boxed" and evs[j].seat == evs[i].seat and evs[j].phase == "end"
    ]
    assert_caught(greedy.replay(gid, removed(evs, i, *boxed)), "BI-G1")


def test_wrong_place(greedy):
    """BI-G3: places follow the score, then the corpses buried."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "score")
    assert_caught(greedy.replay(gid, changed(evs, i, b=evs[i].b % 3 + 1)), "BI-G3", evs[i])


def test_seats_table_cash_and_games_table_winner(greedy):
    """RES-1 / BI-G3: the tables agree with the replayed end of the game."""
    gid = next(iter(greedy.games))
    seats = [dict(r) for r in greedy.seats[gid]]
    seats[1]["cash"] += 1
    assert_caught(greedy.replay(gid, greedy.games[gid], seats=seats), "RES-1")
    row = dict(greedy.rows[gid])
    row["winner"] = (row["winner"] + 1) % 3
    assert_caught(greedy.replay(gid, greedy.games[gid], game_row=row), "BI-G3")


def test_shared_win_named_in_the_games_table(rand):
    """BI-G3 / design.md: a shared win has winner -1 and every sharer's bit in ``winners``;
    naming the lowest sharer, or dropping a bit, is refused."""
    gid = next(g for g, r in rand.rows.items() if r["n_winners"] > 1)
    row = rand.rows[gid]
    assert row["winner"] == -1 and bin(row["winners"]).count("1") == row["n_winners"]
    assert rand.replay(gid, rand.games[gid]) is None
    low = (row["winners"] & -row["winners"]).bit_length() - 1
    assert_caught(rand.replay(gid, rand.games[gid], game_row={**row, "winner": low}), "BI-G3")
    assert_caught(
        rand.replay(gid, rand.games[gid], game_row={**row, "winners": row["winners"] & (row["winners"] - 1)}),
        "BI-G3",
    )


def test_truncation_not_logged():
    """BI-G4: a game reaching the safety cap is logged as truncated."""
    log = Log({"game": "bloody_inn", "players": 2, "rules": {"max_rounds": 5}}, 20, 3)
    gid, evs, i = log.find(lambda evs, i: evs[i].kind == "truncated")
    assert log.replay(gid, evs) is None
    assert_caught(log.replay(gid, removed(evs, i)), "BI-G4")


# --- the log itself ---------------------------------------------------------------------


def test_log_cut_short(greedy):
    """LOG-4: a log that stops before the game ends."""
    gid, evs = next(iter(greedy.games.items()))
    assert_caught(greedy.replay(gid, evs[: len(evs) // 2]), "LOG-4")


def test_event_stamped_with_the_wrong_round(greedy):
    """LOG-1: every event carries its round and phase."""
    gid, evs, i = greedy.find(lambda evs, i: evs[i].kind == "kill")
    assert_caught(greedy.replay(gid, changed(evs, i, round=evs[i].round + 1)), "LOG-1", evs[i])


def test_card_kind_column(greedy):
    """LOG-3: the card_kind column names the card instance."""
    ev = greedy.res.events
    ev = ev.slice(0, int((ev.column("game_id").to_numpy() <= 1).sum()))  # games 0 and 1
    kinds = ev.column("card_kind").to_pylist()
    row = next(j for j, k in enumerate(kinds) if k == "peasant")
    kinds[row] = "marquis"
    bad = ev.set_column(
        ev.schema.get_field_index("card_kind"),
        "card_kind",
        pa.array(kinds, type=ev.schema.field("card_kind").type),
    )
    report = replay_tables(
        greedy.res.resolved, greedy.res.games.slice(0, 2), greedy.res.seats.slice(0, 6), bad
    )
    assert report.games == 2
    assert [d.rule for d in report.divergences] == ["LOG-3"]
