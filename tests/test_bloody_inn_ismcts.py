"""``search`` with ``method = 1``: information-set MCTS (SO-ISMCTS) over the seat's own
night actions, and the rollout that stops at a seat's next night action it stands on.

Legal choices only (invariant checks on, 1-4 players, BI-N1..N7), rows independent of
threads and chunking, decisions that ignore every card its seat cannot see, and a tree that
does real work: uniform exploration reproduces DMC's choice where DMC's means are clearly
apart, UCB finds the clearly best action, and deeper trees keep their visit counts
consistent.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from kernels.bloody_inn import layout as L
from kernels.bloody_inn import strat_search as S
from kernels.bloody_inn.play import play_one
from kernels.bloody_inn.rollout import NO_STOP, play_to_seat
from kernels.bloody_inn.setup import setup_game
from kernels.bloody_inn.strat_heuristic import STAMP
from kernels.bloody_inn.strategies import SEARCH
from sim import api
from sim.games.bloody_inn.adapter import ADAPTER
from tests.test_bloody_inn_search import (
    _decision,
    _hide_and_shuffle,
    _to_night,
    cfg,
    fresh,
    play,
    seat,
    template,
)

FAST = {"method": 1, "determinizations": 3, "candidates": 3, "tree_depth": 2}


# --- the rollout that stops at a seat's next night action -----------------------------------


def _acting(st):
    np_ = st[L.G_NP]
    return (st[L.G_FIRST] + (st[L.G_TURNS] % (2 * np_)) % np_) % np_


@pytest.mark.parametrize("players", [1, 2, 4])
def test_play_to_seat_stops_at_each_own_night_action_and_plays_the_game(players):
    """Resumed at every stop, ``play_to_seat`` plays exactly ``play_one``'s game (every event);
    each stop is inside a night (BI-N1), before one of the seat's own actions, and there are
    as many stops as that seat took night actions."""
    lineup = ["expert", "greedy", "random", "killer"][:players]
    for gid in range(3):
        p = gid % players
        a, pr = template(players, lineup, 6, events=True)
        b = a.copy()
        play_one(fresh(a, 6, gid), pr)
        setup_game(fresh(b, 6, gid))
        stops = 0
        while play_to_seat(b, pr, p, NO_STOP):
            assert b[L.G_PHASE] == 1 and _acting(b) == p
            stops += 1
        n = a[L.G_EV_N]
        assert (a[: L.EV_BASE + n * L.EV_FIELDS] == b[: L.EV_BASE + n * L.EV_FIELDS]).all()
        ev = a[L.EV_BASE : L.EV_BASE + n * L.EV_FIELDS].reshape(n, L.EV_FIELDS)
        own_actions = ((ev[:, L.EV_KIND] == L.EVENT.action) & (ev[:, L.EV_SEAT] == p)).sum()
        assert stops == own_actions > 0


# --- legality, reproducibility ----------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_ismcts_makes_only_legal_choices(players):
    others = ["expert", "random", "greedy", "killer"]
    seats = [seat("search", **FAST)] + [seat(n) for n in others[: players - 1]]
    g, s = play(players, seats, {1: 40, 2: 30, 3: 20, 4: 16}[players], seed=50 + players)
    assert (g["invariant_error"] == 0).all() and (g["truncated"] == 0).all()
    assert (s.filter(pl.col("strategy") == "search")["score"] > 0).any()


@pytest.mark.parametrize("common", [0, 1], ids=["own-samples", "common-samples"])
def test_ismcts_rows_do_not_depend_on_threads_or_chunks(common):
    c = cfg(3, [seat("search", **FAST, common_samples=common), seat("expert"), seat("banker")], 16, seed=13)
    a = api.simulate(c, threads=1)
    b = api.simulate(c, threads=2)
    resolved = api.resolve(c)
    parts = [ADAPTER.simulate_chunk(resolved, s0, n) for s0, n in ((0, 5), (5, 11))]
    for col in ("score", "win", "kills", "builds", "cash", "bribes"):
        x = a.seats.column(col).to_numpy()
        assert (x == b.seats.column(col).to_numpy()).all()
        assert (x == np.concatenate([p.seats.column(col).to_numpy() for p in parts])).all()


# --- honesty ----------------------------------------------------------------------------------


def _ismcts_params(pr, **kw):
    kw = {"method": 1, "determinizations": 16, "tree_depth": 2, **kw}
    for name, v in kw.items():
        pr[S.search_index(name)] = v  # block 0: the search seat's
    return pr


@pytest.mark.parametrize("common", [0, 1], ids=["own-samples", "common-samples"])
@pytest.mark.parametrize("entrance_only", [False, True], ids=["hands-corpses-box", "entrance-order"])
def test_ismcts_decisions_ignore_hidden_information(entrance_only, common):
    """As for DMC: the same decision on a state and on twins that differ only in cards the
    seat cannot see (the others' hands and corpses swapped with the box, or the Entrance
    below its top card reordered), with a tree two own decisions deep, each iteration on its
    own sample or with the root's actions on common samples (``common_samples``)."""
    rng = np.random.default_rng(2)
    players = 3
    checked = searched = differs = 0
    for gid in range(12):
        st, pr = template(players, ["search", "expert", "killer"], 23, search=True)
        _ismcts_params(pr, common_samples=common)
        fresh(st, 23, gid)
        st[L.G_ROTATE] = 0
        if _to_night(st, pr, 1 + gid % 6, 0) is None:
            continue
        p = st[L.G_FIRST]
        st[L.P_STRAT + p] = SEARCH
        st[L.P_LINEUP + p] = 0
        twins = [_hide_and_shuffle(st, p, rng, entrance_only) for _ in range(2)]
        differs += any(
            (t[L.C_LOC : L.C_LOC + 300] != st[L.C_LOC : L.C_LOC + 300]).any()
            or (t[L.ENT : L.ENT + 300] != st[L.ENT : L.ENT + 300]).any()
            for t in twins
        )
        out = []
        for s_ in [st.copy(), *twins]:
            s_[STAMP] = -1
            s_[S.C_NODES] = 0
            S.search_action(s_, pr.copy(), p)
            out.append(_decision(s_))
            searched += s_[S.C_NODES] > 1
        assert out[0] == out[1] == out[2], (gid, out)
        checked += 1
    assert checked >= 7 and searched >= 12 and differs >= 5


