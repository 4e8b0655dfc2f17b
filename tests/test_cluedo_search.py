"""The Cluedo ``search`` player (kernels/cluedo/search.py): honest about hidden cards (twins
that differ only in cards it has not seen get the same decisions), reproducible for any
thread count, legal (invariants, restricted play, the referee), and its choices on
positions built by hand (CL-T5 suggestion, CL-T6 accusation)."""

import numba
import numpy as np
import polars as pl
import pytest

from kernels.cluedo import layout as L
from kernels.cluedo import rollout, search
from kernels.cluedo.agents import choose_target, prepare, start_action, wants_accuse
from kernels.cluedo.knowledge import add_has, kbase, propagate
from kernels.cluedo.rules import resolve_suggestion, take_turn
from sim.api import simulate
from sim.games.cluedo import adapter as C
from sim.games.cluedo.referee import replay_result

SMALL = {"strategy": "search", "params": {"samples": 24.0}}  # few samples: fast tests
EV = {name: i for i, name in enumerate(L.EV_NAMES)}


def resolved(players, seats, seed=1, **rules):
    res = C.resolve({"players": players, "rules": rules, "seats": seats})
    res.update(seed=seed, rotate=True, games=0)
    return res


def ci(name):
    return C.card_index(name)


# --- honesty ---------------------------------------------------------------------------------


def _unseen_swap(st, seat, rng):
    """Two cards held by two different opponents of ``seat`` that its knowledge says nothing
    about and nobody showed; None if there are none."""
    kb = kbase(seat)
    n = int(st[L.S_N])
    told = 0
    for h in range(L.N_HOLDERS):
        told |= int(st[L.S_PUBLIC + h])
    for i in range(36):
        told |= int(st[L.S_SHOWN + i])
    opps = [j for j in range(n) if j != seat]
    pairs = []
    for x in opps:
        for y in opps:
            if x >= y:
                continue
            for a in range(21):
                for b in range(21):
                    if not ((int(st[L.S_TRUE + x]) >> a) & 1 and (int(st[L.S_TRUE + y]) >> b) & 1):
                        continue
                    if ((1 << a) | (1 << b)) & told:
                        continue
                    # the seat's facts stay true when a goes to y and b to x
                    if (int(st[kb + L.K_HAS + x]) >> a) & 1 or (int(st[kb + L.K_NOT + y]) >> a) & 1:
                        continue
                    if (int(st[kb + L.K_HAS + y]) >> b) & 1 or (int(st[kb + L.K_NOT + x]) >> b) & 1:
                        continue
                    pairs.append((x, a, y, b))
    rng.shuffle(pairs)
    for x, a, y, b in pairs:
        tw = st.copy()
        tw[L.S_TRUE + x] ^= (1 << a) | (1 << b)
        tw[L.S_TRUE + y] ^= (1 << a) | (1 << b)
        tw[L.S_OWNER + a], tw[L.S_OWNER + b] = y, x
        ok = True
        for e in st[kb + L.K_CL : kb + L.K_CL + st[kb + L.K_NCL]]:
            h, m = int(e) >> 21, int(e) & L.ALL_CARDS
            ok &= bool(int(tw[L.S_TRUE + h]) & m)  # the seat's clauses stay true
        if ok:
            return tw
    return None


def _decisions(st, tb, seat):
    """Every choice the seat makes from this position, and what it estimated."""
    prepare(st, seat)
    ch = int(st[L.S_CHAR + seat])
    pos = int(st[L.S_POS + ch])
    out = [wants_accuse(st, seat), choose_target(st, tb, seat, pos)]
    out += list(st[L.S_PROB + seat * 24 : L.S_PROB + seat * 24 + 24])
    if pos < 9:
        out += [start_action(st, tb, seat, pos, True), search.choose_suggestion(st, seat)]
    out += list(st[L.S_SDEC : L.S_SDEC + 6])
    return out


