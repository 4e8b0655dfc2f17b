"""Cluedo rules on hand-built positions: suggestions and refutation (CL-T5), accusation and
elimination (CL-T6, CL-T7), passages (CL-T3, CL-T4), every clue-card effect (CL-K1..K9),
setup (CL-S) and the 2-player mode (CL-2), and the flags `roll_every_turn` / `move_steps`."""

import numpy as np
import pytest

from analysis.stats import wilson
from kernels.cluedo import layout as L
from kernels.cluedo.agents import certain_triple, choose_show, pack, prepare
from kernels.cluedo.knowledge import kbase, propagate
from kernels.cluedo.rules import accuse, draw_clue, look_face_down, resolve_suggestion, setup, take_turn
from kernels.rng import stream_key
from sim.games.cluedo import adapter as C

B = C.load_board()
CHARS = ["scarlett", "mustard", "white", "green", "peacock", "plum"]
DEAL4 = [
    ["scarlett", "candlestick", "kitchen", "ballroom", "peacock"],
    ["mustard", "dagger", "dining_room", "billiard_room", "library"],
    ["white", "lead_pipe", "lounge", "hall"],
    ["green", "revolver", "rope", "study"],
]
ENV4 = ["plum", "wrench", "conservatory"]


def ci(name):
    return C.card_index(name)


def bit(*names):
    return sum(1 << ci(n) for n in names)


def game(players=4, strategy="logic", deal=None, env=None, table=(), rules=None, game_id=0):
    rules = dict(rules or {})
    rules.setdefault("characters", CHARS[:players])
    res = C.resolve({"players": players, "seats": [{"strategy": strategy}], "rules": rules})
    res.update(seed=11, rotate=False)
    st, tb = C.new_state(res, game_id)
    if deal is not None:
        C.set_deal(st, deal, env, table)
    st[L.S_REC] = 1  # buffer events for inspection
    st[L.S_NEV] = 0
    return st, tb


def events(st):
    out = []
    for i in range(int(st[L.S_NEV])):
        o = L.S_EVB + i * L.EV_COLS
        _, _, seat, kind, a, b, c, d = (int(x) for x in st[o : o + L.EV_COLS])
        out.append((L.EV_NAMES[kind], seat, a, b, c, d))
    return out


def has(st, p, h):
    return int(st[kbase(p) + L.K_HAS + h])


def nt(st, p, h):
    return int(st[kbase(p) + L.K_NOT + h])


def clauses(st, p):
    kb = kbase(p)
    return [(int(e) >> 21, int(e) & L.ALL_CARDS) for e in st[kb + L.K_CL : kb + L.K_CL + st[kb + L.K_NCL]]]


def clue_row(effect, target=None):
    eff = L.EFFECT_NAMES.index(effect)
    for i, (e, t) in enumerate(B.clue):
        if e == eff and (target is None or t == ci(target)):
            return i
    raise KeyError(effect)


def draw(st, tb, seat, effect, target=None):
    st[L.S_DECK + st[L.S_CLUE_PTR]] = clue_row(effect, target)
    return draw_clue(st, tb, seat)


# --- CL-S: setup ----------------------------------------------------------------------


def setup_events(players, game_id, rules=None):
    """Set up game ``game_id`` with the event log on; returns (st, tb, setup events)."""
    res = C.resolve({"players": players, "seats": [{"strategy": "logic"}], "rules": dict(rules or {})})
    res.update(seed=11, rotate=False)
    tb = C.build_tables(res)
    st = np.zeros(L.STATE_SIZE, np.int64)
    setup(st, tb, game_id, players, 1)
    return st, tb, events(st)


@pytest.mark.parametrize("players,big", [(3, 6), (4, 5), (5, 4), (6, 3)])
def test_deal_one_at_a_time_clockwise_from_the_logged_seat(players, big):
    """CL-S2: envelope = one card per category; the 18 others dealt one at a time clockwise
    from the seat logged by `deal_start`, so the extra cards go to that seat and the next."""
    extra = 18 % players
    starts = set()
    for g in range(12):
        st, tb, ev = setup_events(players, g)
        ds = int(st[L.S_DEAL_START])
        starts.add(ds)
        assert [e for e in ev if e[0] == "deal_start"] == [("deal_start", -1, ds, 18, -1, -1)]
        holders = [e[1] for e in ev if e[0] == "deal" and e[1] < 6]
        assert holders == [(ds + i) % players for i in range(18)]
        sizes = [int(st[L.S_HSIZE + p]) for p in range(players)]
        assert sizes == [big if (p - ds) % players < extra or not extra else big - 1 for p in range(players)]
        env = int(st[L.S_TRUE + L.ENVELOPE])
        for cat in (L.CAT_SUSPECT, L.CAT_WEAPON, L.CAT_ROOM):
            assert bin(env & cat).count("1") == 1
        assert st[L.S_HSIZE + L.TABLE] == 0
    assert len(starts) > 1


