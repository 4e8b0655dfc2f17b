"""Scenario builder for the Bloody Inn rule tests (pgx style: explicit states, explicit
actions, asserted results).

A ``Table`` is one game's flat state array built exactly as the simulator builds it
(``sim.resolve`` -> adapter ``build_template`` -> ``setup_game`` with a fixed RNG key).
Helpers then clear the table and put given card kinds in rooms, hands, corpses, annexes,
the Entrance, the Exit or the Bistro — always through ``kernels.bloody_inn.state.move_card``
so the kernel's counters stay right — set money and keys, fill the decision scratch
``D_*`` and call the kernel's njit rule functions directly (they take numpy arrays).

``Table.check()`` runs the kernel's own invariant check *and* an independent recount
written here in plain Python, so a test also fails when a rule leaves the table
inconsistent.

Card kinds are named by their id in ``configs/bloody_inn/cards.csv`` (``"marquis"``,
``"peasant"``, ...).
"""

from __future__ import annotations

import numpy as np

import sim
from kernels.bloody_inn import evening as _evening
from kernels.bloody_inn import invariants as _invariants
from kernels.bloody_inn import layout as L
from kernels.bloody_inn import legal as _legal
from kernels.bloody_inn import morning as _morning
from kernels.bloody_inn import night as _night
from kernels.bloody_inn import play as _play
from kernels.bloody_inn import scoring as _scoring
from kernels.bloody_inn import setup as _setup
from kernels.bloody_inn import state as _state
from kernels.rng import stream_key
from sim.games.bloody_inn.adapter import ADAPTER

LOC = L.LOC
ACTION = L.ACTION
EVENT = L.EVENT


def config(players=2, rules=None, seats=None, cards=None, **extra):
    """A run-config dict for The Bloody Inn."""
    raw = {"game": "bloody_inn", "players": players}
    if rules:
        raw["rules"] = dict(rules)
    if seats is not None:
        raw["seats"] = seats if isinstance(seats, list) else [{"strategy": seats}]
    if cards:
        raw["cards"] = cards
    raw.update(extra)
    return raw