@pytest.mark.parametrize("players", [3, 4])
def test_twins_that_differ_only_in_unseen_cards_get_the_same_decisions(players):
    """Mid-game positions of real games: swap two cards between two opponents' hands that
    the search seat has not seen (its knowledge true of both deals); every decision of the
    seat — accusation, walk target, stay or move, suggestion — and its estimates are the
    same in both."""
    res = resolved(players, [SMALL] + [{"strategy": "prob"}] * (players - 1), seed=5)
    tb = C.build_tables(res)
    rng = np.random.default_rng(0)
    compared = 0
    changed = 0
    for game_id in range(12):
        st = np.zeros(L.STATE_SIZE, np.int64)
        from kernels.cluedo.rules import setup

        setup(st, tb, game_id, players, 0)
        seat = [s for s in range(players) if st[L.S_AGENT + s] == L.AGENT.SEARCH][0]
        for _ in range(int(rng.integers(0, 3 * players))):
            if st[L.S_OVER]:
                break
            cur = int(st[L.S_CUR])
            if st[L.S_ACTIVE + cur]:
                take_turn(st, tb, cur)
            st[L.S_TURNS] += 1
            st[L.S_CUR] = (cur + 1) % players
        if st[L.S_OVER] or not st[L.S_ACTIVE + seat]:
            continue
        tw = _unseen_swap(st, seat, rng)
        if tw is None:
            continue
        assert not np.array_equal(st[L.S_TRUE : L.S_TRUE + 6], tw[L.S_TRUE : L.S_TRUE + 6])
        assert _decisions(st.copy(), tb, seat) == _decisions(tw.copy(), tb, seat)
        compared += 1
        # control: the comparison sees a change in what the seat knows (it is told one of
        # the swapped cards' holders)
        x = [h for h in range(players) if h != seat and tw[L.S_TRUE + h] != st[L.S_TRUE + h]][0]
        add_has(tw, kbase(seat), x, int(tw[L.S_TRUE + x]) & ~int(st[L.S_TRUE + x]))
        changed += _decisions(st.copy(), tb, seat) != _decisions(tw, tb, seat)
    assert compared >= 6 and changed >= 1


def test_twin_deals_play_the_same_first_turn():
    """Twin deals at 4 players (two cards swapped between seats 2 and 3, unseen by the search
    seat 0, which plays first): the first turn is the same up to the refutation — the roll,
    the walk, the clue-card choices and the suggestion."""
    res = resolved(4, [SMALL] + [{"strategy": "prob"}] * 3, seed=9)
    res["rotate"] = False
    tb = C.build_tables(res)
    same = 0
    for game_id in range(8):
        st, _ = C.new_state(res, game_id)
        a = (int(st[L.S_TRUE + 2]) & -int(st[L.S_TRUE + 2])).bit_length() - 1
        b = (int(st[L.S_TRUE + 3]) & -int(st[L.S_TRUE + 3])).bit_length() - 1
        tw = st.copy()
        for s_ in (tw,):
            s_[L.S_TRUE + 2] ^= (1 << a) | (1 << b)
            s_[L.S_TRUE + 3] ^= (1 << a) | (1 << b)
            s_[L.S_OWNER + a], s_[L.S_OWNER + b] = 3, 2
        from kernels.cluedo.knowledge import kn_init

        for p in (2, 3):
            kn_init(tw, kbase(p), p, 4, False)
        logs = []
        for s_ in (st, tw):
            s_[L.S_REC] = 1
            s_[L.S_NEV] = 0
            take_turn(s_, tb, 0)
            rows = [
                tuple(int(x) for x in s_[L.S_EVB + i * 8 + 2 : L.S_EVB + i * 8 + 8])
                for i in range(s_[L.S_NEV])
            ]
            # up to the first card the opponents show (a clue card's reveal, the refutation)
            out = []
            for r in rows:
                if r[1] in (EV["reveal"], EV["show"]):
                    break
                out.append(r[:5] if r[1] == EV["suggest"] else r)  # not who refuted
            logs.append(out)
        assert logs[0] == logs[1]
        same += any(r[1] == EV["suggest"] for r in logs[0])
    assert same >= 1  # at least one first turn reached a suggestion


# --- reproducible and legal ------------------------------------------------------------------