@pytest.mark.parametrize("players,share", [(4, 1 / 2), (5, 3 / 5), (3, 0.0), (6, 0.0)])
def test_first_player_holds_an_extra_card_in_its_share_of_games(players, share):
    """CL-S2 / CL-S4: seat 0 plays first and holds an extra card in 1/2 of 4-player and 3/5
    of 5-player games (the deal starts at a random seat), never at 3 or 6 players."""
    games = 3000
    extra = 0
    for g in range(games):
        st, tb, _ = setup_events(players, g)
        extra += int(st[L.S_HSIZE] > min(st[L.S_HSIZE + p] for p in range(players)))
    lo, hi = wilson(extra, games, z=3.29)  # 99.9%: one fixed seed, a tight but stable check
    assert lo <= share <= hi


def test_seat_zero_plays_first():
    """CL-S4: the first turn of a game is seat 0's, whoever was dealt the first card."""
    res = C.resolve({"players": 4, "seats": [{"strategy": "logic"}]})
    res.update(seed=3)
    g, s, ev = C.run_arrays(res, 0, 40, events=True)
    gid = np.repeat(np.arange(40), g["n_events"])
    ds = ev[ev[:, 3] == L.EV_NAMES.index("deal_start"), 4]
    assert len(set(ds.tolist())) > 1
    setup_kinds = [L.EV_NAMES.index(k) for k in ("weapon", "envelope", "deal", "deal_start", "pile")]
    for i in range(40):
        play = ev[(gid == i) & ~np.isin(ev[:, 3], setup_kinds)]
        assert play[0, 1] == 0 and play[0, 2] == 0  # turn 0 is seat 0's


def test_classic_first_player_orders_seats_by_character():
    """CL-V5 classic: play starts with Scarlett (or the first of the order in play)."""
    for g in range(20):
        res = C.resolve({"players": 4, "rules": {"first_player": "classic"}})
        res.update(seed=5)
        st, _ = C.new_state(res, g)
        chars = [int(st[L.S_CHAR + s]) for s in range(4)]
        assert chars == sorted(chars) and len(set(chars)) == 4


def test_random_characters_vary_and_configured_characters_are_kept():
    """CL-S3 / CL-S4: random characters by default; a configured list is seat by seat."""
    res = C.resolve({"players": 3})
    res.update(seed=5)
    firsts = {int(C.new_state(res, g)[0][L.S_CHAR]) for g in range(40)}
    assert len(firsts) == 6
    st, _ = game(3, rules={"characters": ["plum", "white", "green"]})
    assert [int(st[L.S_CHAR + s]) for s in range(3)] == [5, 2, 3]


# --- CL-T5: suggestion and refutation ------------------------------------------------------


def test_refutation_goes_left_in_order_and_everyone_learns_what_they_could():
    st, tb = game(4, deal=DEAL4, env=ENV4)
    hall = B.room("hall")
    resolve_suggestion(st, 0, ci("white"), ci("rope"), hall)
    ev = events(st)
    sugg = [e for e in ev if e[0] == "suggest"][0]
    assert sugg[5] == 2  # seat 1 cannot, seat 2 can
    shown = [e for e in ev if e[0] == "show"][0]
    assert shown[1] == 2 and shown[3] == 0 and shown[2] in (ci("white"), ci("hall"))
    assert has(st, 0, 2) & (1 << shown[2])  # only the suggester sees the card
    for p in (1, 3):
        assert not has(st, p, 2) & bit("white", "hall")
        assert (2, bit("white", "rope", "hall")) in clauses(st, p)
    for p in (0, 2, 3):  # all saw seat 1 pass
        assert nt(st, p, 1) & bit("white", "rope", "hall") == bit("white", "rope", "hall")
    # the suspect's pawn and the weapon move into the room; White may suggest there (CL-T4)
    assert st[L.S_POS + 2] == hall and st[L.S_WROOM + ci("rope") - 6] == hall
    assert st[L.S_MOVED + 2] == 1


def test_refutation_wraps_around_the_table():
    st, tb = game(4, deal=DEAL4, env=ENV4)
    resolve_suggestion(st, 2, ci("mustard"), ci("dagger"), B.room("lounge"))
    sugg = [e for e in events(st) if e[0] == "suggest"][0]
    assert sugg[5] == 1  # 3 and 0 pass, then 1
    for p in range(4):
        if p != 3:
            assert nt(st, p, 3) & bit("mustard", "dagger", "lounge")
        if p != 0:
            assert nt(st, p, 0) & bit("mustard", "dagger", "lounge")


