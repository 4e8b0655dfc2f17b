"""``heuristic``: one utility-based policy whose weights are parameters.

Every candidate decision is valued in francs, the unit being one franc of score now:

- **money now**: pocket money of a burial (half under another player's annex), on-build
  cash, Room-Service income, each cut at the wealth cap (BI-N8) unless ``unlimited_wealth``;
- **accomplices**: ``card_value`` per card, ``affinity_value`` more for one whose affinity
  returns it when it pays (BI-N2), half of its value as a future annex; a card paid away
  loses that value (the cheapest cards pay, returning ones first);
- **corpses**: ``corpse_value`` x the pocket money the corpse will bring where a burial
  place is within reach (own annexes: all of it, others': half), less its burial cost;
- **police risk**: ``police_risk`` x 10 F per corpse left unburied at an investigation
  (BI-M1), counting the one action the player may still take this round (BI-N1); in solo
  an investigation with a corpse loses the game (BI-X2), so the risk is prohibitive;
- **annexes**: burial places (``capacity_value`` each), lasting effects (``effect_value``)
  and end-of-game bonuses (``end_bonus``, BI-G2), estimated over the rounds left;
- **laundering**: a pass buys cheques with the tens above ``launder_above``; it is worth
  the francs the cheques save from the cap (``launder_value``) on the gains in sight.

Values that pay off over time (cards, places, effects) fade over the last ``horizon``
rounds; the rounds left are estimated from the public Entrance and Exit sizes.  The policy
is deterministic (ties go to the first candidate) and reads only the player's own hand and
corpses, the public table and the counters every player sees.

The archetypes ``killer``, ``builder``, ``briber``, ``banker`` and the tuned ``expert`` are
presets of these parameters, data in ``configs/bloody_inn/strategies/<name>.toml`` (loaded by
``sim/games/bloody_inn/presets.py``).

Compiled with ``error_model="numpy"``, like the rules (``kernels/bloody_inn/__init__.py``).
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.sigs import PR, ST, B, F, I, sig

from ..index import nowrap
from . import layout as L
from .legal import may, may_build_kind, token_room_ok
from .strat_fines import best_fine_cheques
from .strat_tools import clock as _clock
from .strat_tools import lowest_set_bit

#: (name, default, meaning) of the parameters, in ``pr`` order.
PARAMS = (
    ("card_value", 1.5, "francs an accomplice in hand is worth as payment"),
    (
        "affinity_value",
        1.5,
        "extra francs for an accomplice whose affinity returns it to "
        "hand when it pays for that action (police: kill, merchant: "
        "bribe, artisan: build, religious: bury)",
    ),
    (
        "corpse_value",
        0.7,
        "share of its pocket money a fresh corpse is worth when a burial place is within reach",
    ),
    ("capacity_value", 2.0, "francs per burial place an annex adds"),
    ("police_risk", 1.0, "weight of the 10 F fine per corpse left unburied at an investigation"),
    ("wage_cost", 1.0, "francs charged for taking on one more accomplice (its wages)"),
    ("build_bias", 0.0, "francs added to every Build"),
    (
        "effect_value",
        1.0,
        "weight of lasting annex effects (discounts, multi-target, wages, "
        "income, Room Service, Monk, Chapel, Brewery)",
    ),
    ("end_bonus", 1.0, "weight of the expected end-of-game bonuses (colour annexes, Greenhouse)"),
    ("launder_above", 30.0, "cash above which spare tens become cheques when passing"),
    ("launder_value", 1.0, "weight of the francs a laundering pass saves from the wealth cap"),
    ("kill_bias", 0.0, "francs added to every Kill of a traveller"),
    ("bribe_bias", 0.0, "francs added to every Bribe of a traveller"),
    ("hand_target", 5.0, "hand size up to which one more accomplice is worth its full value (half beyond)"),
    (
        "share_penalty",
        0.5,
        "weight of francs handed to an opponent (burial under their annex, their Room Service when placing)",
    ),
    (
        "horizon",
        4.0,
        "rounds over which accomplices, burial places and lasting effects pay "
        "off; their value fades when fewer rounds remain",
    ),
)

#: Search range of each parameter for the tuner (``sim tune``).
BOUNDS = {
    "card_value": (0.0, 6.0),
    "affinity_value": (0.0, 6.0),
    "corpse_value": (0.0, 1.5),
    "capacity_value": (0.0, 6.0),
    "police_risk": (0.0, 3.0),
    "wage_cost": (0.0, 5.0),
    "build_bias": (-10.0, 10.0),
    "effect_value": (0.0, 3.0),
    "end_bonus": (0.0, 3.0),
    "launder_above": (0.0, 40.0),
    "launder_value": (0.0, 3.0),
    "kill_bias": (-10.0, 10.0),
    "bribe_bias": (-10.0, 10.0),
    "hand_target": (1.0, 12.0),
    "share_penalty": (0.0, 2.0),
    "horizon": (0.5, 12.0),
}


def preset(**changes):
    """The default parameters with ``changes``, as a PARAMS-shaped tuple."""
    names = [n for n, _, _ in PARAMS]
    for k in changes:
        if k not in names:
            raise KeyError(k)
    return tuple((n, float(changes.get(n, d)), h) for n, d, h in PARAMS)


SCALE = 1024.0  # keep values are stored in the int scratch as francs x SCALE
KV = L.S_C  # keep value of the i-th card of the sorted hand (S_A)
PFX = L.S_C + 128  # PFX + a * PSTRIDE + k: loss of the k cheapest non-returning cards
PSTRIDE = 32  # (the stride's last slot holds how many such cards there are)
STAMP = L.S_C + 500  # (turn, player, hand size) of the last sorted hand of an action
HCASH = L.S_C + 503  # the best on-build cash of an annexable card of the sorted hand
HMAX = 100  # hands beyond this are not valued card by card
BIG = 100.0  # francs per card beyond the hand: out of reach
_NEG = -1e18

# Performance: every function compiles without reference counting (``_nrt=False``, as the
# rules do); the hot loops read ``st`` inline and walk the kernel's card lists (hands,
# corpses, annexes, Bistro, Exit) rather than every card.  ``action`` is a short driver over
# one function per action kind (``_launder``, ``_bury``, ``_build``, ``_kill``, ``_bribe``,
# ...) that share the decision's ``Seat``; those are inlined into it (``inline="always"``):
# called as functions, the ~60 fields of the ``Seat`` are passed one by one at every call,
# which made an expert game ~40 % slower.


# --- scalar helpers ---------------------------------------------------------------------


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _min(a, b):
    """``min(a, b)`` as Python and numba's builtin pick (``b`` only if smaller).  The builtin
    (and ``int()``) is a call into a separately compiled overload: ``action``'s own machine
    code, the copy that runs (perf, ``inspect_asm``), calls its non-inline callees, since
    callee libraries skip the final module passes (kernels/__init__.py)."""
    return b if b < a else a


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _clip_need(need, k):
    """Index into a loss table: ``need`` non-returning cards, at most the ``k`` there are."""
    if need <= 0:
        return 0
    return need if need < k else k


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _loss_of(raw, need, k):
    """Francs of a loss-table entry ``raw`` (x SCALE); cards beyond the ``k`` held cost BIG.
    ``need <= 0`` gives 0.0 without a branch on ``need`` (the CPU cannot predict it): ``raw``
    is then the table's first slot (``_clip_need``), 0."""
    return raw / SCALE + (BIG * (need - k) if need > k else 0.0)


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _payable(b0, b1, b2, n, skip, extra, h, ret):
    """How many of the held corpses (the 3 cheapest burial costs ``b0 <= b1 <= b2`` of
    ``n``), less one of cost ``skip`` (-1: none), plus one of cost ``extra`` (-1: none), a
    hand of ``h`` cards can bury one after the other, cheapest first; ``ret`` cards return
    to hand when they pay (religious; every card with the Chapel).  More than three
    corpses are never buried within a round and the next (two actions each)."""
    c0, c1, c2, c3 = b0, b1, b2, 1 << 30
    m = n if n < 3 else 3
    if m < 3:
        c2 = 1 << 30
    if m < 2:
        c1 = 1 << 30
    if m < 1:
        c0 = 1 << 30
    if skip >= 0:  # drop one corpse of that cost
        if c0 == skip:
            c0, c1, c2 = c1, c2, 1 << 30
        elif c1 == skip:
            c1, c2 = c2, 1 << 30
        elif c2 == skip:
            c2 = 1 << 30
    if extra >= 0:  # insert in order
        if extra < c0:
            c0, c1, c2, c3 = extra, c0, c1, c2
        elif extra < c1:
            c1, c2, c3 = extra, c1, c2
        elif extra < c2:
            c2, c3 = extra, c2
        else:
            c3 = extra
    cnt = 0
    used = 0
    for i in range(4):
        kb = c0 if i == 0 else (c1 if i == 1 else (c2 if i == 2 else c3))
        if kb >= 1 << 30 or kb > h - used:
            break
        need = kb - ret
        if need < 0:
            need = 0
        if need > h - used - ret:
            break
        used += need
        cnt += 1
    return cnt


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _exposed(held, police, last, my_left, slots, payable, crypt, p_next):
    """Expected corpses fined at an investigation (BI-M1; the game's end, BI-G1).

    The action the player may still take this round buries what it can (``payable``:
    corpses the hand can pay for, ``slots``: free burial places); if police are in the
    inn (or no round follows) the rest is fined this morning.  Otherwise the rest stays
    overnight and the next round's two actions bury what they can before the morning;
    what is left is fined with probability ``p_next`` (police drawn).
    """
    if held <= 0:
        return 0.0
    b = 0
    if my_left > 0:
        b = held if crypt else 1
        if b > slots:
            b = slots
        if b > payable:
            b = payable
    rest = held - b
    if police > 0 or last:
        return float(rest)
    nb = rest if crypt else 2
    if nb > slots - b:
        nb = slots - b
    if nb > payable - b:
        nb = payable - b
    over = rest - (nb if nb > 0 else 0)
    return p_next * over if over > 0 else 0.0


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _exposure(s, held, police, slots, skip, extra, left):
    """:func:`_exposed` of seat ``s`` holding ``held`` corpses with ``slots`` burial places,
    its payable count from :func:`_payable` over the seat's hand (``skip``/``extra``/``left``
    as there)."""
    return _exposed_payable(
        s.b0,
        s.b1,
        s.b2,
        s.held,
        skip,
        extra,
        left,
        s.ret_bury,
        held,
        police,
        s.last,
        s.my_left,
        slots,
        s.crypt,
        s.pn,
    )