def test_same_rows_on_one_or_two_threads_and_any_chunks():
    res = resolved(3, [SMALL, {"strategy": "prob"}, SMALL], seed=3)
    numba.set_num_threads(1)
    g1, s1, e1 = C.run_arrays(res, 0, 40, events=True)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    g2, s2, e2 = C.run_arrays(res, 0, 40, events=True)
    ga, sa, ea = C.run_arrays(res, 0, 17, events=True)
    gb, sb, eb = C.run_arrays(res, 17, 23, events=True)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for k in g1:
        assert np.array_equal(g1[k], g2[k]) and np.array_equal(g1[k], np.concatenate([ga[k], gb[k]]))
    for k in s1:
        assert np.array_equal(s1[k], s2[k]) and np.array_equal(s1[k], np.concatenate([sa[k], sb[k]]))
    assert np.array_equal(e1, e2) and np.array_equal(e1, np.concatenate([ea, eb]))


@pytest.mark.parametrize("players", [2, 4])
def test_search_games_keep_the_invariants_and_replay_clean(players):
    """Invariants after every turn (knowledge true of the deal, cards, pawns) and the
    independent referee finds no divergence in search games (CL-T, CL-K, CL-2)."""
    res = resolved(players, [SMALL] + [{"strategy": "prob"}] * (players - 1), seed=21)
    g, _, _ = C.run_arrays(res, 0, 60, check=True)
    assert g["violations"].sum() == 0 and (g["truncated"] == 0).all()
    cfg = {"game": "cluedo", "players": players, "rotate": True, "seats": res["seats"]}
    rep = replay_result(simulate(cfg, games=40, seed=22, events=True))
    assert rep.games == 40 and not rep.divergences, rep.divergences[:1]


def test_restricted_search_never_names_its_own_cards():
    """``restrict = { actions = ["own_cards"] }`` (CL-T5) holds for the search player too."""
    seat = dict(SMALL, restrict={"actions": ["own_cards"]})
    cfg = {"game": "cluedo", "players": 3, "rotate": False, "seats": [seat, {"strategy": "prob"}, SMALL]}
    ev = pl.from_arrow(simulate(cfg, games=40, seed=4, events=True).events)
    deals = ev.filter(pl.col("kind") == "deal")
    hands = {
        (r["game_id"], r["seat"]): set(r["a"])
        for r in deals.group_by("game_id", "seat").agg(pl.col("a")).iter_rows(named=True)
    }
    sug = ev.filter((pl.col("kind") == "suggest") & (pl.col("seat") == 0))
    assert sug.height > 20
    for r in sug.iter_rows(named=True):
        assert r["a"] not in hands[r["game_id"], 0] and r["b"] not in hands[r["game_id"], 0]
    free = ev.filter(
        (pl.col("kind") == "suggest") & (pl.col("seat") == 2)
    )  # the unrestricted search seat does
    own = [r["a"] in hands[r["game_id"], 2] for r in free.iter_rows(named=True)]
    assert any(own)


# --- choices on built positions -----------------------------------------------------------------

DEAL3 = [
    ["scarlett", "mustard", "candlestick", "kitchen", "ballroom", "conservatory"],
    ["white", "green", "dagger", "lead_pipe", "dining_room", "billiard_room"],
    ["peacock", "revolver", "rope", "library", "lounge", "hall"],
]
ENV3 = ["plum", "wrench", "study"]


def _position(room, unknown=("revolver", "wrench")):
    """3 players, search seat 0 knows where every card is except the cards of ``unknown``:
    one is seat 2's, the other the envelope's; its pawn is in ``room``."""
    res = resolved(
        3,
        [{"strategy": "search"}, {"strategy": "logic"}, {"strategy": "logic"}],
        characters=["scarlett", "mustard", "white"],
    )
    res["rotate"] = False
    st, tb = C.new_state(res, 0)
    C.set_deal(st, DEAL3, ENV3)
    kb = kbase(0)
    for h, hand in ((1, DEAL3[1]), (2, DEAL3[2]), (L.ENVELOPE, ENV3)):
        add_has(st, kb, h, sum(1 << ci(c) for c in hand if c not in unknown))
    propagate(st, kb)
    st[L.S_POS + 0] = B.room(room)
    return st, tb