def test_nobody_refutes_and_the_logic_suggester_knows_the_envelope():
    st, tb = game(4, deal=DEAL4, env=ENV4)
    resolve_suggestion(st, 0, ci("plum"), ci("wrench"), B.room("conservatory"))
    assert [e for e in events(st) if e[0] == "suggest"][0][5] == -1
    assert not [e for e in events(st) if e[0] == "show"]
    prepare(st, 0)
    assert certain_triple(st, 0) == pack(ci("plum"), ci("wrench"), ci("conservatory"))


def test_naive_ignores_who_could_not_refute():
    st, tb = game(4, strategy="naive", deal=DEAL4, env=ENV4)
    resolve_suggestion(st, 0, ci("plum"), ci("wrench"), B.room("conservatory"))
    assert nt(st, 0, 1) == nt(st, 0, 2) == 0
    assert certain_triple(st, 0) == -1


def test_least_revealing_card_is_shown_first():
    st, tb = game(4, deal=DEAL4, env=ENV4)
    m = bit("white", "hall")
    st[L.S_PUBLIC + 2] = bit("hall")  # hall already public
    for _ in range(10):
        assert choose_show(st, 2, 0, m) == ci("hall")
    st[L.S_PUBLIC + 2] = 0
    st[L.S_SHOWN + 2 * 6 + 0] = bit("white")  # white already shown to seat 0
    for _ in range(10):
        assert choose_show(st, 2, 0, m) == ci("white")
    st[L.S_PARAM + 2 * L.N_PARAMS + 0] = 0  # show = 0: random among matches
    seen = {choose_show(st, 2, 0, m) for _ in range(40)}
    assert seen == {ci("white"), ci("hall")}


# --- CL-T6 / CL-T7: accusations --------------------------------------------------------------


def test_right_accusation_wins():
    st, tb = game(4, deal=DEAL4, env=ENV4)
    accuse(st, 1, pack(ci("plum"), ci("wrench"), ci("conservatory")))
    assert st[L.S_OVER] == 1 and st[L.S_WINNER] == 1 and st[L.S_ACCUSED + 1] == 1


def test_wrong_accusation_eliminates_but_the_player_still_refutes():
    st, tb = game(4, deal=DEAL4, env=ENV4)
    accuse(st, 1, pack(ci("plum"), ci("rope"), ci("conservatory")))
    assert st[L.S_OVER] == 0 and st[L.S_ACTIVE + 1] == 0 and st[L.S_ACCUSED + 1] == 2
    assert st[L.S_NWRONG] == 1
    resolve_suggestion(st, 0, ci("mustard"), ci("wrench"), B.room("kitchen"))
    assert [e for e in events(st) if e[0] == "suggest"][0][5] == 1
    assert [e for e in events(st) if e[0] == "show"][0][2] == ci("mustard")


def test_everyone_wrong_means_no_winner():
    st, tb = game(
        3, deal=[DEAL4[0] + ["green"], DEAL4[1] + ["revolver"], DEAL4[2] + ["rope", "study"]], env=ENV4
    )
    wrong = pack(ci("plum"), ci("rope"), ci("conservatory"))
    for seat in range(3):
        assert st[L.S_OVER] == 0
        accuse(st, seat, wrong)
    assert st[L.S_OVER] == 1 and st[L.S_WINNER] == -1


def test_a_wrong_accusation_rules_its_triple_out_for_logic_players():
    st, tb = game(4, deal=DEAL4, env=ENV4)
    kb = kbase(0)
    # seat 0 is down to plum/wrench and {conservatory, study}: two triples
    st[kb + L.K_NOT + L.ENVELOPE] |= L.ALL_CARDS & ~bit("plum", "wrench", "conservatory", "study")
    propagate(st, kb)
    assert certain_triple(st, 0) == -1
    accuse(st, 1, pack(ci("plum"), ci("wrench"), ci("study")))
    assert certain_triple(st, 0) == pack(ci("plum"), ci("wrench"), ci("conservatory"))


# --- CL-T3 / CL-T4 / CL-V4: staying, passages ---------------------------------------------------


def _know_rooms_except(st, p, unknown):
    """Seat p knows the holder of every room card but those in ``unknown``."""
    kb = kbase(p)
    for r in B.rooms:
        c = ci(r)
        h = int(st[L.S_OWNER + c])
        if r not in unknown and h < 6:
            st[kb + L.K_HAS + h] |= 1 << c
    propagate(st, kb)