# --- the tree does real work --------------------------------------------------------------------


def _root_children(st):
    """(visits, availability, mean outcome, signature) per child of the root, and the tree."""
    t0 = st[L.G_SEARCH_AT] + 2 * L.STATE_END
    out = []
    ch = st[t0 + S.N_CHILD]
    while ch >= 0:
        o = t0 + ch * L.NODE_W
        n = st[o + S.N_VISITS]
        out.append((n, st[o + S.N_AVAIL], st[o + S.N_SUM] / S.OUT_SCALE / n, tuple(st[o + S.N_A : o + 9])))
        ch = st[o + S.N_NEXT]
    return out


def _signature_of(st, k):
    w = np.zeros(4, dtype=np.int64)
    S._signature(st, np.int64(k), w, np.int64(0))
    return tuple(w)


def _solo_states(n):
    for gid in range(n):
        st, pr = template(1, ["search"], 21, search=True)
        fresh(st, 21, gid)
        if _to_night(st, pr, 1 + gid % 7, gid % 2) is not None:
            yield gid, st, pr


def _decide(st, pr, settle=0, **kw):
    """The decision of the acting seat with search parameters ``kw``; every iteration is
    played unless ``settle`` (so the trees below can be counted whole)."""
    s, q = st.copy(), pr.copy()
    for name, v in kw.items():
        q[S.search_index(name)] = v
    s[STAMP] = -1
    S.search_night(s, q, s[L.G_FIRST] if s[L.G_NP] > 1 else 0, settle)
    return s