B = C.load_board()


def test_suggestion_isolates_the_one_open_question():
    """Only the weapon is in doubt (revolver or wrench; seat 2 holds the other).  Naming one of
    them with a suspect nobody can show (its own, or the envelope's) in a room nobody can
    show (its own) settles it whoever refutes; a suspect of seat 1 would be shown by seat 1
    and teach nothing (CL-T5)."""
    st, tb = _position("kitchen")
    prepare(st, 0)
    assert wants_accuse(st, 0) < 0 and st[L.S_PROB + 22] >= 0  # two triples left
    sw = search.choose_suggestion(st, 0)
    assert sw % 64 in (ci("revolver"), ci("wrench"))
    assert sw // 64 in (ci("scarlett"), ci("mustard"), ci("plum"))


def test_accusation_comes_sooner_with_more_opponents_still_in():
    """One turn of look-ahead (CL-T6): waiting pays only if no opponent still in the game
    accuses right first, so the same two-way doubt (revolver or wrench, about even) is worth
    a gamble against two opponents (threshold 0.6: bar 0.36) but not against one (bar 0.6)."""
    st, tb = _position("kitchen")
    st[L.S_PARAM + search.P_THRESHOLD] = int(0.6 * L.PARAM_SCALE)
    prepare(st, 0)
    p = st[L.S_PROB + 23] / 1e6
    assert 0.36 < p < 0.6  # the likelier of two about-even triples (sampled)
    assert wants_accuse(st, 0) >= 0
    st[L.S_ACTIVE + 1] = 0  # seat 1 accused wrongly: one opponent left
    assert wants_accuse(st, 0) < 0


# --- the accusation by rollouts (kernels/cluedo/rollout.py, CL-T6) ------------------------------

ROLL = {"strategy": "search", "params": {"samples": 24.0, "rollouts": 8.0, "rsamples": 8.0}}

DEAL4 = [
    ["scarlett", "candlestick", "kitchen", "ballroom"],
    ["mustard", "peacock", "dagger", "conservatory", "dining_room"],
    ["white", "lead_pipe", "revolver", "billiard_room", "lounge"],
    ["green", "rope", "library", "hall"],
]
ENV4 = ["plum", "wrench", "study"]


def _race(unrefuted, rollouts=32.0):
    """4 players, the search seat 0 at the end of its turn in the kitchen (a passage to the
    study): it knows the envelope's plum and wrench and every room's holder but the study's
    (the envelope's) and the lounge's (seat 2's).  With ``unrefuted``, seat 1, whose pawn is
    in the study, suggested plum, wrench, study there and nobody could show (CL-T5): seat 1
    knows the envelope, seat 0 only that the study is seat 1's or the envelope's."""
    res = resolved(
        4,
        [
            {
                "strategy": "search",
                "params": {"samples": 64.0, "rollouts": rollouts, "rsamples": 16.0, "threshold": 0.95},
            },
            {"strategy": "prob"},
            {"strategy": "prob"},
            {"strategy": "prob"},
        ],
        characters=["scarlett", "mustard", "white", "green"],
    )
    res["rotate"] = False
    st, tb = C.new_state(res, 0)
    C.set_deal(st, DEAL4, ENV4)
    kb = kbase(0)
    add_has(st, kb, L.ENVELOPE, (1 << ci("plum")) | (1 << ci("wrench")))
    for h, hand in enumerate(DEAL4):
        add_has(st, kb, h, sum(1 << ci(c) for c in hand if c in B.rooms and c not in ("study", "lounge")))
    propagate(st, kb)
    st[L.S_POS + 0] = B.room("kitchen")
    st[L.S_POS + 1] = B.room("study")
    if unrefuted:
        resolve_suggestion(st, 1, ci("plum"), ci("wrench"), B.room("study"))
    st[L.S_CUR] = 0
    return st, tb