def test_secret_passage_is_the_whole_move_then_a_suggestion():
    """CL-T3: from the Kitchen, take the passage to the Study (no dice) and suggest there."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    _know_rooms_except(st, 0, {"study", "conservatory"})
    st[L.S_POS + 0] = B.room("kitchen")
    take_turn(st, tb, 0)
    ev = events(st)
    assert not [e for e in ev if e[0] == "roll"]
    assert ("move", 0, B.room("kitchen"), B.room("study"), 0, 1) in ev
    assert st[L.S_POS + 0] == B.room("study") and st[L.S_NSUGG] == 1
    assert [e for e in ev if e[0] == "suggest"][0][4] == ci("study")


def test_stay_and_suggest_is_allowed_by_default():
    """CL-T3 / CL-V4 allowed: a player starting in a useful room stays and suggests."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    _know_rooms_except(st, 0, {"lounge", "conservatory"})
    st[L.S_POS + 0] = B.room("lounge")
    take_turn(st, tb, 0)
    ev = events(st)
    assert not [e for e in ev if e[0] in ("roll", "move") and e[1] == 0]
    assert [e for e in ev if e[0] == "suggest"][0][4] == ci("lounge")


def test_classic_rules_forbid_staying_unless_moved_by_a_suggestion():
    """CL-V4 classic: must leave and re-enter; CL-T4: a pawn moved in by someone else's
    suggestion may suggest there on its next turn without moving."""
    st, tb = game(4, deal=DEAL4, env=ENV4, rules={"stay_and_suggest": "classic"})
    _know_rooms_except(st, 0, {"hall"})  # useful: Hall, Conservatory
    st[L.S_POS + 0] = B.room("hall")  # the Hall has no passage
    take_turn(st, tb, 0)
    ev = events(st)
    assert [e for e in ev if e[0] == "roll"]
    assert not [e for e in ev if e[0] == "suggest" and e[4] == ci("hall")]
    st, tb = game(4, deal=DEAL4, env=ENV4, rules={"stay_and_suggest": "classic"})
    _know_rooms_except(st, 0, {"hall"})
    resolve_suggestion(st, 2, ci("scarlett"), ci("rope"), B.room("hall"))  # moves Scarlett
    assert st[L.S_MOVED + 0] == 1
    st[L.S_NEV] = 0
    take_turn(st, tb, 0)
    ev = events(st)
    assert not [e for e in ev if e[0] == "roll"]
    assert [e for e in ev if e[0] == "suggest"][0][4] == ci("hall")


# --- CL-K: clue cards -----------------------------------------------------------------------


def test_show_specific_held_card_is_seen_by_everyone():
    """CL-K1: whoever holds the Billiard Room shows it to all; it stays in their hand."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    draw(st, tb, 0, "show_specific", "billiard_room")
    for p in range(4):
        assert has(st, p, 1) & bit("billiard_room")
    assert st[L.S_PUBLIC + 1] == bit("billiard_room")
    assert st[L.S_TRUE + 1] & bit("billiard_room")
    assert st[L.S_CLUE_DRAWN] == 1


def test_show_specific_unheld_card_is_known_to_be_in_the_envelope():
    """CL-K1: nobody holds the Conservatory -> everyone learns it is the envelope's."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    draw(st, tb, 2, "show_specific", "conservatory")
    for p in range(4):
        assert has(st, p, L.ENVELOPE) & bit("conservatory")
        for q in range(4):
            assert nt(st, p, q) & bit("conservatory")
    assert sum(int(st[L.S_PUBLIC + h]) for h in range(8)) == 0


def test_show_specific_unheld_card_in_two_player_mode_may_be_face_down():
    """CL-K1 / CL-2: in 2-player mode an unheld card is in the envelope or face down."""
    deal2 = [DEAL4[0] + DEAL4[2][:2], DEAL4[1] + DEAL4[3][:2]]
    table = [("lounge", "kitchen"), ("hall", "conservatory"), ("rope", "lounge"), ("study", "study")]
    st, tb = game(2, deal=deal2, env=ENV4, table=table)
    draw(st, tb, 0, "show_specific", "rope")
    for p in range(2):
        assert not has(st, p, L.ENVELOPE) & bit("rope")
        assert nt(st, p, 0) & bit("rope") and nt(st, p, 1) & bit("rope")