def test_depth_one_trees_agree_with_dmc_where_its_means_are_clearly_apart():
    """Solo (outcome = score, BI-X2).  Where DMC on 128 samples puts one candidate at least 10
    points above every other, (a) ISMCTS with depth 1 and an exploration so large that UCB
    is round-robin visits every root candidate equally and takes DMC's best (it then decides
    by the mean, on its own samples), and (b) with a moderate exploration (1.75: 0.7 on
    scores / 100) and as many iterations it takes the same candidate as the most visited,
    by more than half the visits of any other (the default, 0.7 on scores / 40, is greedier:
    it settles faster and can settle wrong on a single decision)."""
    clear = 0
    for gid, st, pr in _solo_states(200):
        dmc = _decide(st, pr, determinizations=128, budget=4096, method=0)
        nc = S.candidates(st.copy(), pr.copy(), 0, 4, 30.0)
        means = np.sort(dmc[S.C_SUM : S.C_SUM + nc] / S.OUT_SCALE / 128)
        if nc < 2 or means[-1] - means[-2] < 10:
            continue
        best = _signature_of(dmc, dmc[S.C_CHOSEN])
        uni = _decide(st, pr, determinizations=128, budget=4096, method=1, tree_depth=1, exploration=1e6)
        kids = _root_children(uni)
        assert len(kids) == nc and uni[S.C_NODES] == nc + 1
        assert {k[0] for k in kids} == {128}  # each created in turn, then always available:
        assert sorted(k[1] for k in kids) == list(range(128 * nc - nc + 1, 128 * nc + 1))
        assert _signature_of(uni, uni[S.C_CHOSEN]) == best, gid
        ucb = _decide(st, pr, determinizations=128, budget=4096, method=1, tree_depth=1, exploration=1.75)
        kids = sorted(_root_children(ucb), reverse=True)
        assert _signature_of(ucb, ucb[S.C_CHOSEN]) == best == kids[0][3], gid
        assert kids[0][0] > 1.5 * kids[1][0] and sum(k[0] for k in kids) == 128 * nc
        clear += 1
    assert clear >= 5


def _replayed_sums(st, pr, n_det):
    """Outside the tree: each root candidate of the solo seat's decision played to the end on
    samples 0 .. ``n_det`` - 1 of its hidden cards (``root_outcomes``: ``determinize``, the
    rollout policy ``expert`` at every seat), the outcomes (x ``OUT_SCALE``) summed per candidate."""
    table, x = S.root_outcomes(st, pr, 0, n_det)
    sums = {}
    for k in range(len(x)):
        sums[_signature_of(table, k)] = sum(int(v * S.OUT_SCALE) for v in x[k])
    return sums


def test_common_samples_compare_the_root_actions_on_the_same_samples():
    """``common_samples = 1``: a root action's n-th iteration of a decision plays sample n of the
    hidden cards.  Solo, depth 1, an exploration so large that UCB is round-robin: every root
    child is visited ``n`` times, and its outcome sum is exactly that of its action replayed
    outside the tree on samples 0 .. n - 1.  Without common samples (each iteration its own
    sample) the sums are not those, so the check tells the two apart."""
    n_det, checked, apart = 6, 0, 0
    for gid, st, pr in _solo_states(12):
        kw = {
            "determinizations": n_det,
            "budget": 4096,
            "method": 1,
            "tree_depth": 1,
            "exploration": 1e6,
            "tree_reuse": 0,
        }
        want = _replayed_sums(st, pr, n_det)
        if len(want) < 2:
            continue
        common = _root_children(_decide(st, pr, common_samples=1, **kw))
        assert {c[0] for c in common} == {n_det}
        assert {c[3]: round(c[2] * c[0] * S.OUT_SCALE) for c in common} == want, gid
        plain = _root_children(_decide(st, pr, common_samples=0, **kw))
        apart += {c[3]: round(c[2] * c[0] * S.OUT_SCALE) for c in plain} != want
        checked += 1
    assert checked >= 3 and apart >= 2, (checked, apart)