class Table:
    """One game's state ``st`` (+ strategy parameters ``pr``) with scenario helpers.

    Parameters
    ----------
    players : int
    rules, cards : dict, optional
        ``[rules]`` flags and ``[cards]`` edits of a run config.
    seats : str or list, optional
        ``"random"`` / ``"greedy"`` for every seat, or a ``[[seats]]`` list.
    seed, game_id : int
        The game's RNG stream is ``stream_key(seed, game_id)``, as in ``play_games``.
    events : bool
        Allocate an event buffer and log events (``Table.events()`` decodes them).
    """

    def __init__(
        self,
        players=2,
        rules=None,
        seats="random",
        cards=None,
        seed=2024,
        game_id=0,
        events=False,
        ev_cap=4096,
        **extra,
    ):
        self.resolved = sim.resolve(config(players, rules, seats, cards, **extra), seed=seed)
        tmpl, params, names, inst = ADAPTER.build_template(self.resolved, events=events)
        cap = ev_cap if events else 0
        st = np.zeros(L.STATE_END + cap * L.EV_FIELDS, dtype=np.int64)
        st[: L.STATE_END] = tmpl[: L.STATE_END]
        st[L.G_EV_CAP] = cap
        st[L.G_GAME_ID] = game_id
        st[L.G_RNG] = stream_key(np.int64(seed), np.int64(game_id))
        self.st = st
        self.pr = params.copy()
        self.names = names
        self.inst = list(inst)
        self.kind_ids = [row["id"] for row in self.resolved["cards"]]
        self.rows = {row["id"]: row for row in self.resolved["cards"]}
        self.np = players
        _setup.setup_game(st)

    def reset(self, seed, game_id):
        """Set up a fresh game on the same tables with the stream of (seed, game_id)."""
        self.st[L.G_GAME_ID] = game_id
        self.st[L.G_RNG] = stream_key(np.int64(seed), np.int64(game_id))
        _setup.setup_game(self.st)
        return self

    # -- reading the table ---------------------------------------------------------------
    def __getitem__(self, off):
        return int(self.st[off])

    def __setitem__(self, off, value):
        self.st[off] = value

    @property
    def ncards(self):
        return int(self.st[L.G_NCARDS])

    def kind(self, c):
        """Kind id (``"marquis"``) of card instance ``c``."""
        return self.kind_ids[int(self.st[L.C_KIND + c])]

    def kinds(self, cards):
        return sorted(self.kind(c) for c in cards)

    def rank(self, c):
        return int(self.st[L.C_RANK + c])

    def loc(self, c):
        return int(self.st[L.C_LOC + c])

    def slot(self, c):
        return int(self.st[L.C_SLOT + c])

    def at(self, loc):
        """Card ids whose location is ``loc`` (ascending)."""
        n = self.ncards
        return [int(c) for c in np.flatnonzero(self.st[L.C_LOC : L.C_LOC + n] == loc)]

    def hand(self, p):
        return self.at(LOC.hand + p)

    def corpses(self, p):
        return self.at(LOC.corpse + p)

    def annexes(self, p):
        return self.at(LOC.annex + p)

    def buried(self, owner):
        """Corpses buried under ``owner``'s annexes and Barn."""
        return self.at(LOC.buried + owner)

    def exit(self):
        return self.at(LOC.exit)

    def bistro(self):
        return self.at(LOC.bistro)

    def box(self):
        return self.at(LOC.box)

    def entrance(self):
        """The Entrance in draw order (first = public top card)."""
        return [int(c) for c in self.st[L.ENT + self[L.G_ENT_POS] : L.ENT + self[L.G_ENT_N]]]

    def room_card(self, r):
        return int(self.st[L.R_CARD + r])

    def rooms(self):
        return [int(x) for x in self.st[L.R_CARD : L.R_CARD + L.NROOMS]]

    def keys(self):
        return [int(x) for x in self.st[L.R_KEY : L.R_KEY + L.NROOMS]]

    def open_rooms(self):
        return [r for r, k in enumerate(self.keys()) if k != L.CLOSED]

    def cash(self, p):
        return int(self.st[L.P_CASH + p])

    def cheques(self, p):
        return int(self.st[L.P_CHEQUES + p])

    def p(self, field, p):
        """Per-player field ``field`` (a ``P_*`` offset) of player ``p``."""
        return int(self.st[field + p])

    def fill(self, annex):
        return int(self.st[L.C_FILL + annex])

    @staticmethod
    def barn(p):
        """Burial destination id of player ``p``'s Barn (BI-C4)."""
        return L.BARN_SLOT - p

    # -- setting the table ---------------------------------------------------------------
    def set_money(self, p, cash=None, cheques=None):
        if cash is not None:
            self.st[L.P_CASH + p] = cash
        if cheques is not None:
            self.st[L.P_CHEQUES + p] = cheques

    def clear(self):
        """Every card back to the box, rooms empty, Entrance empty, fills and tokens zero.

        Keys, money and rules stay as set up."""
        st = self.st
        for c in range(self.ncards):
            _state.move_card(st, c, LOC.box, 0)
            st[L.C_FILL + c] = 0
        st[L.R_CARD : L.R_CARD + L.NROOMS] = -1
        st[L.G_INN] = 0
        st[L.G_INN_N] = 0
        st[L.G_INN_POLICE] = 0
        st[L.R_TOKENS : L.R_TOKENS + L.NROOMS * L.MAXP] = 0
        st[L.P_BARN_FILL : L.P_BARN_FILL + L.MAXP] = 0
        st[L.G_FREE_SPACE] = st[L.G_NP]  # only the Barns are left (BI-C4)
        st[L.P_FREE_SPACE : L.P_FREE_SPACE + L.MAXP] = [1 if q < st[L.G_NP] else 0 for q in range(L.MAXP)]
        st[L.G_ENT_POS] = 0
        st[L.G_ENT_N] = 0
        return self

    def free(self, kind):
        """A card of ``kind`` lying in the box (raises if none is left)."""
        for c in self.box():
            if self.kind(c) == kind:
                return c
        raise LookupError(f"no {kind} left in the box")

    def _free_artisans(self, n):
        """``n`` artisans (affinity Build) from the box, cheapest first."""
        out = [c for c in self.box() if self.rows[self.kind(c)]["affinity"] == "build"]
        out.sort(key=self.rank)
        assert len(out) >= n, "not enough artisans in the box"
        return out[:n]

    def _take(self, kind_or_card):
        if isinstance(kind_or_card, str):
            return self.free(kind_or_card)
        return int(kind_or_card)

    def to_hand(self, p, *kinds):
        """Put cards of the given kinds (or card ids) in ``p``'s hand; return their ids."""
        out = []
        for k in kinds:
            c = self._take(k)
            _state.move_card(self.st, c, LOC.hand + p, 0)
            out.append(c)
        return out

    def to_corpse(self, p, *kinds):
        out = []
        for k in kinds:
            c = self._take(k)
            _state.move_card(self.st, c, LOC.corpse + p, 0)
            out.append(c)
        return out

    def to_room(self, r, kind):
        """Put a traveller in room ``r`` (no Room Service: that is the evening's job)."""
        assert self.room_card(r) < 0, f"room {r} is taken"
        c = self._take(kind)
        self.st[L.R_CARD + r] = c
        self.st[L.G_INN] |= 1 << r
        self.st[L.G_INN_N] += 1
        self.st[L.G_INN_POLICE] += 1 if self.st[L.C_TYPE + c] == L.CTYPE.police else 0
        _state.move_card(self.st, c, LOC.room, r)
        return c

    def to_exit(self, *kinds):
        out = []
        for k in kinds:
            c = self._take(k)
            _state.move_card(self.st, c, LOC.exit, 0)
            out.append(c)
        return out

    def to_bistro(self, n):
        """Move ``n`` peasants from the box to the Bistro."""
        return [self._to_bistro_one() for _ in range(n)]

    def _to_bistro_one(self):
        c = self.free("peasant")
        _state.move_card(self.st, c, LOC.bistro, 0)
        return c

    def set_entrance(self, *kinds):
        """Make the Entrance exactly these cards, the first being the public top card."""
        for c in self.entrance():
            _state.move_card(self.st, c, LOC.box, 0)
        ids = []
        for i, k in enumerate(kinds):
            c = self._take(k)
            self.st[L.ENT + i] = c
            _state.move_card(self.st, c, LOC.entrance, i)
            ids.append(c)
        self.st[L.G_ENT_POS] = 0
        self.st[L.G_ENT_N] = len(ids)
        return ids

    def bury_direct(self, dest, kind="peasant"):
        """Fill one place of ``dest`` (annex card id or ``barn(p)``) with a corpse, as if it
        had been buried earlier; returns the corpse id."""
        c = self._take(kind)
        if dest < 0:
            owner = L.BARN_SLOT - dest
            self.st[L.P_BARN_FILL + owner] += 1
        else:
            owner = self.loc(dest) - LOC.annex
            assert 0 <= owner < L.MAXP, "destination is not an annex"
            self.st[L.C_FILL + dest] += 1
        self.st[L.G_FREE_SPACE] -= 1
        self.st[L.P_FREE_SPACE + owner] -= 1
        _state.move_card(self.st, c, LOC.buried + owner, dest)
        return c

    def give_annex(self, p, kind, keep_money=True):
        """Give ``p`` an annex of ``kind`` through the kernel's own Build (so every effect is
        registered exactly as in a game), paid with returning artisans that go back to the
        box afterwards.  With ``keep_money`` the money and counters of ``p`` are restored, so
        only the "from now on" effects remain (and a Room-Service token / Monk key).
        Returns the annex card id."""
        st = self.st
        saved_hand = self.hand(p)
        for c in saved_hand:
            _state.move_card(st, c, LOC.box, 0)
        saved = {f: int(st[f + p]) for f in (L.P_CASH, L.P_CHEQUES, L.P_BUILDS)}
        c = self.to_hand(p, kind)[0]
        cost = _legal.discounted(st, p, ACTION.build, self.rank(c))
        payers = self.to_hand(p, *self._free_artisans(cost))  # affinity build: they return
        ok = self.act_build(p, c)
        assert ok, f"could not build {kind}"
        for q in payers:
            _state.move_card(st, q, LOC.box, 0)
        for q in saved_hand:
            _state.move_card(st, q, LOC.hand + p, 0)
        if keep_money:
            for f, v in saved.items():
                st[f + p] = v
        return c

    # -- decisions and rule calls ----------------------------------------------------------
    def _targets(self, targets):
        st = self.st
        st[L.D_NT] = len(targets)
        for i, c in enumerate(targets):
            st[L.D_T + i] = c

    def act_bribe(self, p, *targets, peasants=0):
        """BI-N3 with the decision filled in: room travellers, or ``peasants`` from the Bistro."""
        st = self.st
        st[L.D_ACTION] = ACTION.bribe
        st[L.D_PEASANTS] = 1 if peasants else 0
        if peasants:
            st[L.D_NT] = peasants
        else:
            self._targets(targets)
        return bool(_night.bribe(st, self.pr, p))

    def act_kill(self, p, *targets, peasant=False):
        st = self.st
        st[L.D_ACTION] = ACTION.kill
        st[L.D_PEASANTS] = 1 if peasant else 0
        if peasant:
            st[L.D_NT] = 1
        else:
            self._targets(targets)
        return bool(_night.kill(st, self.pr, p))

    def act_build(self, p, card):
        st = self.st
        st[L.D_ACTION] = ACTION.build
        st[L.D_PEASANTS] = 0
        self._targets([card])
        return bool(_night.build(st, self.pr, p))

    def act_bury(self, p, *pairs):
        """``pairs`` of (corpse card, destination) — destination an annex card or ``barn(q)``."""
        st = self.st
        st[L.D_ACTION] = ACTION.bury
        st[L.D_PEASANTS] = 0
        self._targets([c for c, _ in pairs])
        for i, (_, d) in enumerate(pairs):
            st[L.D_DEST + i] = d
        return bool(_night.bury(st, self.pr, p))

    def act_launder(self, p, k):
        """BI-N7: ``k`` > 0 buys k cheques, ``k`` < 0 cashes -k, 0 passes."""
        st = self.st
        st[L.D_ACTION] = ACTION.passing
        st[L.D_LAUNDER] = k
        return bool(_night.launder(st, self.pr, p))

    def take_action(self, p):
        """One night action decided by ``p``'s strategy (as in a game)."""
        _night.take_action(self.st, self.pr, p)

    def evening(self):
        return bool(_evening.evening(self.st, self.pr))

    def morning(self):
        _morning.morning(self.st, self.pr)

    def investigate(self, p, final=False):
        """BI-M1 (or BI-G1 with ``final``): ``p``'s strategy chooses the fine's split."""
        kind = EVENT.final_investigation if final else EVENT.investigation
        _morning.investigate(self.st, self.pr, p, kind)

    def travellers_leave(self):
        _morning.travellers_leave(self.st)

    def pay_wages(self, p):
        _morning.pay_wages(self.st, self.pr, p)

    def end_game(self):
        _scoring.end_game(self.st, self.pr)

    def gain_cash(self, p, amount):
        return int(_state.gain_cash(self.st, p, amount))

    def fine_range(self, p, corpses):
        """BI-M1: (fewest, most) cheques of a legal split of ``p``'s fine."""
        lo, hi = _state.fine_range(self.st, p, corpses)
        return int(lo), int(hi)

    def pay_fine(self, p, fine, cheques=None):
        """BI-M1: pay a ``fine`` of 10 F per corpse with ``cheques`` cheques (default: the
        fewest legal, i.e. whole tens of cash first) and cash for the rest; returns (cash
        paid, cheques paid)."""
        corpses = fine // 10
        if cheques is None:
            cheques = self.fine_range(p, corpses)[0]
        cash, paid = _state.pay_fine(self.st, p, corpses, cheques)
        return int(cash), int(paid)

    def play(self):
        """A whole game from setup to scoring (``play_one`` redoes the setup)."""
        _play.play_one(self.st, self.pr)

    # -- hidden information ----------------------------------------------------------------
    def hidden_variant(self, p, rng):
        """A copy of the state that differs from this one only in what player ``p`` cannot
        see: the identities of the other players' hands and unburied corpses (swapped with
        cards of the box) and the order of the Entrance below its public top card."""
        other = Table.__new__(Table)
        other.__dict__.update(self.__dict__)
        other.st = self.st.copy()
        st = other.st
        box = [c for c in other.box()]
        rng.shuffle(box)
        for q in range(self.np):
            if q == p:
                continue
            for loc in (LOC.hand + q, LOC.corpse + q):
                for c in other.at(loc):
                    if not box:
                        break
                    b = box.pop()
                    _state.move_card(st, c, LOC.box, 0)
                    _state.move_card(st, b, loc, 0)
        pos, n = other[L.G_ENT_POS], other[L.G_ENT_N]
        below = [int(x) for x in st[L.ENT + pos + 1 : L.ENT + n]]
        rng.shuffle(below)
        for i, c in enumerate(below):
            st[L.ENT + pos + 1 + i] = c
            st[L.C_SLOT + c] = pos + 1 + i
        return other

    def decision_scratch(self):
        return decision_scratch(self.st)

    # -- events ------------------------------------------------------------------------------
    def events(self):
        """Logged events as dicts (``kind`` by name)."""
        st = self.st
        out = []
        for i in range(int(st[L.G_EV_N])):
            o = L.EV_BASE + i * L.EV_FIELDS
            row = st[o : o + L.EV_FIELDS]
            out.append(
                {
                    "round": int(row[L.EV_ROUND]),
                    "kind": L.EVENT_NAMES[int(row[L.EV_KIND])],
                    "seat": int(row[L.EV_SEAT]),
                    "card": int(row[L.EV_CARD]),
                    "a": int(row[L.EV_A]),
                    "b": int(row[L.EV_B]),
                    "c": int(row[L.EV_C]),
                }
            )
        return out

    def log_events(self, on=True):
        """Start (or stop) logging; events so far are dropped."""
        self.st[L.G_LOG] = 1 if on and self[L.G_EV_CAP] > 0 else 0
        self.st[L.G_EV_N] = 0

    # -- consistency ---------------------------------------------------------------------------
    def check(self):
        """Assert the kernel's invariant check and an independent recount both pass."""
        code = int(_invariants.check(self.st))
        assert code == 0, f"kernel invariant check failed with code {code}"
        assert self[L.G_ERR] == 0, f"kernel recorded error {self[L.G_ERR]}"
        recount(self)
        return self