@pytest.mark.parametrize(
    "effect,cat", [("name_suspect", L.CAT_SUSPECT), ("name_weapon", L.CAT_WEAPON), ("name_room", L.CAT_ROOM)]
)
def test_named_card_of_the_category_is_shown_by_its_holder(effect, cat):
    """CL-K2: the drawer names a card of the category (not its own); its holder shows it."""
    for g in range(6):
        st, tb = game(4, deal=DEAL4, env=ENV4, game_id=g)
        draw(st, tb, 0, effect)
        clue = [e for e in events(st) if e[0] == "clue"][0]
        named = clue[4]
        assert (cat >> named) & 1 and not (st[L.S_TRUE] >> named) & 1
        holder = int(st[L.S_OWNER + named])
        if holder < 6:
            assert st[L.S_PUBLIC + holder] == 1 << named
            assert all(has(st, p, holder) & (1 << named) for p in range(4))
        else:
            assert all(has(st, p, L.ENVELOPE) & (1 << named) for p in range(4))


def test_chosen_player_reveals_one_card_to_everyone():
    """CL-K3: the drawer picks another player, who reveals a card of their choice."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    draw(st, tb, 1, "choose_player_reveals")
    chosen = [e for e in events(st) if e[0] == "clue"][0][4]
    assert chosen in (0, 2, 3)
    pub = [int(st[L.S_PUBLIC + h]) for h in range(8)]
    assert bin(pub[chosen]).count("1") == 1 and sum(pub) == pub[chosen]
    assert pub[chosen] & int(st[L.S_TRUE + chosen])
    assert all(has(st, p, chosen) & pub[chosen] for p in range(4))


def test_all_reveal_every_player_shows_one_card_to_everyone():
    """CL-K4 / CL-K8: every player still in the game reveals a card; a player out does not."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    st[L.S_ACTIVE + 3] = 0
    draw(st, tb, 1, "all_reveal")
    for h in range(3):
        pub = int(st[L.S_PUBLIC + h])
        assert bin(pub).count("1") == 1 and pub & int(st[L.S_TRUE + h])
        assert all(has(st, p, h) & pub for p in range(4))
    assert st[L.S_PUBLIC + 3] == 0 and not [e for e in events(st) if e[0] == "reveal" and e[1] == 3]


def test_players_out_of_the_game_are_never_chosen_to_reveal():
    """CL-K8 / CL-K3: the drawer chooses among players still in the game; with nobody left,
    nobody reveals."""
    for g in range(6):
        st, tb = game(4, deal=DEAL4, env=ENV4, game_id=g)
        st[L.S_ACTIVE + 2] = 0
        st[L.S_ACTIVE + 3] = 0
        draw(st, tb, 1, "choose_player_reveals")
        assert [e for e in events(st) if e[0] == "clue"][0][4] == 0
        assert bin(int(st[L.S_PUBLIC])).count("1") == 1
        assert sum(int(st[L.S_PUBLIC + h]) for h in range(1, 8)) == 0
    st, tb = game(4, deal=DEAL4, env=ENV4)
    for p in (0, 2, 3):
        st[L.S_ACTIVE + p] = 0
    draw(st, tb, 1, "choose_player_reveals")
    assert [e for e in events(st) if e[0] == "clue"][0][4] == -1
    assert not [e for e in events(st) if e[0] == "reveal"]


def test_players_out_of_the_game_neither_show_nor_are_shown_to_the_left():
    """CL-K8 / CL-K5: players still in the game show to the next such player on their left;
    a player out of the game takes no part."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    st[L.S_ACTIVE + 2] = 0
    draw(st, tb, 0, "all_show_left")
    shows = sorted((e[1], e[3]) for e in events(st) if e[0] == "show")
    assert shows == [(0, 1), (1, 3), (3, 0)]
    assert all(st[L.S_SHOWN + 2 * 6 + q] == 0 and st[L.S_SHOWN + q * 6 + 2] == 0 for q in range(4))


def test_players_out_of_the_game_still_show_named_cards():
    """CL-K8 / CL-K1 / CL-K2: a player out of the game still shows a card a clue card names."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    st[L.S_ACTIVE + 1] = 0
    draw(st, tb, 0, "show_specific", "billiard_room")
    assert st[L.S_PUBLIC + 1] == bit("billiard_room")
    assert ("reveal", 1, ci("billiard_room"), -1, 0, -1) in events(st)