@njit(sig(I, I, I, I, I, I, I, I, I, I, B, I, I, B, F), cache=True, error_model="numpy", _nrt=False)
def _exposed_payable(b0, b1, b2, n, skip, extra, h, ret, held, police, last, my_left, slots, crypt, pn):
    """:func:`_exposed` with the payable count of :func:`_payable`: one call per exposure
    (both inlined in ``action``'s ~7 exposures cost ~10 s of cold compile)."""
    return _exposed(
        held, police, last, my_left, slots, _payable(b0, b1, b2, n, skip, extra, h, ret), crypt, pn
    )


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _slot_value(cap_v, tau, spare):
    """Francs one more own burial place is worth with ``spare`` places already free and
    unclaimed: ``capacity_value`` for the first ones, less as they pile up."""
    if spare < 0:
        spare = 0
    return cap_v * tau * 2.0 / (2.0 + spare)


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _room(cash, cap, unlimited):
    """Francs the cap still lets in (BI-N8)."""
    if unlimited:
        return 1e9
    r = cap - cash
    return float(r) if r > 0 else 0.0


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _potential(cash, places, build_b):
    """Half of what building a card in hand would bring (it takes an action and payment)."""
    v = cash + places + build_b
    return 0.5 * v if v > 0.0 else 0.0


def _police_chances():
    """1 - 0.8**k for k = 0..NROOMS open rooms, multiplied out one room at a time."""
    out = []
    for k in range(L.NROOMS + 1):
        q = 1.0
        for _ in range(k):
            q *= 0.8
        out.append(1.0 - q)
    return tuple(out)


POLICE_NEXT = _police_chances()


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _police_next(rooms):
    """Chance of at least one officer among the travellers of ``rooms`` open rooms (a
    fifth of them are police): a table lookup of the same products as the loop below."""
    if 0 <= rooms <= L.NROOMS:
        return POLICE_NEXT[rooms]
    q = 1.0
    for _ in range(rooms):
        q *= 0.8
    return 1.0 - q


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _fade(rn, horizon):
    """Share of their value that lasting things keep with ``rn`` rounds of use left."""
    hz = horizon if horizon > 1e-6 else 1e-6
    t = rn / hz
    return 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)


# --- reading the table (one call per decision) -----------------------------------------


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _new_annex_kind(st, k, unique, owned):
    """A card of kind ``k`` can become an annex the player may still add (BI-C3; with unique
    annexes, not a kind it owns).  ``&`` and ``|``, not ``and`` / ``or``: no branch the CPU
    cannot predict."""
    return (st[nowrap(L.K_ANNEXABLE + k)] != 0) & ((not unique) | ((owned >> k) & 1 == 0))


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")  # in _seat; payment and wages call _hand
def _sort_hand(st, p, card_v, aff_v, cap_v, build_b, tau):
    """Own hand to ``S_A`` sorted by keep value (ascending), the values (x SCALE) to
    ``KV``, the best on-build cash of an annexable card in it to ``HCASH`` (-1: none).  A card's keep value: ``card_value``, plus ``affinity_value`` if it returns
    when paying for its action, plus half of what building it would bring now (cash,
    burial places, ``build_bias``) if that is positive."""
    m = st[nowrap(L.P_HAND_N + p)]
    if m > HMAX:
        m = HMAX
    ho = L.LISTS + (L.L_HAND + p) * L.MAXC
    owned = st[nowrap(L.P_KINDS_OWNED + p)]
    unique = st[L.G_UNIQUE] != 0
    hcash = -1
    n = 0
    for i in range(m):
        c = st[nowrap(ho + i)]
        k = st[nowrap(L.C_KIND + c)]
        # selects rather than branches: whether a card returns or may become an annex is
        # nothing the CPU can predict (the same sums, added or not)
        annexable = st[nowrap(L.K_ANNEXABLE + k)] != 0
        now = st[nowrap(L.K_BUILD_CASH + k)]
        hcash = now if annexable & (now > hcash) else hcash
        v = card_v + aff_v if st[nowrap(L.C_AFF + c)] >= 0 else card_v
        pot = _potential(now, cap_v * st[nowrap(L.C_RANK + c)], build_b)
        v = v + pot if _new_annex_kind(st, k, unique, owned) else v
        iv = np.int64(tau * v * SCALE)  # as int(): a cast, not a call (see _min)
        j = n
        while j > 0 and st[nowrap(KV + j - 1)] > iv:
            st[nowrap(KV + j)] = st[nowrap(KV + j - 1)]
            st[nowrap(L.S_A + j)] = st[nowrap(L.S_A + j - 1)]
            j -= 1
        st[nowrap(KV + j)] = iv
        st[nowrap(L.S_A + j)] = c
        n += 1
    st[HCASH] = hcash
    return n