def test_deeper_trees_grow_with_consistent_counts():
    """Depth 3 at 2 players: nodes below the root's children exist; every node's visits are
    at least the sum of its children's and at most its availability (a child is chosen only
    when available); the root's children share every iteration; signatures under one parent
    are distinct.  Depth 1 keeps exactly the root and its candidates."""
    grew = 0
    for gid in range(6):
        st, pr = template(2, ["search", "expert"], 31, search=True)
        fresh(st, 31, gid)
        st[L.G_ROTATE] = 0
        if _to_night(st, pr, 2 + gid % 4, 0) is None:
            continue
        p = st[L.G_FIRST]
        st[L.P_STRAT + p] = SEARCH
        st[L.P_LINEUP + p] = 0
        nc = S.candidates(st.copy(), pr.copy(), p, 4, 30.0)
        if nc < 2:
            continue
        flat = _decide(st, pr, method=1, tree_depth=1, determinizations=16)
        assert flat[S.C_NODES] == nc + 1
        s = _decide(st, pr, method=1, tree_depth=3, determinizations=16)
        t0 = s[L.G_SEARCH_AT] + 2 * L.STATE_END
        nodes = s[S.C_NODES]
        assert s[t0 + S.N_VISITS] == 16 * nc  # the root: every iteration
        deep = 0
        for v in range(nodes):
            o = t0 + v * L.NODE_W
            kids, sigs, ch = 0, [], s[o + S.N_CHILD]
            while ch >= 0:
                oc = t0 + ch * L.NODE_W
                kids += s[oc + S.N_VISITS]
                assert 1 <= s[oc + S.N_VISITS] <= s[oc + S.N_AVAIL] <= s[o + S.N_VISITS]
                sigs.append(tuple(s[oc + S.N_A : oc + 9]))
                ch = s[oc + S.N_NEXT]
                deep += v > 0
            assert kids <= s[o + S.N_VISITS]
            assert len(sigs) == len(set(sigs))
            if v == 0:
                assert kids == 16 * nc and len(sigs) == nc
        grew += deep > 0
    assert grew >= 3


def _two_player_states(n):
    for gid in range(n):
        st, pr = template(2, ["search", "expert"], 41, search=True)
        fresh(st, 41, gid)
        st[L.G_ROTATE] = 0
        if _to_night(st, pr, 1 + gid % 9, gid % 2) is None:
            continue
        p = st[L.G_FIRST]
        st[L.P_STRAT + p] = SEARCH
        st[L.P_LINEUP + p] = 0
        yield gid, st, pr


def test_a_settled_search_takes_the_choice_all_its_iterations_would():
    """The default ISMCTS stops a decision once its most visited root action leads the next
    by more than the iterations left.  Solo and heads-up, at the default budget: the choice
    is the one every iteration gives, in every decision; the root saw fewer iterations in
    some decisions and never more; and where it stopped, the leader's lead is more than
    what was left."""
    decisions = stopped = 0
    for gid, st, pr in list(_solo_states(40)) + list(_two_player_states(40)):
        full = _decide(st, pr, settle=0)
        early = _decide(st, pr, settle=1)
        assert early[S.C_CHOSEN] == full[S.C_CHOSEN], gid
        nc = S.candidates(st.copy(), pr.copy(), st[L.G_FIRST] if st[L.G_NP] > 1 else 0, 4, 30.0)
        if nc < 2:
            continue
        decisions += 1
        t0 = early[L.G_SEARCH_AT] + 2 * L.STATE_END
        n_all, n_played = full[t0 + S.N_VISITS], early[t0 + S.N_VISITS]
        assert n_played <= n_all
        if n_played < n_all:
            stopped += 1
            visits = sorted((k[0] for k in _root_children(early)), reverse=True) + [0]
            assert visits[0] - visits[1] > n_all - n_played
    assert decisions >= 20 and stopped >= decisions // 4, (decisions, stopped)