def test_all_show_left_is_private_to_the_left_neighbour():
    """CL-K5: each player shows one card to the next seat only."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    draw(st, tb, 0, "all_show_left")
    for j in range(4):
        left = (j + 1) % 4
        shown = int(st[L.S_SHOWN + j * 6 + left])
        assert bin(shown).count("1") == 1 and shown & int(st[L.S_TRUE + j])
        assert has(st, left, j) & shown
        other = (j + 2) % 4
        assert not has(st, other, j) & shown
    assert sum(int(st[L.S_PUBLIC + h]) for h in range(8)) == 0


def test_all_move_to_room_moves_every_player_still_in_the_game():
    """CL-K6: pawns of players still in the game go to rooms of their choice; others stay."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    st[L.S_ACTIVE + 2] = 0
    white_before = int(st[L.S_POS + 2])
    placed = draw(st, tb, 1, "all_move_to_room")
    assert placed == 1
    for seat in (0, 1, 3):
        assert st[L.S_POS + seat] < 9
    assert st[L.S_POS + 2] == white_before
    assert st[L.S_POS + 4] == B.start[4] and st[L.S_POS + 5] == B.start[5]  # unplayed pawns
    assert st[L.S_MOVED + 0] == 1 and st[L.S_MOVED + 3] == 1 and st[L.S_MOVED + 1] == 0


def test_new_passage_joins_the_secret_passage_network():
    """CL-K7: the chosen room connects to every room that has a passage."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    draw(st, tb, 0, "new_passage")
    room = [e for e in events(st) if e[0] == "clue"][0][4]
    assert room >= 0 and room not in [B.room(r) for r in ("kitchen", "study", "conservatory", "lounge")]
    ends = sum(1 << B.room(r) for r in ("kitchen", "study", "conservatory", "lounge"))
    assert st[L.S_PASS + room] == ends
    for r in ("kitchen", "study", "conservatory", "lounge"):
        assert st[L.S_PASS + B.room(r)] & (1 << room)
    assert st[L.S_PASS + B.room("kitchen")] & (1 << B.room("study"))


def test_new_passage_card_stays_in_its_room_and_leaves_the_pile():
    """CL-K7: the new-passage card (18) is not put under the pile: it is never drawn again,
    and the other cards keep their order."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    row = clue_row("new_passage")
    npile = int(st[L.S_NPILE])
    order = [int(x) for x in st[L.S_DECK : L.S_DECK + npile]]
    order.remove(row)
    st[L.S_DECK : L.S_DECK + npile] = [row] + order  # the new-passage card on top
    st[L.S_CLUE_PTR] = 0
    draw_clue(st, tb, 0)
    assert st[L.S_NPILE] == npile - 1
    drawn = []
    for _ in range(2 * (npile - 1)):
        st[L.S_NEV] = 0
        draw_clue(st, tb, 0)
        drawn += [e[2] for e in events(st) if e[0] == "clue"]
    assert drawn == [r + 1 for r in order] * 2