def test_rollouts_guess_only_when_an_opponent_is_about_to_win():
    """Seat 0 doubts between two envelope triples (CL-T6).  Against opponents who know only
    their hands, waiting is safe: next turn it takes the passage to the study, suggests, and is
    certain; it waits.  When seat 1, next to play, has had plum, wrench, study go unrefuted
    (it knows the envelope and will accuse first whenever the study is the envelope's), waiting
    loses in those deals: it accuses now, and is right.  The threshold bar (0.95 ** 3) guesses
    in neither."""
    st, tb = _race(False)
    prepare(st, 0)
    assert 0.2 < st[L.S_PROB + 23] / 1e6 < 0.8 and wants_accuse(st, 0) < 0
    rollout.after_turn(st, tb, 0)
    assert st[L.S_ACCUSED + 0] == 0 and st[L.S_SDEC + 0] >= 2  # rolled out, waited

    st, tb = _race(True)
    prepare(st, 0)
    assert 0.5 < st[L.S_PROB + 23] / 1e6 < 0.857 and wants_accuse(st, 0) < 0
    rollout.after_turn(st, tb, 0)
    assert st[L.S_ACCUSED + 0] == 1 and st[L.S_WINNER] == 0

    st, tb = _race(True, rollouts=0.0)  # the bar only: no guess
    assert not rollout.active(st, 0)


def _search_seat_in_a_room(tb, game_id, turns):
    """Game ``game_id`` of a 4-player table (``tb``) played ``turns`` turns by every seat's
    agent: ``(state, search seat)`` when the search seat is still in with its pawn in a room
    (it may accuse, CL-T6), else None."""
    from kernels.cluedo.rules import setup

    st = np.zeros(L.STATE_SIZE, np.int64)
    setup(st, tb, game_id, 4, 0)
    seat = [s for s in range(4) if st[L.S_AGENT + s] == L.AGENT.SEARCH][0]
    while not st[L.S_OVER] and st[L.S_TURNS] < turns:
        cur = int(st[L.S_CUR])
        if st[L.S_ACTIVE + cur]:
            take_turn(st, tb, cur)
        st[L.S_TURNS] += 1
        st[L.S_CUR] = (cur + 1) % 4
    ch = int(st[L.S_CHAR + seat])
    if st[L.S_OVER] or not st[L.S_ACTIVE + seat] or st[L.S_POS + ch] >= 9:
        return None
    return st, seat


def test_rollout_decisions_are_the_same_for_twins_that_differ_only_in_unseen_cards():
    """Mid-game positions at 4 players: the accusation decision by rollouts (``before_turn``:
    its triple or wait, and the stream numbers it used) is the same in two deals that differ
    only in two cards of two opponents the seat has not seen."""
    res = resolved(4, [ROLL] + [{"strategy": "prob"}] * 3, seed=5)
    tb = C.build_tables(res)
    rng = np.random.default_rng(1)
    rolled = 0
    for game_id in range(40):
        found = _search_seat_in_a_room(tb, game_id, 12 + game_id % 9)
        if found is None:
            continue
        st, seat = found
        tw = _unseen_swap(st, seat, rng)
        if tw is None:
            continue
        before = int(st[L.S_SDEC + seat])
        rollout.before_turn(st, tb, seat)
        rollout.before_turn(tw, tb, seat)
        assert st[L.S_SACC + seat] == tw[L.S_SACC + seat]
        assert st[L.S_SDEC + seat] == tw[L.S_SDEC + seat]
        rolled += int(st[L.S_SDEC + seat]) - before >= 2
    assert rolled >= 3


def test_rollout_rows_are_the_same_on_one_or_two_threads_and_any_chunks():
    res = resolved(4, [ROLL, {"strategy": "prob"}, ROLL, {"strategy": "prob"}], seed=8)
    numba.set_num_threads(1)
    g1, s1, _ = C.run_arrays(res, 0, 24)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    g2, s2, _ = C.run_arrays(res, 0, 24)
    ga, sa, _ = C.run_arrays(res, 0, 9)
    gb, sb, _ = C.run_arrays(res, 9, 15)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for k in g1:
        assert np.array_equal(g1[k], g2[k]) and np.array_equal(g1[k], np.concatenate([ga[k], gb[k]]))
    for k in s1:
        assert np.array_equal(s1[k], s2[k]) and np.array_equal(s1[k], np.concatenate([sa[k], sb[k]]))


