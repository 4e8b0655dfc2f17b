"""Cluedo rules on hand-built positions: suggestions and refutation (CL-T5), accusation and
elimination (CL-T6, CL-T7), passages (CL-T3, CL-T4), every clue-card effect (CL-K1..K7),
setup (CL-S) and the 2-player mode (CL-2)."""

import pytest

from kernels.cluedo import layout as L
from kernels.cluedo.agents import certain_triple, choose_show, pack, prepare
from kernels.cluedo.knowledge import kbase, propagate
from kernels.cluedo.rules import accuse, draw_clue, look_face_down, resolve_suggestion, take_turn
from sim.games import cluedo as C

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


@pytest.mark.parametrize(
    "players,sizes", [(3, [6, 6, 6]), (4, [5, 5, 4, 4]), (5, [4, 4, 4, 3, 3]), (6, [3] * 6)]
)
def test_deal_one_at_a_time_from_the_first_player(players, sizes):
    """CL-S2: envelope = one card per category; 18 dealt clockwise from seat 0."""
    st, tb = game(players)
    assert [int(st[L.S_HSIZE + p]) for p in range(players)] == sizes
    env = int(st[L.S_TRUE + L.ENVELOPE])
    for cat in (L.CAT_SUSPECT, L.CAT_WEAPON, L.CAT_ROOM):
        assert bin(env & cat).count("1") == 1
    assert st[L.S_HSIZE + L.TABLE] == 0


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
    """CL-K4 (eliminated players reveal too)."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    st[L.S_ACTIVE + 3] = 0
    draw(st, tb, 1, "all_reveal")
    for h in range(4):
        pub = int(st[L.S_PUBLIC + h])
        assert bin(pub).count("1") == 1 and pub & int(st[L.S_TRUE + h])
        assert all(has(st, p, h) & pub for p in range(4))


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


def test_clue_pile_cycles_card_under_the_pile():
    """CL-T2: a drawn card goes under the pile: after 29 draws the first card is on top again."""
    st, tb = game(4, deal=DEAL4, env=ENV4)
    first = int(st[L.S_DECK])
    for _ in range(len(B.clue)):
        st[L.S_NEV] = 0
        draw_clue(st, tb, 0)
    assert st[L.S_CLUE_PTR] == 0 and st[L.S_DECK] == first
    assert st[L.S_CLUE_DRAWN] == len(B.clue)


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