def test_clue_pile_cycles_card_under_the_pile():
    """CL-T2: a drawn card goes under the pile: after a whole pile of draws the first card is
    on top again (here a pile without the new-passage card, which leaves it, CL-K7)."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    keep = [int(x) for x in st[L.S_DECK : L.S_DECK + len(B.clue)] if x != clue_row("new_passage")]
    st[L.S_DECK : L.S_DECK + len(keep)] = keep
    st[L.S_NPILE] = len(keep)
    for _ in range(len(keep)):
        st[L.S_NEV] = 0
        draw_clue(st, tb, 0)
    assert st[L.S_CLUE_PTR] == 0 and st[L.S_DECK] == keep[0]
    assert st[L.S_CLUE_DRAWN] == len(keep)


# --- CL-2: two players -------------------------------------------------------------------------


def test_two_player_mode_face_down_cards_in_the_corner_rooms():
    """CL-2.1: 4 of the 18 cards face down, one in each corner room; 7 cards each."""
    st, tb = game(2)
    assert [int(st[L.S_HSIZE + h]) for h in (0, 1, L.ENVELOPE, L.TABLE)] == [7, 7, 3, 4]
    corners = {B.room(r) for r in ("kitchen", "conservatory", "lounge", "study")}
    assert {r for r in range(9) if st[L.S_ROOMCARD + r] >= 0} == corners


def test_two_player_random_rooms_flag():
    """CL-V6: any 4 random rooms."""
    res = C.resolve({"players": 2, "rules": {"two_player_rooms": "random"}})
    res.update(seed=3)
    seen = set()
    for g in range(30):
        st, _ = C.new_state(res, g)
        rooms = {r for r in range(9) if st[L.S_ROOMCARD + r] >= 0}
        assert len(rooms) == 4
        seen |= rooms
    assert len(seen) == 9


def test_looking_at_a_face_down_card_is_private():
    """CL-2.2: the player in the room learns the card; the other does not."""
    st, tb = game(2)
    kitchen = B.room("kitchen")
    card = int(st[L.S_ROOMCARD + kitchen])
    look_face_down(st, 1, kitchen)
    assert has(st, 1, L.TABLE) == 1 << card
    assert has(st, 0, L.TABLE) == 0
    prepare(st, 1)
    assert nt(st, 1, L.ENVELOPE) & (1 << card)


def test_two_player_dragged_pawn_does_not_look_until_it_stays():
    """CL-2.2: a pawn dragged into a room with a face-down card by the opponent's suggestion
    does not look at it then, nor at the start of its turn; it looks if it stays to suggest."""
    st, tb = game(2)
    kitchen = B.room("kitchen")
    card = int(st[L.S_ROOMCARD + kitchen])
    resolve_suggestion(st, 1, 0, 6, kitchen)  # seat 1 names Scarlett (seat 0's pawn)
    assert st[L.S_POS + 0] == kitchen and has(st, 0, L.TABLE) == 0
    assert not [e for e in events(st) if e[0] == "look"]
    st[L.S_NEV] = 0
    take_turn(st, tb, 0)  # the unseen face-down card makes the Kitchen useful: it stays
    ev = events(st)
    kinds = [e[0] for e in ev if e[1] == 0 and e[0] in ("look", "suggest", "roll", "move")]
    assert kinds[:2] == ["look", "suggest"]
    assert ("look", 0, card, kitchen, -1, -1) in ev and has(st, 0, L.TABLE) == 1 << card


def test_two_player_dragged_pawn_that_accuses_at_once_never_looks():
    """CL-2.2: the look is part of staying to suggest; a dragged player that accuses at the
    start of its turn has not looked."""
    deal2 = [DEAL4[0] + DEAL4[2][:2], DEAL4[1] + DEAL4[3][:2]]
    table = [("lounge", "kitchen"), ("hall", "conservatory"), ("rope", "lounge"), ("study", "study")]
    st, tb = game(2, deal=deal2, env=ENV4, table=table)
    kb = kbase(0)
    st[kb + L.K_HAS + L.ENVELOPE] = bit(*ENV4)  # seat 0 is certain of the envelope
    propagate(st, kb)
    resolve_suggestion(st, 1, 0, 6, B.room("kitchen"))
    st[L.S_NEV] = 0
    take_turn(st, tb, 0)
    ev = events(st)
    assert [e[0] for e in ev] == ["accuse"] and st[L.S_WINNER] == 0
    assert not (int(st[L.S_LOOKED]) >> B.room("kitchen")) & 1


def test_two_player_entering_by_passage_looks_at_once():
    """CL-2.2: entering on one's own turn (here a secret passage) sees the face-down card."""
    st, tb = game(2)
    kitchen, study = B.room("kitchen"), B.room("study")
    st[L.S_POS + 0] = kitchen
    look_face_down(st, 0, kitchen)  # already seen: the Study's card is what it wants
    st[L.S_NEV] = 0
    take_turn(st, tb, 0)
    ev = events(st)
    assert ("move", 0, kitchen, study, 0, 1) in ev
    card = int(st[L.S_ROOMCARD + study])
    names = [e[0] for e in ev]
    assert ("look", 0, card, study, -1, -1) in ev and names.index("look") < names.index("suggest")


def test_two_player_pawn_moved_by_the_opponents_clue_card_does_not_look():
    """CL-2.2: a pawn moved by the opponent's CL-K6 card is not entering on its own turn."""
    st, tb = game(2)
    draw(st, tb, 1, "all_move_to_room")
    room0 = int(st[L.S_POS + 0])
    assert room0 < 9 and st[L.S_ROOMCARD + room0] >= 0  # it chose an unseen face-down room
    assert not [e for e in events(st) if e[0] == "look" and e[1] == 0]
    assert has(st, 0, L.TABLE) == 0


# --- CL-K9 and the flags roll_every_turn / move_steps ------------------------------------------

DEAL_NO_ROOMS = [
    ["scarlett", "candlestick", "dagger", "mustard", "lead_pipe"],
    ["white", "revolver", "kitchen", "ballroom", "dining_room"],
    ["green", "rope", "billiard_room", "library"],
    ["peacock", "lounge", "hall", "study"],
]


def _turn_with_loupe(setup_state, want, tries=200):
    """Play seat 0's turn from ``setup_state()`` under successive random streams until its
    roll draws a clue card (or, ``want=False``, does not); return (st, events)."""
    for k in range(tries):
        st, tb = setup_state()
        st[L.S_RNG] = stream_key(99, k)
        take_turn(st, tb, 0)
        ev = events(st)
        rolls = [e for e in ev if e[0] == "roll" and e[1] == 0]
        if rolls and rolls[0][5] == int(want):
            return st, ev
    raise AssertionError("no such roll")