def test_rollout_games_keep_the_invariants_and_replay_clean():
    """Accusations decided between turns by rollouts are legal (CL-T6: from a room, on the
    seat's turn) and the scratch games leave the real one untouched: invariants after every
    turn, the referee finds no divergence."""
    res = resolved(4, [ROLL] + [{"strategy": "prob"}] * 3, seed=23)
    g, s, _ = C.run_arrays(res, 0, 40, check=True)
    assert g["violations"].sum() == 0 and (g["truncated"] == 0).all()
    cfg = {"game": "cluedo", "players": 4, "rotate": True, "seats": res["seats"]}
    rep = replay_result(simulate(cfg, games=30, seed=24, events=True))
    assert rep.games == 30 and not rep.divergences, rep.divergences[:1]


# --- what opponents' suggestions tell (parameter ``tells``, CL-T5) ------------------------------


def _told_position(tells, asker):
    """4 players, the search seat 0 knows only its hand.  ``asker`` suggests white and rope in
    the kitchen (CL-T5): seat 2 holds white, so the refutation stops at the first of seats 2
    or 3 to the asker's left that holds one of them."""
    seat0 = {"strategy": "search", "params": {"samples": 512.0, "tells": tells}}
    res = resolved(
        4,
        [seat0, {"strategy": "prob"}, {"strategy": "prob"}, {"strategy": "prob"}],
        characters=["scarlett", "mustard", "white", "green"],
    )
    res["rotate"] = False
    st, tb = C.new_state(res, 0)
    C.set_deal(st, DEAL4, ENV4)
    st[L.S_POS + st[L.S_CHAR + asker]] = B.room("kitchen")
    resolve_suggestion(st, asker, ci("white"), ci("rope"), B.room("kitchen"))
    prepare(st, 0)
    return st


def test_an_opponents_suggested_cards_become_likelier_to_be_elsewhere_with_tells():
    """Agents name the suspect and weapon they are unsure of (CL-T5), so with ``tells`` the
    seat believes seat 1 holds white and rope less than its bare facts say: the envelope's
    chance of holding each goes up, on the same sampled deals.  A suggestion of its own tells
    it nothing of the kind: there ``tells`` changes no estimate."""
    env = {}
    for tells in (0.0, 0.5):
        st = _told_position(tells, asker=1)
        env[tells] = [int(st[L.S_PROB + c]) for c in (ci("white"), ci("rope"))]
    for bare, told in zip(env[0.0], env[0.5]):
        assert told > bare * 1.05, env
    own = [list(_told_position(tells, asker=0)[L.S_PROB : L.S_PROB + 24]) for tells in (0.0, 0.5)]
    assert own[0] == own[1]


def test_settled_rollouts_take_the_choice_all_rollouts_would():
    """The accusation by rollouts (CL-T6) stops once the rollouts left could not change its
    choice (accuse when p >= wins / rollouts + margin).  At mid-game positions at 4 players, before
    and after the seat's turn: the same triple or wait as when every rollout is played, the
    same stream numbers used, never more rollouts, and in some decisions fewer."""
    res = resolved(
        4, [dict(ROLL, params=dict(ROLL["params"], rollouts=32.0))] + [{"strategy": "prob"}] * 3, seed=6
    )
    tb = C.build_tables(res)
    decisions = fewer = 0
    for game_id in range(40):
        found = _search_seat_in_a_room(tb, game_id, 10 + game_id % 13)
        if found is None:
            continue
        st, seat = found
        for at_start in (True, False):
            a, b = st.copy(), st.copy()
            t_all, n_all = rollout._decide(a, tb, seat, at_start, False)
            t_set, n_set = rollout._decide(b, tb, seat, at_start, True)
            assert t_set == t_all and (a == b).all(), game_id
            assert n_all in (0, 32) and n_set <= n_all
            decisions += n_all > 0
            fewer += n_set < n_all
    assert decisions >= 10 and fewer >= decisions // 2, (decisions, fewer)