def recount(t):
    """Independent (pure Python) recount of where every card is; raises AssertionError."""
    st, n, np_ = t.st, t.ncards, t.np
    locs = [int(x) for x in st[L.C_LOC : L.C_LOC + n]]
    valid = {LOC.box, LOC.entrance, LOC.exit, LOC.bistro, LOC.room}
    for q in range(np_):
        valid |= {LOC.hand + q, LOC.annex + q, LOC.corpse + q, LOC.buried + q}
    assert all(x in valid for x in locs), "a card is in no valid place"
    peasant = {c for c in range(n) if t.kind(c) == "peasant"}
    for c in peasant:
        assert locs[c] not in (LOC.exit, LOC.entrance, LOC.room), "peasant out of place"
        assert not (LOC.annex <= locs[c] < LOC.annex + L.MAXP), "peasant as annex"
    assert locs.count(LOC.bistro) == t[L.G_BISTRO_N]
    assert locs.count(LOC.exit) == t[L.G_EXIT_N]
    for q in range(np_):
        assert locs.count(LOC.hand + q) == t[L.P_HAND_N + q]
        assert locs.count(LOC.corpse + q) == t[L.P_CORPSE_N + q]
        assert locs.count(LOC.annex + q) == t[L.P_ANNEX_N + q]
        assert 0 <= t.cash(q) and t.cheques(q) >= 0
        if not t[L.G_UNLIMITED]:
            assert t.cash(q) <= t[L.G_CAP]
        barn = [c for c in range(n) if locs[c] == LOC.buried + q and t.slot(c) == t.barn(q)]
        assert len(barn) == t[L.P_BARN_FILL + q] <= 1
    in_rooms = {c for c in range(n) if locs[c] == LOC.room}
    seen = set()
    for r, c in enumerate(t.rooms()):
        if c >= 0:
            assert locs[c] == LOC.room and t.slot(c) == r
            assert t.keys()[r] != L.CLOSED
            seen.add(c)
    assert seen == in_rooms
    assert t[L.G_INN] == sum(1 << r for r, c in enumerate(t.rooms()) if c >= 0), "mask of the rooms"
    assert t[L.G_INN_N] == len(in_rooms), "travellers in the inn"
    assert t[L.G_INN_POLICE] == sum(t[L.C_TYPE + c] == L.CTYPE.police for c in in_rooms), "police in the inn"
    ent = t.entrance()
    assert len(set(ent)) == len(ent) and set(ent) == {c for c in range(n) if locs[c] == LOC.entrance}
    if hasattr(L, "LISTS"):
        # the kernel's card lists (hands, corpses, annexes, Bistro, Exit) hold exactly the
        # cards of their location, each at the position it records
        lists = [(L.L_HAND + q, LOC.hand + q) for q in range(np_)]
        lists += [(L.L_CORPSE + q, LOC.corpse + q) for q in range(np_)]
        lists += [(L.L_ANNEX + q, LOC.annex + q) for q in range(np_)]
        lists += [(L.L_BISTRO, LOC.bistro), (L.L_EXIT, LOC.exit)]
        for lid, loc in lists:
            size = t[L.LIST_N + lid]
            base = L.LISTS + lid * L.MAXC
            members = [int(x) for x in st[base : base + size]]
            assert sorted(members) == [c for c in range(n) if locs[c] == loc], f"list {lid}"
            assert all(t[L.C_POS + c] == i for i, c in enumerate(members)), f"list {lid} pos"
    for a in range(n):
        if LOC.annex <= locs[a] < LOC.annex + L.MAXP:
            under = [c for c in range(n) if locs[c] >= LOC.buried and t.slot(c) == a]
            assert len(under) == t.fill(a) <= t.rank(a), "annex fill / capacity"
            assert all(locs[c] == LOC.buried + (locs[a] - LOC.annex) for c in under)
    # free burial places of each player (its Barn and annexes) and of all (BI-C3, BI-C4)
    free = [1 - int(t[L.P_BARN_FILL + q]) for q in range(np_)]
    for a in range(n):
        if LOC.annex <= locs[a] < LOC.annex + np_:
            free[locs[a] - LOC.annex] += t.rank(a) - t.fill(a)
    assert [int(t[L.P_FREE_SPACE + q]) for q in range(np_)] == free, "free places per player"
    assert sum(free) == t[L.G_FREE_SPACE], "free places in all"


def decision_scratch(st):
    """The decision fields a strategy fills (action, targets, destinations, peasants,
    launder amount) and the RNG state after deciding."""
    nt = int(st[L.D_NT])
    return (
        int(st[L.D_ACTION]),
        nt,
        int(st[L.D_PEASANTS]),
        int(st[L.D_LAUNDER]),
        [int(x) for x in st[L.D_T : L.D_T + nt]],
        [int(x) for x in st[L.D_DEST : L.D_DEST + nt]],
        int(st[L.G_RNG]),
    )