def test_rolling_player_sent_by_card_16_to_its_own_room_does_not_suggest_there():
    """CL-K9: a player who rolled and draws card 16 (all_move_to_room), keeping its pawn in
    the room it started in, does not suggest there this turn; it walks with what is left."""
    conservatory = B.room("conservatory")

    def state():
        st, tb = game(4, deal=DEAL_NO_ROOMS, env=ENV4)
        _know_rooms_except(st, 0, set())  # the room is settled: only the Conservatory is useful
        st[L.S_POS + 0] = conservatory
        st[L.S_STALE + 0] = 1  # its last suggestion there taught it nothing: it rolls
        st[L.S_DECK + st[L.S_CLUE_PTR]] = clue_row("all_move_to_room")
        return st, tb

    st, ev = _turn_with_loupe(state, True)
    assert [e for e in ev if e[0] == "clue"][0][3] == L.EFFECT.ALL_MOVE_TO_ROOM
    assert not [e for e in ev if e[0] == "move" and e[1] == 0 and e[5] == 2]  # stayed put
    assert not [e for e in ev if e[0] == "suggest" and e[4] == ci("conservatory")]
    walk = [e for e in ev if e[0] == "move" and e[1] == 0 and e[5] == 0]
    roll = [e for e in ev if e[0] == "roll"][0]
    assert walk and walk[0][2] == conservatory and walk[0][4] == roll[2] + roll[3] - 1


def test_rolling_player_sent_by_card_16_to_another_room_suggests_there():
    """CL-K6 / CL-K9: the drawer moved into another room suggests there instead of walking."""

    def state():
        st, tb = game(4, deal=DEAL4, env=ENV4)
        _know_rooms_except(st, 0, {"lounge", "conservatory"})
        st[L.S_DECK + st[L.S_CLUE_PTR]] = clue_row("all_move_to_room")
        return st, tb  # Scarlett on her start square

    st, ev = _turn_with_loupe(state, True)
    room = int(st[L.S_POS + 0])
    assert room in (B.room("lounge"), B.room("conservatory"))
    assert [e for e in ev if e[0] == "suggest"][0][4] == L.FIRST_ROOM + room
    assert not [e for e in ev if e[0] == "move" and e[1] == 0 and e[5] == 0]


def _stay_state(rules):
    st, tb = game(4, deal=DEAL4, env=ENV4, rules=rules)
    _know_rooms_except(st, 0, {"lounge", "conservatory"})
    st[L.S_POS + 0] = B.room("lounge")
    return st, tb


def test_roll_every_turn_no_a_stay_replaces_the_roll():
    """Flag roll_every_turn = "no" (default, the seed: *vous ne jetterez donc pas les dés*):
    a player who stays rolls no dice, so it draws no clue card."""
    for k in range(20):
        st, tb = _stay_state({})
        st[L.S_RNG] = stream_key(99, k)
        take_turn(st, tb, 0)
        ev = events(st)
        assert not [e for e in ev if e[0] in ("roll", "clue")]
        assert [e for e in ev if e[0] == "suggest"][0][4] == ci("lounge")


def test_roll_every_turn_yes_a_stay_rolls_and_may_draw_a_clue_card():
    """Flag roll_every_turn = "yes" (2023 booklet): a staying player rolls; a loupe draws a
    clue card before the suggestion; the steps are not walked."""
    st, ev = _turn_with_loupe(lambda: _stay_state({"roll_every_turn": "yes"}), True)
    names = [e[0] for e in ev]
    assert names[0] == "roll" and "clue" in names
    assert names.index("clue") < names.index("suggest")
    assert not [e for e in ev if e[0] == "move" and e[1] == 0 and e[5] == 0]
    st, ev = _turn_with_loupe(lambda: _stay_state({"roll_every_turn": "yes"}), False)
    assert [e[0] for e in ev][0] == "roll" and "clue" not in [e[0] for e in ev]
    assert [e for e in ev if e[0] == "suggest"][0][4] == ci("lounge") and st[L.S_POS] == B.room("lounge")


def test_roll_every_turn_yes_a_passage_rolls_too():
    """Flag roll_every_turn = "yes": the passage still counts as the whole move (CL-T3)."""
    for k in range(10):
        st, tb = game(4, deal=DEAL4, env=ENV4, rules={"roll_every_turn": "yes"})
        _know_rooms_except(st, 0, {"study", "conservatory"})
        st[L.S_POS + 0] = B.room("kitchen")
        st[L.S_RNG] = stream_key(7, k)
        take_turn(st, tb, 0)
        ev = events(st)
        assert ev[0][0] == "roll"
        if "clue" not in [e[0] for e in ev]:
            assert ("move", 0, B.room("kitchen"), B.room("study"), 0, 1) in ev
            assert not [e for e in ev if e[0] == "move" and e[5] == 0]