@njit(cache=True, error_model="numpy", _nrt=False)
def _hand(st, p, card_v, aff_v, cap_v, build_b, tau):
    """:func:`_sort_hand` (payment, wages)."""
    return _sort_hand(st, p, card_v, aff_v, cap_v, build_b, tau)


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")  # once per decision, in _seat
def _loss_tables(st, nh, chapel):
    """For each paying action a: ``PFX + a*PSTRIDE + k`` = loss of the k cheapest cards
    that do not return (affinity != a); returns the counts of returning cards and of the
    others per action."""
    r0 = 0
    r1 = 0
    r2 = 0
    r3 = 0
    for a in range(4):
        st[nowrap(PFX + a * PSTRIDE)] = 0
    for i in range(nh):
        c = st[nowrap(L.S_A + i)]
        aff = st[nowrap(L.C_AFF + c)]
        v = st[nowrap(KV + i)]
        # the hand is sorted: append to every table this card does not return for, without a
        # branch on its affinity (the CPU cannot predict it): a card that returns for action
        # a writes the slot past that table's last entry all the same, where the next card
        # that does not return overwrites it (readers stop at k_a, ``_clip_need``)
        k0 = i - r0
        k1 = i - r1
        k2 = i - r2
        k3 = i - r3
        if k0 + 1 < PSTRIDE - 1:
            st[nowrap(PFX + k0 + 1)] = st[nowrap(PFX + k0)] + v
        if k1 + 1 < PSTRIDE - 1:
            st[nowrap(PFX + PSTRIDE + k1 + 1)] = st[nowrap(PFX + PSTRIDE + k1)] + v
        if k2 + 1 < PSTRIDE - 1:
            st[nowrap(PFX + 2 * PSTRIDE + k2 + 1)] = st[nowrap(PFX + 2 * PSTRIDE + k2)] + v
        if k3 + 1 < PSTRIDE - 1:
            st[nowrap(PFX + 3 * PSTRIDE + k3 + 1)] = st[nowrap(PFX + 3 * PSTRIDE + k3)] + v
        r0 += 1 if aff == 0 else 0
        r1 += 1 if aff == 1 else 0
        r2 += 1 if aff == 2 else 0
        r3 += 1 if aff == 3 else 0
    if chapel:
        r3 = nh  # the Chapel: every card returns for Bury
    return r0, r1, r2, r3


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")  # once per decision, in _seat
def _table(st, p, disc_bury):
    """Own corpses (how many, with the 3 cheapest burial costs), free burial places (own
    and others', as the rules count them) and a Bistro peasant."""
    own_free = st[nowrap(L.P_FREE_SPACE + p)]
    other_free = st[L.G_FREE_SPACE] - own_free
    b0 = 1 << 30
    b1 = 1 << 30
    b2 = 1 << 30
    co = L.LISTS + (L.L_CORPSE + p) * L.MAXC
    ncorp = st[nowrap(L.P_CORPSE_N + p)]
    if ncorp > 200:
        ncorp = 200
    for i in range(ncorp):
        c = st[nowrap(co + i)]
        kb = 0 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.peasant else st[nowrap(L.C_RANK + c)] - disc_bury
        if kb < 0:
            kb = 0
        if kb < b0:
            b0, b1, b2 = kb, b0, b1
        elif kb < b1:
            b1, b2 = kb, b1
        elif kb < b2:
            b2 = kb
    bistro_card = st[L.LISTS + L.L_BISTRO * L.MAXC] if st[L.G_BISTRO_N] > 0 else -1
    return ncorp, own_free, other_free, bistro_card, b0, b1, b2


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")  # in _bury, when it values one
def _own_burial_place(st, p):
    """Where ``p`` buries a corpse in its own places (BI-N6): its first annex with room, else
    its Barn (-1: none).  Both pay the whole pocket money; annexes first is the order this
    policy has always used."""
    ao = L.LISTS + (L.L_ANNEX + p) * L.MAXC
    for i in range(st[nowrap(L.P_ANNEX_N + p)]):
        c = st[nowrap(ao + i)]
        if st[nowrap(L.C_RANK + c)] - st[nowrap(L.C_FILL + c)] > 0:
            return c
    return L.BARN_SLOT - p if st[nowrap(L.P_BARN_FILL + p)] < 1 else -1


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")  # in _bury, when it values one
def _others_burial_place(st, p):
    """Where ``p`` buries a corpse under another player's place (BI-N6): that player's last
    place with room (its Barn, then its annexes), of the poorest such opponent (-1: none)."""
    other_dest = -1
    best = 1 << 30
    for q in range(st[L.G_NP]):
        if q == p:
            continue
        dest = L.BARN_SLOT - q if st[nowrap(L.P_BARN_FILL + q)] < 1 else 0  # q's last place with room
        ao = L.LISTS + (L.L_ANNEX + q) * L.MAXC
        for i in range(st[nowrap(L.P_ANNEX_N + q)]):
            c = st[nowrap(ao + i)]
            if st[nowrap(L.C_RANK + c)] - st[nowrap(L.C_FILL + c)] > 0:
                dest = c
        # a burial under another player's annex feeds the poorest opponent, not the leader
        if dest != 0:
            sc = st[nowrap(L.P_CASH + q)] + 10 * st[nowrap(L.P_CHEQUES + q)]
            if sc < best:
                best = sc
                other_dest = dest
    return other_dest


@njit(cache=True, error_model="numpy", _nrt=False)
def _end_francs(st, p, k, rn, in_inn):
    """Francs the end-of-game effect of kind ``k`` is expected to pay (BI-G2)."""
    v = 0.0
    col = st[nowrap(L.K_END_COLOUR + k)]
    if col >= 0:
        n = 0
        eo = L.LISTS + L.L_EXIT * L.MAXC
        for i in range(st[L.G_EXIT_N]):
            if st[nowrap(L.C_COLOUR + st[nowrap(eo + i)])] == col:
                n += 1
        # the Exit is public; about a tenth of what is still to come may end there alive
        ent_left = st[L.G_ENT_N] - st[L.G_ENT_POS]
        v += st[nowrap(L.K_END_COLOUR_AMT + k)] * (n + 0.12 * (ent_left + in_inn))
    if st[nowrap(L.K_END_CHEQUE + k)] > 0:
        v += st[nowrap(L.K_END_CHEQUE + k)] * (st[nowrap(L.P_CHEQUES + p)] + 0.25 * rn)
    return v


# --- candidates for search ----------------------------------------------------------------

REC_N = L.S_D  # candidates recorded by ``action`` when ``G_REC`` is set ...
REC = L.S_D + 1  # ... REC_W ints each: value x SCALE, action, target, extra
REC_W = 4
REC_MAX = 120


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _rec(st, v, a, t, d):
    """Search: note the candidate ``(a, t, d)`` and its value (``d``: the destination of a
    burial, the peasants of a Bistro bribe or the cheques of a pass)."""
    if st[L.G_REC] != 0:
        n = st[REC_N]
        if n < REC_MAX:
            o = REC + n * REC_W
            st[nowrap(o)] = int(v * SCALE) if v > -1e15 else -(1 << 60)
            st[nowrap(o + 1)] = a
            st[nowrap(o + 2)] = t
            st[nowrap(o + 3)] = d
            st[REC_N] = n + 1


# --- decisions ----------------------------------------------------------------------------


@njit(cache=True, error_model="numpy", _nrt=False)
def place(st, pr, p, card):
    """BI-E1: Room-Service income for self, little for opponents; own keys for the rest."""
    share = pr[nowrap(st[nowrap(L.P_LINEUP + p)] * L.MAXPARAM + 14)]
    rank = st[nowrap(L.C_RANK + card)]
    best = -1
    bv = _NEG
    # the open rooms (a key, BI-S1) without a traveller (G_INN, kept by the rules), visited
    # in ascending order as a mask: no branch per room that the CPU cannot predict
    empty = 0
    for r in range(L.NROOMS):
        empty |= (1 if st[nowrap(L.R_KEY + r)] >= 0 else 0) << r
    empty &= ~st[L.G_INN]
    while empty != 0:
        r = lowest_set_bit(empty)
        empty &= empty - 1
        v = _room_value(st, p, share, rank, r)
        if v > bv:
            bv = v
            best = r
    return best


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")  # in place's loop: no call per room
def _room_value(st, p, share, rank, r):
    """:func:`room_value`."""
    v = 0.0
    if rank > 0:
        for q in range(st[L.G_NP]):
            t = st[nowrap(L.R_TOKENS + r * L.MAXP + q)]
            if t > 0:
                v += t * rank if q == p else -share * t * rank
    key = st[nowrap(L.R_KEY + r)]
    if key == p:
        v += 0.5  # 1 F in the morning if the traveller is still there (BI-M2)
    elif key != L.WHITE:
        v -= 0.5 * share
    return v