def _children_of_choice(s):
    """{signature: visits} of the children of the root action ``s`` chose."""
    t0 = s[L.G_SEARCH_AT] + 2 * L.STATE_END
    chosen = _signature_of(s, s[S.C_CHOSEN])
    ch = s[t0 + S.N_CHILD]
    while tuple(s[t0 + ch * L.NODE_W + S.N_A : t0 + ch * L.NODE_W + 9]) != chosen:
        ch = s[t0 + ch * L.NODE_W + S.N_NEXT]
    kids = {}
    g = s[t0 + ch * L.NODE_W + S.N_CHILD]
    while g >= 0:
        o = t0 + g * L.NODE_W
        kids[tuple(s[o + S.N_A : o + 9])] = s[o + S.N_VISITS]
        g = s[o + S.N_NEXT]
    return kids


def test_a_reused_tree_starts_from_the_children_of_the_last_choice():
    """``tree_reuse``: at the seat's next night action the root starts with the visits its
    candidates had one level below the action the seat chose last (the tree's own nodes for
    that decision), and plays only what is left of the budget (at least one iteration a
    candidate).  A record of another game is not used, nor one a decision without a tree
    (DMC) left behind; without ``tree_reuse`` every iteration is played."""
    used = 0
    for gid, st, pr in _two_player_states(40):
        p = st[L.G_FIRST]
        if S.candidates(st.copy(), pr.copy(), p, 4, 30.0) < 2:
            continue
        first = _decide(st, pr, tree_reuse=1)
        kept = _children_of_choice(first)
        nxt, q = first.copy(), pr.copy()
        q[S.search_index("tree_reuse")] = 1
        if not play_to_seat(nxt, q, p, NO_STOP):  # the choice played, then on to p's next action
            continue
        nc = S.candidates(nxt.copy(), pr.copy(), p, 4, 30.0)
        if nc < 2:
            continue
        n_iter = 64 * nc  # 64 samples a candidate, within the budget of 256
        again = _decide(nxt, pr, tree_reuse=1)
        t0 = again[L.G_SEARCH_AT] + 2 * L.STATE_END
        root = {k[3]: k[0] for k in _root_children(again)}
        matched = {sg: n for sg, n in kept.items() if sg in {_signature_of(again, k) for k in range(nc)}}
        reused = sum(matched.values())
        assert again[t0 + S.N_VISITS] == reused + max(nc, n_iter - reused), gid
        assert all(root[sg] >= n for sg, n in matched.items())
        assert set(root) <= {_signature_of(again, k) for k in range(nc)}  # no stale action at the root
        plain = _decide(nxt, pr, tree_reuse=0)
        assert plain[t0 + S.N_VISITS] == n_iter
        other = nxt.copy()
        other[L.G_GAME_ID] += 1
        assert _decide(other, pr, tree_reuse=1)[t0 + S.N_VISITS] == n_iter
        after_dmc = _decide(_decide(nxt, pr, tree_reuse=1, method=0), pr, tree_reuse=1)
        assert after_dmc[t0 + S.N_VISITS] == n_iter
        used += reused > 0
    assert used >= 5, used


def test_a_config_resolved_before_tree_reuse_existed_plays_without_it():
    """A resolved config without ``tree_reuse`` (a dataset's manifest made before it existed)
    is played as it was then, without reuse; a config resolved now gets the default, reuse."""
    raw = {"game": "bloody_inn", "players": 2, "seed": 3, "games": 6}
    raw["seats"] = [{"strategy": "search", "params": {"determinizations": 8}}, {"strategy": "expert"}]
    now = api.resolve(raw)
    assert now["seats"][0]["params"]["tree_reuse"] == 1.0
    before = api.resolve(raw)
    del before["seats"][0]["params"]["tree_reuse"]
    without = api.resolve(
        {
            **raw,
            "seats": [
                {"strategy": "search", "params": {"determinizations": 8, "tree_reuse": 0}},
                raw["seats"][1],
            ],
        }
    )

    def rows(resolved):
        return api.play_range(resolved, 0, 6).seats.drop_columns(["config_id"])

    assert rows(before).equals(rows(without))
    assert not rows(now).equals(rows(without))