@njit(sig(ST, I, F, I, I), cache=True, error_model="numpy", _nrt=False)
def room_value(st, p, share, rank, r):
    """What putting a traveller of ``rank`` in the open empty room ``r`` is worth to the
    placing seat ``p`` (:func:`place`; the search ranks its placement candidates by it)."""
    return _room_value(st, p, share, rank, r)


#: What every candidate of one night action is valued with (``_seat``): the parameters,
#: the clock, the player's sorted hand (``S_A``/``KV``), corpses, burial places
#: and loss tables (``PFX``), read once per decision.
Seat = namedtuple(
    "Seat",
    (
        "p",
        "card_v",
        "aff_v",
        "corpse_v",
        "cap_v",
        "wage_c",
        "build_b",
        "eff_w",
        "end_w",
        "laund_above",
        "laund_w",
        "kill_b",
        "bribe_b",
        "hand_t",
        "share",
        "rec",
        "rn",
        "tau",
        "in_inn",
        "police",
        "my_left",
        "last",
        "pn",
        "fine",
        "prune",
        "cash",
        "cap",
        "unlimited",
        "room",
        "disc_bribe",
        "disc_build",
        "disc_kill",
        "disc_bury",
        "crypt",
        "chapel",
        "owned",
        "unique",
        "nh",
        "held",
        "own_free",
        "bistro_card",
        "b0",
        "b1",
        "b2",
        "ret_bribe",
        "ret_build",
        "ret_kill",
        "ret_bury",
        "k_bribe",
        "k_build",
        "k_kill",
        "k_bury",
        "slots",
        "avail_own",
        "avail_any",
        "def_exp",
        "slot_v",
    ),
)


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _seat(st, pr, p):
    """Read the parameters, the clock and the player's table for one decision (``Seat``);
    sort the hand, list the corpses and fill the loss tables in the scratch."""
    base = st[nowrap(L.P_LINEUP + p)] * L.MAXPARAM
    card_v = pr[nowrap(base)]
    aff_v = pr[nowrap(base + 1)]
    corpse_v = pr[nowrap(base + 2)]
    cap_v = pr[nowrap(base + 3)]
    risk_w = pr[nowrap(base + 4)]
    build_b = pr[nowrap(base + 6)]
    horizon = pr[nowrap(base + 15)]
    np_ = st[L.G_NP]
    rec = st[L.G_REC]  # search: record every candidate (and prune nothing)
    if rec != 0:
        st[REC_N] = 0
    disc_kill = st[nowrap(L.P_DISCOUNT + p * L.NACT + L.ACTION.kill)]
    rl, in_inn, police, my_left, last = _clock(st)
    rn = rl - 1.0 + 0.5 * my_left  # rounds of use after this action
    tau = _fade(rn, horizon)
    cash = st[nowrap(L.P_CASH + p)]
    cap = st[L.G_CAP]
    unlimited = st[L.G_UNLIMITED] != 0
    room = _room(cash, cap, unlimited)
    # BI-X2: in solo an investigation with a corpse loses the game
    fine = 500.0 if np_ == 1 else st[L.G_FINE] * risk_w  # BI-M1: 10 F per corpse printed
    # chance of police in the inn next round (a fifth of the travellers are police);
    # certain investigation if the next round is the last (BI-G1)
    pn = 1.0
    if rl >= 2.5:
        pn = _police_next(st[L.G_OPEN_ROOMS])
    disc_bury = st[nowrap(L.P_DISCOUNT + p * L.NACT + L.ACTION.bury)]
    crypt = st[nowrap(L.P_MULTI + p * L.NACT + L.ACTION.bury)] != 0

    nh = _sort_hand(st, p, card_v, aff_v, cap_v, build_b, tau)
    held, own_free, other_free, bistro_card, b0, b1, b2 = _table(st, p, disc_bury)
    st[STAMP] = st[L.G_TURNS]  # the payment of this action reuses the hand
    st[STAMP + 1] = p
    st[STAMP + 2] = nh
    chapel = st[nowrap(L.P_CHAPEL + p)] != 0
    ret_bribe, ret_build, ret_kill, ret_bury = _loss_tables(st, nh, chapel)
    slots = own_free + other_free
    def_exp = 0.0  # no corpse held: none exposed (as _exposed says)
    if held > 0:
        def_exp = _exposed_payable(
            b0, b1, b2, held, -1, -1, nh, ret_bury, held, police, last, my_left, slots, crypt, pn
        )
    # with non-negative weights the fine and burial terms only lower a value, so a candidate
    # whose value without them cannot beat the best is skipped (same choices, less work)
    prune = corpse_v >= 0.0 and fine >= 0.0 and rec == 0
    owned = st[nowrap(L.P_KINDS_OWNED + p)]
    unique = st[L.G_UNIQUE] != 0
    return Seat(
        p,
        card_v,
        aff_v,
        corpse_v,
        cap_v,
        pr[nowrap(base + 5)],
        build_b,
        pr[nowrap(base + 7)],
        pr[nowrap(base + 8)],
        pr[nowrap(base + 9)],
        pr[nowrap(base + 10)],
        pr[nowrap(base + 11)],
        pr[nowrap(base + 12)],
        pr[nowrap(base + 13)],
        pr[nowrap(base + 14)],
        rec,
        rn,
        tau,
        in_inn,
        police,
        my_left,
        last,
        pn,
        fine,
        prune,
        cash,
        cap,
        unlimited,
        room,
        st[nowrap(L.P_DISCOUNT + p * L.NACT + L.ACTION.bribe)],
        st[nowrap(L.P_DISCOUNT + p * L.NACT + L.ACTION.build)],
        disc_kill,
        disc_bury,
        crypt,
        chapel,
        owned,
        unique,
        nh,
        held,
        own_free,
        bistro_card,
        b0,
        b1,
        b2,
        ret_bribe,
        ret_build,
        ret_kill,
        ret_bury,
        _min(nh - ret_bribe, PSTRIDE - 2),  # non-returning cards per action
        _min(nh - ret_build, PSTRIDE - 2),
        _min(nh - ret_kill, PSTRIDE - 2),
        _min(nh - ret_bury, PSTRIDE - 2),
        slots,
        own_free - held,
        slots - held,
        def_exp,
        _slot_value(cap_v, tau, own_free - held - 1),  # the own place a new corpse takes
    )


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _launder(st, s):
    """BI-N7: the cheques a pass buys (> 0) or cashes (< 0), and what that is worth.

    Tens above ``launder_above`` become cheques (keeping the next wages in cash); they are
    worth the francs they save from the cap on the gains in sight (a corpse that survives
    the night, a kill it can house, the best on-build cash in hand).  Short of the wages,
    a cheque is cashed instead."""
    p = s.p
    nh = s.nh
    cash = s.cash
    cap = s.cap
    cash_out = st[nowrap(L.P_CHEQUES + p)]
    lim = (cap - cash) // 10
    if cash_out > lim:
        cash_out = lim
    if cash_out < 0:
        cash_out = 0
    buy = 0
    if not may(st, p, L.ACTION.passing):
        cash_out = 0  # restricted play: passes without laundering only
    elif not s.unlimited and cash > s.laund_above:
        buy = (cash - nh - 1) // 10  # keep the next wages in cash
        if buy > cash // 10:
            buy = cash // 10
        if buy < 0:
            buy = 0
    if buy > 0:
        # the gains in sight, in whole francs: their maximum is taken as an int with a
        # select per card (no branch the CPU cannot predict), and is the same number
        most = 0
        if s.def_exp < 0.5 and s.slots > 0:  # a corpse that survives the night
            co = L.LISTS + (L.L_CORPSE + p) * L.MAXC
            for j in range(s.held):
                pocket = st[nowrap(L.C_POCKET + st[nowrap(co + j)])]
                g = pocket if s.own_free > 0 else pocket - pocket // 2
                most = g if g > most else most
        if s.avail_own > 0:  # the most pocket money of a traveller it can pay to kill
            rooms = st[L.G_INN]
            while rooms != 0:  # the rooms holding a traveller
                c = st[nowrap(L.R_CARD + lowest_set_bit(rooms))]
                rooms &= rooms - 1
                pocket = st[nowrap(L.C_POCKET + c)]
                most = pocket if st[nowrap(L.C_RANK + c)] - s.disc_kill <= nh and pocket > most else most
        hcash = st[HCASH]  # the best on-build cash in hand (noted by ``_hand``)
        pend = float(hcash if hcash > most else most)
        room_after = _room(cash - 10 * buy, cap, s.unlimited)
        gain = (_min(pend, room_after) - _min(pend, s.room)) + 0.05 * (cash - s.laund_above)
        return buy, s.laund_w * gain
    if cash < nh and cash_out > 0 and not s.last:
        launder = -((nh - cash + 9) // 10)  # cash a cheque to pay the wages
        if -launder > cash_out:
            launder = -cash_out
        return launder, 0.5 * s.card_v * s.tau * _min(nh - cash, -10 * launder)
    return 0, 0.0


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _bury(st, s, best_v):
    """BI-N6: each held corpse the hand can pay for, in its own burial place first (all
    the pocket money), else half under another player's annex.  Returns the best that
    beats ``best_v`` as (value, corpse, destination), corpse -1 if none does."""
    best_t = -1
    best_d = 0
    if s.held <= 0 or s.slots <= 0 or not may(st, s.p, L.ACTION.bury):
        return best_v, best_t, best_d
    nh = s.nh
    k_bury = s.k_bury
    # own places first (all the pocket money), else another player's (half of it)
    d = _own_burial_place(st, s.p) if s.own_free > 0 else _others_burial_place(st, s.p)
    co = L.LISTS + (L.L_CORPSE + s.p) * L.MAXC
    for j in range(s.held):
        c = st[nowrap(co + j)]
        kb = 0 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.peasant else st[nowrap(L.C_RANK + c)] - s.disc_bury
        if kb < 0:
            kb = 0
        if kb > nh:
            continue
        pocket = st[nowrap(L.C_POCKET + c)]
        if s.own_free > 0:
            gain = _min(float(pocket), s.room)
        else:
            half = pocket // 2
            gain = _min(float(pocket - half), s.room) - s.share * half
        need = kb - s.ret_bury
        loss = _loss_of(st[nowrap(PFX + 3 * PSTRIDE + _clip_need(need, k_bury))], need, k_bury)
        left = nh - (need if need > 0 else 0)
        if s.prune and not gain - loss > best_v:
            continue  # the fine term only lowers it (exp >= 0, fine >= 0)
        exp = 0.0  # the last corpse held: none left exposed
        if s.held > 1:
            exp = _exposure(s, s.held - 1, s.police, s.slots - 1, kb, -1, left)
        v = gain - loss - s.fine * exp
        _rec(st, v, L.ACTION.bury, c, d)
        if v > best_v:
            best_v, best_t, best_d = v, c, d
    return best_v, best_t, best_d


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _effects(st, s, k):
    """Francs of the lasting effects of an annex of kind ``k`` over the rounds left."""
    rn = s.rn
    e = 0.0
    if st[nowrap(L.K_DISCOUNT_ACT + k)] >= 0:
        e += 0.5 * st[nowrap(L.K_DISCOUNT_AMT + k)] * rn * s.card_v
    if st[nowrap(L.K_MULTI + k)] >= 0:
        e += 1.5 * (rn if rn < 6.0 else 6.0)
    e += (st[nowrap(L.K_WAGE_FREE + k)] + st[nowrap(L.K_LEAVE_INCOME + k)]) * rn
    if st[nowrap(L.K_ROOM_SERVICE + k)] != 0:
        e += rn
    if st[nowrap(L.K_MONK + k)] != 0:  # the Monk: only with a white-keyed room (a rare kind: looked up here)
        for r in range(L.NROOMS):
            if st[nowrap(L.R_KEY + r)] == L.WHITE:
                e += 0.6 * rn
                break
    if st[nowrap(L.K_CHAPEL + k)] != 0 and not s.chapel:
        e += 0.4 * rn * s.card_v
    if st[nowrap(L.K_PEASANT_LIMIT + k)] > st[nowrap(L.P_PEAS_LIMIT + s.p)]:
        e += 0.3 * (rn if rn < 6.0 else 6.0)
    return e


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _build(st, s, best_v):
    """BI-N4: each card in hand that may become an annex: cash now, burial places, lasting
    effects, end-of-game bonuses, less the accomplice and the cards paid.  Returns the best
    that beats ``best_v`` as (value, card), card -1 if none does."""
    best_t = -1
    p = s.p
    nh = s.nh
    k_build = s.k_build
    fine = s.fine
    cnt_nb = 0  # non-artisans before position i
    for i in range(nh):
        c = st[nowrap(L.S_A + i)]
        a = st[nowrap(L.C_AFF + c)]
        k = st[nowrap(L.C_KIND + c)]
        if _new_annex_kind(st, k, s.unique, s.owned) and may_build_kind(st, p, k):
            rank = st[nowrap(L.C_RANK + c)]
            kc = rank - s.disc_build
            if kc < 0:
                kc = 0
            if kc <= nh - 1:
                ret = s.ret_build - (1 if a == L.ACTION.build else 0)
                need = kc - ret
                if need > 0 and a != L.ACTION.build and cnt_nb < need:
                    # the card itself is among the cheapest: the next one pays instead
                    n1 = need + 1
                    loss = (
                        _loss_of(st[nowrap(PFX + PSTRIDE + _clip_need(n1, k_build))], n1, k_build)
                        - st[nowrap(KV + i)] / SCALE
                    )
                else:
                    loss = _loss_of(st[nowrap(PFX + PSTRIDE + _clip_need(need, k_build))], need, k_build)
                now = st[nowrap(L.K_BUILD_CASH + k)]
                col = st[nowrap(L.K_PER_COLOUR + k)]
                if col >= 0:
                    own_col = st[nowrap(L.P_COL_ANNEX + p * L.NCOL + col)]
                    if st[nowrap(L.C_COLOUR + c)] == col:
                        own_col += 1
                    now += st[nowrap(L.K_PER_COLOUR_AMT + k)] * own_col
                v = _min(float(now), s.room)
                for j in range(rank):
                    v += _slot_value(s.cap_v, s.tau, s.avail_own + j)
                if s.avail_own < 0:
                    v += s.corpse_v * 6.0 * (rank if rank < -s.avail_own else -s.avail_own)
                v += s.eff_w * _effects(st, s, k)
                if st[nowrap(L.K_END_COLOUR + k)] >= 0 or st[nowrap(L.K_END_CHEQUE + k)] > 0:
                    v += s.end_w * _end_francs(st, p, k, s.rn, s.in_inn)
                v -= s.tau * (s.card_v + (s.aff_v if a >= 0 else 0.0))  # no longer an accomplice
                v += s.build_b - loss
                if s.held > 0 and (fine < 0.0 or v > best_v or s.rec != 0):
                    left = nh - 1 - (need if need > 0 else 0)
                    v -= fine * _exposure(s, s.held, s.police, s.slots + rank, -1, -1, left)
                _rec(st, v, L.ACTION.build, c, 0)
                if v > best_v:
                    best_v, best_t = v, c
        if a != L.ACTION.build:
            cnt_nb += 1
    return best_v, best_t


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _kill(st, s, c, best_v):
    """BI-N5: traveller ``c`` as a corpse worth its pocket money where it can be buried,
    less its burial, the cards paid and the fine risk.  Returns (is a candidate, value);
    with ``prune`` a candidate that cannot beat ``best_v`` is not valued."""
    nh = s.nh
    rank = st[nowrap(L.C_RANK + c)]
    pocket = st[nowrap(L.C_POCKET + c)]
    pol_after = s.police - 1 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.police else s.police
    kk = rank - s.disc_kill
    if kk < 0:
        kk = 0
    need = kk - s.ret_kill
    loss = _loss_of(st[nowrap(PFX + 2 * PSTRIDE + _clip_need(need, s.k_kill))], need, s.k_kill)
    if kk > nh or (s.prune and not s.corpse_v * pocket + s.kill_b - loss > best_v):
        return False, 0.0
    left = nh - (need if need > 0 else 0)
    kb = rank - s.disc_bury
    if kb < 0:
        kb = 0
    g = 0.0
    if s.avail_any > 0:
        if s.avail_own > 0:
            g = pocket - s.slot_v
        else:
            half = pocket // 2
            g = (pocket - half) - s.share * half
        nb = kb - s.ret_bury
        g -= _loss_of(st[nowrap(PFX + 3 * PSTRIDE + _clip_need(nb, s.k_bury))], nb, s.k_bury)
    if s.prune:
        # bound without the two exposures: one more corpse is at most one more payable
        # burial, so exp >= exp_old (lost >= 0, the factor is in [0, 1]); exp >= 0
        ub = -s.fine
        if s.avail_any > 0:
            ub = s.corpse_v * g
            if ub < 0.0:
                ub = 0.0
        if not ub + (s.kill_b - loss) > best_v:
            return False, 0.0
    if s.held == 0:  # the usual case: this corpse alone, valued inline (~80 a game)
        payable = _payable(s.b0, s.b1, s.b2, 0, -1, kb, left, s.ret_bury)
        exp = _exposed(1, pol_after, s.last, s.my_left, s.slots, payable, s.crypt, s.pn)
    else:
        exp = _exposure(s, s.held + 1, pol_after, s.slots, -1, kb, left)
    if s.avail_any <= 0:
        v = -s.fine  # nowhere to bury it: a fine sooner or later
    else:
        exp_old = 0.0  # no corpse held: none exposed (as _exposed says)
        if s.held > 0:
            exp_old = _exposure(s, s.held, pol_after, s.slots, -1, -1, left)
        lost = exp - exp_old  # chance this corpse is the one fined
        v = s.corpse_v * g * (1.0 - (lost if lost < 1.0 else 1.0))
    v += s.kill_b - loss - s.fine * exp
    _rec(st, v, L.ACTION.kill, c, 0)
    return True, v


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _kill_peasant(st, s, best_v):
    """BI-N5: the Bistro's first peasant as a corpse (rank 0, free).  With ``prune`` one
    that cannot beat ``best_v`` is not valued (returns ``best_v``)."""
    pocket = st[nowrap(L.C_POCKET + s.bistro_card)]
    if s.prune:
        # bound without the exposure: a free corpse adds one payable corpse, so exp >=
        # def_exp (lost >= 0, the factor is in [0, 1]) and exp >= 0, with fine >= 0
        if s.avail_any <= 0:
            ub = -s.fine
        elif s.avail_own > 0:
            ub = s.corpse_v * (pocket - s.slot_v)
        else:
            half = pocket // 2
            ub = s.corpse_v * ((pocket - half) - s.share * half)
        if not (ub if ub > 0.0 else 0.0) > best_v:
            return best_v
    exp = _exposure(s, s.held + 1, s.police, s.slots, -1, 0, s.nh)
    if s.avail_any <= 0:
        v = -s.fine
    else:
        if s.avail_own > 0:
            v = s.corpse_v * (pocket - s.slot_v)
        else:
            half = pocket // 2
            v = s.corpse_v * ((pocket - half) - s.share * half)
        lost = exp - s.def_exp
        v *= 1.0 - (lost if lost < 1.0 else 1.0)
    v -= s.fine * exp
    _rec(st, v, L.ACTION.kill, -2, 0)
    return v


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _bribe(st, s, c, best_v):
    """BI-N3: traveller ``c`` as one more accomplice (and, for the last officer, no
    investigation), less the cards paid, its wages and the fine risk.  Returns (is a
    candidate, value); with ``prune`` the fine risk of one that cannot beat ``best_v`` is
    not valued."""
    p = s.p
    nh = s.nh
    k_bribe = s.k_bribe
    rank = st[nowrap(L.C_RANK + c)]
    pol_after = s.police - 1 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.police else s.police
    kr = rank - s.disc_bribe
    if kr < 0:
        kr = 0
    if kr > nh:
        return False, 0.0
    need = kr - s.ret_bribe
    loss = _loss_of(st[nowrap(PFX + _clip_need(need, k_bribe))], need, k_bribe)
    # selects rather than branches, as in ``_sort_hand``
    kv = s.card_v + s.aff_v if st[nowrap(L.C_AFF + c)] >= 0 else s.card_v
    k = st[nowrap(L.C_KIND + c)]
    buildable = _new_annex_kind(st, k, s.unique, s.owned) & may_build_kind(st, p, k)
    pot = _potential(st[nowrap(L.K_BUILD_CASH + k)], s.cap_v * rank, s.build_b)
    kv = kv + pot if buildable else kv
    marg = 1.0 if nh < s.hand_t else 0.5
    v = marg * s.tau * kv - loss - s.wage_c + s.bribe_b
    if s.held > 0 and (not s.prune or v > best_v):
        left = nh - (need if need > 0 else 0) + 1
        v -= s.fine * _exposure(s, s.held, pol_after, s.slots, -1, -1, left)
    _rec(st, v, L.ACTION.bribe, c, 0)
    return True, v


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _bribe_peasants(st, s):
    """BI-N3: free peasant accomplices from the Bistro, as many as are each worth their
    wages (at least one).  Returns (value, how many)."""
    lim = st[nowrap(L.P_PEAS_LIMIT + s.p)]
    if lim > st[L.G_BISTRO_N]:
        lim = st[L.G_BISTRO_N]
    v = 0.0
    take = 0
    for i in range(lim):
        dv = (1.0 if s.nh + i < s.hand_t else 0.5) * s.card_v * s.tau - s.wage_c
        if dv <= 0.0 and i > 0:
            break
        v += dv
        take = i + 1
    v -= s.fine * s.def_exp
    _rec(st, v, L.ACTION.bribe, -2, take)
    return v, take


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def _decide(st, s, best_a, best_t, best_d, launder):
    """Fill the decision scratch with the chosen action, extended to further targets where
    a multi-target annex allows (Crypt, Butcher's Shop, Store)."""
    p = s.p
    st[L.D_ACTION] = best_a
    if best_a == L.ACTION.passing:
        st[L.D_LAUNDER] = launder
        return
    if best_t == -2:
        st[L.D_PEASANTS] = 1
        st[L.D_NT] = best_d if best_a == L.ACTION.bribe else 1
        return
    st[L.D_T] = best_t
    st[L.D_NT] = 1
    st[L.D_DEST] = best_d
    if best_a == L.ACTION.bury and s.crypt:
        _extend_bury(st, p, s.nh, s.ret_bury, s.k_bury, s.disc_bury, s.room, s.share)
    elif best_a == L.ACTION.kill and st[nowrap(L.P_MULTI + p * L.NACT + L.ACTION.kill)] != 0:
        _extend_kill(
            st,
            p,
            s.nh,
            s.ret_kill,
            s.k_kill,
            s.disc_kill,
            s.corpse_v,
            s.kill_b,
            s.avail_own - 1,
            s.avail_any - 1,
            s.share,
            s.fine,
            s.police,
            s.last,
            s.my_left,
            s.slots,
            s.crypt,
            s.held,
            s.pn,
            s.cap_v,
            s.tau,
        )
    elif best_a == L.ACTION.bribe and st[nowrap(L.P_MULTI + p * L.NACT + L.ACTION.bribe)] != 0:
        _extend_bribe(
            st,
            p,
            s.nh,
            s.ret_bribe,
            s.k_bribe,
            s.disc_bribe,
            s.card_v,
            s.aff_v,
            s.cap_v,
            s.build_b,
            s.tau,
            s.hand_t,
            s.wage_c,
            s.bribe_b,
        )


@njit(cache=True, error_model="numpy", _nrt=False)
def action(st, pr, p):
    """BI-N1..N7: value every candidate action in francs, take the best (pass if none
    beats it; ties go to the first candidate in the order pass, bury, build, then kill and
    bribe of each room in turn, then the Bistro), fill the decision scratch."""
    s = _seat(st, pr, p)
    launder, gain = _launder(st, s)
    best_v = -s.fine * s.def_exp  # the pass: the baseline every action is compared with
    if launder != 0:
        best_v += gain
    _rec(st, best_v, L.ACTION.passing, -1, launder)
    best_a = L.ACTION.passing
    best_d = 0
    best_v, best_t, best_d = _bury(st, s, best_v)
    if best_t >= 0:
        best_a = L.ACTION.bury
    v, t = _build(st, s, best_v)
    if t >= 0:
        best_v, best_a, best_t = v, L.ACTION.build, t
    may_kill = may(st, p, L.ACTION.kill)
    may_bribe = may(st, p, L.ACTION.bribe)
    rooms = st[L.G_INN]
    while rooms != 0:  # the rooms holding a traveller, in order
        c = st[nowrap(L.R_CARD + lowest_set_bit(rooms))]
        rooms &= rooms - 1
        if may_kill:
            ok, v = _kill(st, s, c, best_v)
            if ok and v > best_v:
                best_v, best_a, best_t = v, L.ACTION.kill, c
        if may_bribe:
            ok, v = _bribe(st, s, c, best_v)
            if ok and v > best_v:
                best_v, best_a, best_t = v, L.ACTION.bribe, c
    if s.bistro_card >= 0:
        if may_kill:
            v = _kill_peasant(st, s, best_v)
            if v > best_v:
                best_v, best_a, best_t = v, L.ACTION.kill, -2
        if may_bribe:
            v, take = _bribe_peasants(st, s)
            if v > best_v:
                best_v, best_a, best_t, best_d = v, L.ACTION.bribe, -2, take
    _decide(st, s, best_a, best_t, best_d, launder)


# --- multi-target annexes (rare: one Crypt, one Butcher's Shop, one Store) ----------------


@njit(cache=True, error_model="numpy", _nrt=False)
def _free_left(st, d, upto):
    """Free places of destination ``d`` once the first ``upto`` corpses of this action are in."""
    if d < 0:
        left = 1 - st[nowrap(L.P_BARN_FILL + (L.BARN_SLOT - d))]
    else:
        left = st[nowrap(L.C_RANK + d)] - st[nowrap(L.C_FILL + d)]
    for i in range(upto):
        if st[nowrap(L.D_DEST + i)] == d:
            left -= 1
    return left


@njit(sig(ST, I, I, B), cache=True, error_model="numpy", _nrt=False)
def _any_dest(st, p, upto, own):
    """A destination with a free place left for the next corpse: own (-1 if none) or
    another player's (-2 if none)."""
    if own:
        d = L.BARN_SLOT - p
        if _free_left(st, d, upto) > 0:
            return d
    else:
        for q in range(st[L.G_NP]):
            if q != p and _free_left(st, L.BARN_SLOT - q, upto) > 0:
                return L.BARN_SLOT - q
    for q in range(st[L.G_NP]):
        if (q == p) != own:
            continue
        ao = L.LISTS + (L.L_ANNEX + q) * L.MAXC
        for i in range(st[nowrap(L.P_ANNEX_N + q)]):
            c = st[nowrap(ao + i)]
            if _free_left(st, c, upto) > 0:
                return c
    return -1 if own else -2


@njit(cache=True, error_model="numpy", _nrt=False)
def _extend_bury(st, p, nh, ret_bury, k_bury, disc_bury, room, share):
    """Crypt: further corpses in the same action while each pays for itself."""
    first = st[L.D_T]
    raw = 0 if st[nowrap(L.C_TYPE + first)] == L.CTYPE.peasant else st[nowrap(L.C_RANK + first)]
    d0 = st[L.D_DEST]
    own = d0 == L.BARN_SLOT - p or (d0 >= 0 and st[nowrap(L.C_LOC + d0)] == L.LOC.annex + p)
    got = (
        st[nowrap(L.C_POCKET + first)]
        if own
        else st[nowrap(L.C_POCKET + first)] - st[nowrap(L.C_POCKET + first)] // 2
    )
    room -= got
    co = L.LISTS + (L.L_CORPSE + p) * L.MAXC
    for ci in range(st[nowrap(L.P_CORPSE_N + p)]):
        c = st[nowrap(co + ci)]
        if c == first:
            continue
        r2 = 0 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.peasant else st[nowrap(L.C_RANK + c)]
        old = raw - disc_bury
        new = raw + r2 - disc_bury
        old = old if old > 0 else 0
        new = new if new > 0 else 0
        if new > nh:
            continue
        i = st[L.D_NT]
        d = _any_dest(st, p, i, True)
        pocket = st[nowrap(L.C_POCKET + c)]
        if d != -1:
            gain = min(float(pocket), room if room > 0 else 0.0)
        else:
            d = _any_dest(st, p, i, False)
            if d == -2:
                break
            half = pocket // 2
            gain = min(float(pocket - half), room if room > 0 else 0.0) - share * half
        n_new = new - ret_bury
        n_old = old - ret_bury
        extra = _loss_of(st[nowrap(PFX + 3 * PSTRIDE + _clip_need(n_new, k_bury))], n_new, k_bury) - _loss_of(
            st[nowrap(PFX + 3 * PSTRIDE + _clip_need(n_old, k_bury))], n_old, k_bury
        )
        if gain - extra > 0.0:
            st[nowrap(L.D_T + i)] = c
            st[nowrap(L.D_DEST + i)] = d
            st[L.D_NT] = i + 1
            raw += r2
            room -= gain


@njit(cache=True, error_model="numpy", _nrt=False)
def _extend_kill(
    st,
    p,
    nh,
    ret_kill,
    k_kill,
    disc_kill,
    corpse_v,
    kill_b,
    avail_own,
    avail_any,
    share,
    fine,
    police,
    last,
    my_left,
    slots,
    crypt,
    held,
    pn,
    cap_v,
    tau,
):
    """Butcher's Shop: further travellers in the same Kill while each pays for itself."""
    first = st[L.D_T]
    raw = st[nowrap(L.C_RANK + first)]
    pol = police - (1 if st[nowrap(L.C_TYPE + first)] == L.CTYPE.police else 0)
    n_new = 1
    for r in range(L.NROOMS):
        c = st[nowrap(L.R_CARD + r)]
        if c < 0 or c == first:
            continue
        rank = st[nowrap(L.C_RANK + c)]
        old = raw - disc_kill
        new = raw + rank - disc_kill
        old = old if old > 0 else 0
        new = new if new > 0 else 0
        if new > nh:
            continue
        pocket = st[nowrap(L.C_POCKET + c)]
        if avail_own > 0:
            g = pocket - _slot_value(cap_v, tau, avail_own - 1)
        elif avail_any > 0:
            g = (pocket - pocket // 2) - share * (pocket // 2)
        else:
            break
        pol2 = pol - (1 if st[nowrap(L.C_TYPE + c)] == L.CTYPE.police else 0)
        e_old = _exposed(held + n_new, pol, last, my_left, slots, held + n_new, crypt, pn)
        e_new = _exposed(held + n_new + 1, pol2, last, my_left, slots, held + n_new + 1, crypt, pn)
        a_new = new - ret_kill
        a_old = old - ret_kill
        extra = _loss_of(st[nowrap(PFX + 2 * PSTRIDE + _clip_need(a_new, k_kill))], a_new, k_kill) - _loss_of(
            st[nowrap(PFX + 2 * PSTRIDE + _clip_need(a_old, k_kill))], a_old, k_kill
        )
        lost = e_new - e_old
        v = corpse_v * g * (1.0 - (lost if lost < 1.0 else 1.0)) - extra + kill_b - fine * lost
        if v > 0.0:
            st[nowrap(L.D_T + st[L.D_NT])] = c
            st[L.D_NT] += 1
            raw += rank
            pol = pol2
            n_new += 1
            avail_own -= 1
            avail_any -= 1


@njit(cache=True, error_model="numpy", _nrt=False)
def _extend_bribe(
    st, p, nh, ret_bribe, k_bribe, disc_bribe, card_v, aff_v, cap_v, build_b, tau, hand_t, wage_c, bribe_b
):
    """Store: further travellers in the same Bribe while each pays for itself."""
    first = st[L.D_T]
    raw = st[nowrap(L.C_RANK + first)]
    size = nh + 1
    owned = st[nowrap(L.P_KINDS_OWNED + p)]
    unique = st[L.G_UNIQUE] != 0
    for r in range(L.NROOMS):
        c = st[nowrap(L.R_CARD + r)]
        if c < 0 or c == first:
            continue
        old = raw - disc_bribe
        new = raw + st[nowrap(L.C_RANK + c)] - disc_bribe
        old = old if old > 0 else 0
        new = new if new > 0 else 0
        if new > nh:
            continue
        kv = card_v
        if st[nowrap(L.C_AFF + c)] >= 0:
            kv += aff_v
        k = st[nowrap(L.C_KIND + c)]
        if _new_annex_kind(st, k, unique, owned):
            kv += _potential(st[nowrap(L.K_BUILD_CASH + k)], cap_v * st[nowrap(L.C_RANK + c)], build_b)
        gain = (1.0 if size < hand_t else 0.5) * tau * kv
        a_new = new - ret_bribe
        a_old = old - ret_bribe
        extra = _loss_of(st[nowrap(PFX + _clip_need(a_new, k_bribe))], a_new, k_bribe) - _loss_of(
            st[nowrap(PFX + _clip_need(a_old, k_bribe))], a_old, k_bribe
        )
        if gain - extra - wage_c + bribe_b > 0.0:
            st[nowrap(L.D_T + st[L.D_NT])] = c
            st[L.D_NT] += 1
            raw += st[nowrap(L.C_RANK + c)]
            size += 1


@njit(sig(ST, PR, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def payment(st, pr, p, action_id, cost, exclude):
    """BI-N2: returning cards first (affinity = action; every card for Bury with the
    Chapel), then the cards worth least."""
    if st[STAMP] == st[L.G_TURNS] and st[STAMP + 1] == p and st[STAMP + 2] == st[nowrap(L.P_HAND_N + p)]:
        nh = st[STAMP + 2]  # the hand as sorted by this action's decision
    else:
        base = st[nowrap(L.P_LINEUP + p)] * L.MAXPARAM
        rl, _, _, my_left, _ = _clock(st)
        tau = _fade(rl - 1.0 + 0.5 * my_left, pr[nowrap(base + 15)])
        nh = _hand(
            st, p, pr[nowrap(base)], pr[nowrap(base + 1)], pr[nowrap(base + 3)], pr[nowrap(base + 6)], tau
        )
    all_back = action_id == L.ACTION.bury and st[nowrap(L.P_CHAPEL + p)] != 0
    n = 0
    for i in range(nh):  # returning cards cost nothing
        if n == cost:
            break
        c = st[nowrap(L.S_A + i)]
        if c != exclude and (all_back or st[nowrap(L.C_AFF + c)] == action_id):
            st[nowrap(L.D_PAY + n)] = c
            n += 1
    for i in range(nh):  # then the cheapest others (hand is sorted)
        if n == cost:
            break
        c = st[nowrap(L.S_A + i)]
        if c != exclude and not (all_back or st[nowrap(L.C_AFF + c)] == action_id):
            st[nowrap(L.D_PAY + n)] = c
            n += 1
    st[L.D_NPAY] = n


@njit(cache=True, error_model="numpy", _nrt=False)
def token_room(st, pr, p):
    """Room Service: the open room with the most opponents' tokens (they fill it with rich
    guests when they place), else an own room, else the first open room."""
    best = -1
    bv = -1.0
    for r in range(L.NROOMS):
        key = st[nowrap(L.R_KEY + r)]
        if key < 0 or not token_room_ok(st, r):  # BI-V12: only rooms that may take it
            continue
        v = 0.0
        for q in range(st[L.G_NP]):
            if q != p:
                v += st[nowrap(L.R_TOKENS + r * L.MAXP + q)]
        v -= 0.1 * st[nowrap(L.R_TOKENS + r * L.MAXP + p)]
        if key == p:
            v += 0.5
        if v > bv:
            bv = v
            best = r
    return best


@njit(cache=True, error_model="numpy", _nrt=False)
def monk_room(st, pr, p):
    """Monk: the white-keyed room carrying the most own Room-Service tokens."""
    best = -1
    bv = -1
    for r in range(L.NROOMS):
        if st[nowrap(L.R_KEY + r)] == L.WHITE:
            v = st[nowrap(L.R_TOKENS + r * L.MAXP + p)]
            if v > bv:
                bv = v
                best = r
    return best


@njit(cache=True, error_model="numpy", _nrt=False)
def wages(st, pr, p, max_keep):
    """BI-M3/BI-V5: keep the accomplices worth more than the franc of wages they cost, best
    first, at most ``max_keep`` (what can be paid) and ``hand_target`` + 3; always keep
    (if it can be paid) enough to pay the burial of the corpses held."""
    base = st[nowrap(L.P_LINEUP + p)] * L.MAXPARAM
    rl, _, _, _, last = _clock(st)
    # cards are worth nothing once no round follows (BI-E4); else at least one round
    tau = 0.0 if last else _fade(max(rl - 1.0, 1.0), pr[nowrap(base + 15)])
    nh = _hand(st, p, pr[nowrap(base)], pr[nowrap(base + 1)], pr[nowrap(base + 3)], pr[nowrap(base + 6)], tau)
    keep = nh if nh < max_keep else max_keep
    if st[L.G_VOLUNTARY] != 0:
        needed = 0
        if not last and st[nowrap(L.P_CORPSE_N + p)] > 0:
            disc = st[nowrap(L.P_DISCOUNT + p * L.NACT + L.ACTION.bury)]
            co = L.LISTS + (L.L_CORPSE + p) * L.MAXC
            for i in range(st[nowrap(L.P_CORPSE_N + p)]):
                c = st[nowrap(co + i)]
                if st[nowrap(L.C_TYPE + c)] != L.CTYPE.peasant:
                    kb = st[nowrap(L.C_RANK + c)] - disc
                    if kb > 0:
                        needed += kb
        soft = int(pr[nowrap(base + 13)]) + 3
        if keep > soft:
            keep = soft
        k = 0
        # the hand is sorted ascending: the best cards are at the end
        for i in range(nh - 1, nh - 1 - keep, -1):
            if st[nowrap(KV + i)] < SCALE and k >= needed:  # worth less than its wage
                break
            k += 1
        keep = k
    n = 0
    for i in range(nh - keep):
        st[nowrap(L.D_T + n)] = st[nowrap(L.S_A + i)]
        n += 1
    st[L.D_NT] = n


@njit(sig(ST, PR, I, I, I, I, I), cache=True, error_model="numpy", _nrt=False)
def fine(st, pr, p, tens, lo, hi, final):
    """BI-M1: cheques paid of the fine, the split that keeps cash for the income cap and the
    wages, or the best final score at the end (``strat_fines``; no tuned parameter)."""
    return best_fine_cheques(st, p, tens, lo, hi, final)
