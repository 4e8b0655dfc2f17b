"""What a player knows about where the 21 cards are, and the deduction engine.

A player's knowledge is a block of ``st`` (``S_KN + seat * K_SIZE``) holding, for each of the
8 holders (seats 0..5, the envelope, the face-down table of CL-2), a 21-bit mask of cards it
certainly HAS and a mask of cards it certainly does NOT have, plus a list of clauses
"holder h has at least one of these cards" (from refutations the player did not see, CL-T5),
each packed as ``h << 21 | mask``.  Public hand sizes are ``st[S_HSIZE + h]``.

``propagate`` closes the facts under the rules below to a fixed point (sound, and cheap
enough to run every turn):
  * a card held by one holder is held by no other; a card that only one holder may hold is
    held by it;
  * a holder with all its cards known holds nothing else; a holder with exactly as many
    possible cards as its size holds all of them;
  * the envelope holds exactly one card of each category (CL-S2);
  * a clause whose holder is known to hold one of its cards is dropped; a clause left with
    one possible card becomes a fact.
Fixed-point propagation is not complete in general (hand-size counting over overlapping
clauses can entail more), so ``solve`` decides consistency exactly by depth-first search
over the remaining deals: the ``logic`` agent uses it to settle the envelope when few
candidate triples remain, the tests use it as the oracle, and ``sample_deal`` draws
consistent deals for the ``prob`` agent.
"""

import math

from numba import njit

from kernels.rng import randint
from kernels.sigs import ST, I, sig

from ..index import nowrap
from . import layout as L


@njit(cache=True, inline="always")
def popc(x):
    """Number of set bits of a card mask (< 2**32)."""
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@njit(cache=True, inline="always")
def low_card(x):
    """Index of the lowest set bit of a non-zero mask."""
    c = 0
    while not (x >> c) & 1:
        c += 1
    return c


@njit(cache=True, inline="always")
def pack(s, w, r):
    """The envelope triple (suspect, weapon, room cards) as one number 0..323."""
    return s + 6 * (w - 6) + 36 * (r - L.FIRST_ROOM)


@njit(cache=True)
def wrongly_accused(st, t):
    """Was triple ``t`` already accused wrongly?  (Public: it is not the envelope, CL-T6.)"""
    for i in range(st[L.S_NWRONG]):
        if (
            pack(
                st[nowrap(L.S_WRONG + 3 * i)],
                st[nowrap(L.S_WRONG + 3 * i + 1)],
                st[nowrap(L.S_WRONG + 3 * i + 2)],
            )
            == t
        ):
            return True
    return False


@njit(cache=True)
def nth_card(x, k):
    """Index of the ``k``-th (0-based) set bit of ``x``."""
    c = 0
    while True:
        if (x >> c) & 1:
            if k == 0:
                return c
            k -= 1
        c += 1


@njit(cache=True)
def random_card(st, x):
    """A uniformly random set bit of the non-zero mask ``x`` (game stream)."""
    return nth_card(x, randint(st, L.S_RNG, popc(x)))


@njit(cache=True, inline="always")
def kbase(seat):
    return L.S_KN + seat * L.K_SIZE


@njit(cache=True)
def kn_init(st, kb, seat, n, two_player):
    """Knowledge at the deal: own hand (CL-S2); absent seats and (outside CL-2) the table hold nothing."""
    for h in range(L.N_HOLDERS):
        st[nowrap(kb + L.K_HAS + h)] = 0
        st[nowrap(kb + L.K_NOT + h)] = 0
        if (h < 6 and h >= n) or (h == L.TABLE and not two_player):
            st[nowrap(kb + L.K_NOT + h)] = L.ALL_CARDS
    hand = st[nowrap(L.S_TRUE + seat)]
    st[nowrap(kb + L.K_HAS + seat)] = hand
    st[nowrap(kb + L.K_NOT + seat)] = L.ALL_CARDS & ~hand
    st[nowrap(kb + L.K_NCL)] = 0
    st[nowrap(kb + L.K_DIRTY)] = 1
    st[nowrap(kb + L.K_VER)] = 0
    st[nowrap(kb + L.K_EXVER)] = -1
    st[nowrap(kb + L.K_EXRES)] = -1


@njit(cache=True, inline="always")
def add_has(st, kb, h, mask):
    if st[nowrap(kb + L.K_HAS + h)] | mask != st[nowrap(kb + L.K_HAS + h)]:
        st[nowrap(kb + L.K_HAS + h)] |= mask
        st[nowrap(kb + L.K_DIRTY)] = 1
        st[nowrap(kb + L.K_VER)] += 1


@njit(cache=True, inline="always")
def add_not(st, kb, h, mask):
    if st[nowrap(kb + L.K_NOT + h)] | mask != st[nowrap(kb + L.K_NOT + h)]:
        st[nowrap(kb + L.K_NOT + h)] |= mask
        st[nowrap(kb + L.K_DIRTY)] = 1
        st[nowrap(kb + L.K_VER)] += 1


@njit(cache=True)
def add_clause(st, kb, h, mask):
    """Record "holder ``h`` has at least one card of ``mask``"."""
    if st[nowrap(kb + L.K_HAS + h)] & mask:
        return
    n = st[nowrap(kb + L.K_NCL)]
    for i in range(n):  # already implied by a clause on the same holder
        e = st[nowrap(kb + L.K_CL + i)]
        if (e >> L.N_CARDS) == h and (e & L.ALL_CARDS & ~mask) == 0:
            return
    if n == L.MAX_CLAUSES:
        propagate(st, kb)  # drops satisfied clauses
        n = st[nowrap(kb + L.K_NCL)]
        if n == L.MAX_CLAUSES:  # still full: forget the oldest (sound, loses information)
            for i in range(n - 1):
                st[nowrap(kb + L.K_CL + i)] = st[nowrap(kb + L.K_CL + i + 1)]
            n -= 1
            st[L.S_CL_OVERFLOW] += 1
    st[nowrap(kb + L.K_CL + n)] = (h << L.N_CARDS) | mask
    st[nowrap(kb + L.K_NCL)] = n + 1
    st[nowrap(kb + L.K_DIRTY)] = 1
    st[nowrap(kb + L.K_VER)] += 1


@njit(sig(ST, I), cache=True)
def propagate(st, kb):
    """Close the knowledge block at ``kb`` to a fixed point.  Returns 1 on a contradiction."""
    changed = True
    while changed:
        changed = False
        owned = 0
        seen1 = 0
        seen2 = 0
        for h in range(L.N_HOLDERS):
            owned |= st[nowrap(kb + L.K_HAS + h)]
            p = L.ALL_CARDS & ~st[nowrap(kb + L.K_NOT + h)]
            seen2 |= seen1 & p
            seen1 |= p
        if seen1 != L.ALL_CARDS:
            return 1  # a card nobody may hold
        only = seen1 & ~seen2  # cards with exactly one possible holder
        for h in range(L.N_HOLDERS):
            hs = st[nowrap(kb + L.K_HAS + h)]
            nt = st[nowrap(kb + L.K_NOT + h)]
            nt2 = nt | (owned & ~hs)
            p = L.ALL_CARDS & ~nt2
            hs2 = hs | (p & only)
            if hs2 & nt2:
                return 1
            size = st[nowrap(L.S_HSIZE + h)]
            c = popc(hs2)
            if c > size:
                return 1
            if c == size:
                nt2 = L.ALL_CARDS & ~hs2
            else:
                pc = popc(p)
                if pc < size:
                    return 1
                if pc == size:
                    hs2 = p
            if h == L.ENVELOPE:  # exactly one card of each category (CL-S2)
                for k in range(3):
                    cat = L.CAT_SUSPECT if k == 0 else (L.CAT_WEAPON if k == 1 else L.CAT_ROOM)
                    hc = hs2 & cat
                    if hc:
                        if hc & (hc - 1):
                            return 1
                        nt2 |= cat & ~hc
                    else:
                        pcat = cat & ~nt2
                        if pcat == 0:
                            return 1
                        if pcat & (pcat - 1) == 0:
                            hs2 |= pcat
                if hs2 & nt2:
                    return 1
            if hs2 != hs or nt2 != nt:
                st[nowrap(kb + L.K_HAS + h)] = hs2
                st[nowrap(kb + L.K_NOT + h)] = nt2
                changed = True
        n = st[nowrap(kb + L.K_NCL)]
        i = 0
        while i < n:
            e = st[nowrap(kb + L.K_CL + i)]
            h = e >> L.N_CARDS
            m = e & L.ALL_CARDS
            if st[nowrap(kb + L.K_HAS + h)] & m:
                n -= 1
                st[nowrap(kb + L.K_CL + i)] = st[nowrap(kb + L.K_CL + n)]
                continue
            q = m & ~st[nowrap(kb + L.K_NOT + h)]
            if q == 0:
                return 1
            if q & (q - 1) == 0:
                st[nowrap(kb + L.K_HAS + h)] |= q
                n -= 1
                st[nowrap(kb + L.K_CL + i)] = st[nowrap(kb + L.K_CL + n)]
                changed = True
                continue
            if q != m:
                st[nowrap(kb + L.K_CL + i)] = (h << L.N_CARDS) | q
            i += 1
        st[nowrap(kb + L.K_NCL)] = n
    st[nowrap(kb + L.K_DIRTY)] = 0
    return 0


@njit(sig(ST, I, I), cache=True)
def copy_block(st, src, dst):
    for i in range(L.K_SIZE):
        st[nowrap(dst + i)] = st[nowrap(src + i)]


@njit(cache=True, inline="always")
def _cat_of(c):
    return L.CAT_SUSPECT if c < 6 else (L.CAT_WEAPON if c < 12 else L.CAT_ROOM)


@njit(sig(ST, I, I), cache=True)
def _feasible(st, kb, rest):
    """Can the unassigned cards ``rest`` still complete the partial deal in X_A / X_REM?"""
    for h in range(L.N_HOLDERS):
        r = st[nowrap(L.X_REM + h)]
        if r > 0 and popc(rest & ~st[nowrap(kb + L.K_NOT + h)]) < r:
            return False
    env = st[nowrap(kb + L.K_HAS + L.ENVELOPE)] | st[L.X_A + L.ENVELOPE]
    envp = rest & ~st[nowrap(kb + L.K_NOT + L.ENVELOPE)]
    if (env & L.CAT_SUSPECT) == 0 and (envp & L.CAT_SUSPECT) == 0:
        return False
    if (env & L.CAT_WEAPON) == 0 and (envp & L.CAT_WEAPON) == 0:
        return False
    if (env & L.CAT_ROOM) == 0 and (envp & L.CAT_ROOM) == 0:
        return False
    for i in range(st[nowrap(kb + L.K_NCL)]):
        e = st[nowrap(kb + L.K_CL + i)]
        h = e >> L.N_CARDS
        m = e & L.ALL_CARDS
        if (st[nowrap(L.X_A + h)] & m) == 0 and (
            (rest & m & ~st[nowrap(kb + L.K_NOT + h)]) == 0 or st[nowrap(L.X_REM + h)] == 0
        ):
            return False
    return True


@njit(cache=True, inline="always")
def _can_take(st, kb, h, c):
    if (st[nowrap(kb + L.K_NOT + h)] >> c) & 1 or st[nowrap(L.X_REM + h)] <= 0:
        return False
    if h == L.ENVELOPE and ((st[nowrap(kb + L.K_HAS + L.ENVELOPE)] | st[L.X_A + L.ENVELOPE]) & _cat_of(c)):
        return False
    return True


@njit(sig(ST, I), cache=True)
def _prepare(st, kb):
    """Unknown cards in X_ORDER (cards of clauses first, then fewest possible holders first);
    free places in X_REM.
    Returns the number of unknown cards."""
    known = 0
    for h in range(L.N_HOLDERS):
        known |= st[nowrap(kb + L.K_HAS + h)]
        st[nowrap(L.X_REM + h)] = st[nowrap(L.S_HSIZE + h)] - popc(st[nowrap(kb + L.K_HAS + h)])
        st[nowrap(L.X_A + h)] = 0
    inclause = 0
    for i in range(st[nowrap(kb + L.K_NCL)]):
        inclause |= st[nowrap(kb + L.K_CL + i)]
    nu = 0
    for c in range(L.N_CARDS):
        if not (known >> c) & 1:
            opts = 0
            for h in range(L.N_HOLDERS):
                if not (st[nowrap(kb + L.K_NOT + h)] >> c) & 1:
                    opts += 1
            if not (inclause >> c) & 1:
                opts += L.N_HOLDERS  # cards of clauses first: conflicts show early
            # insertion by option count (stable: ties keep card order)
            j = nu
            while j > 0 and st[nowrap(L.X_OPT + j - 1)] > opts:
                st[nowrap(L.X_ORDER + j)] = st[nowrap(L.X_ORDER + j - 1)]
                st[nowrap(L.X_OPT + j)] = st[nowrap(L.X_OPT + j - 1)]
                j -= 1
            st[nowrap(L.X_ORDER + j)] = c
            st[nowrap(L.X_OPT + j)] = opts
            nu += 1
    return nu


@njit(sig(ST, I, I), cache=True)
def solve(st, kb, budget):
    """Is there a deal consistent with the knowledge block at ``kb``?

    The block is propagated first (it is modified: use a scratch copy).  Returns 1 (a
    consistent deal exists, left in X_ASG), 0 (none), -1 (search budget exhausted).
    """
    if propagate(st, kb):
        return 0
    nu = _prepare(st, kb)
    rest = 0
    for d in range(nu):
        rest |= 1 << st[nowrap(L.X_ORDER + d)]
    if not _feasible(st, kb, rest):
        return 0
    depth = 0
    st[L.X_OPT] = 0
    nodes = 0
    while True:
        if depth == nu:
            return 1
        c = st[nowrap(L.X_ORDER + depth)]
        bit = 1 << c
        h = st[nowrap(L.X_OPT + depth)]
        placed = False
        while h < L.N_HOLDERS:
            if _can_take(st, kb, h, c):
                nodes += 1
                if nodes > budget:
                    return -1
                st[nowrap(L.X_A + h)] |= bit
                st[nowrap(L.X_REM + h)] -= 1
                if _feasible(st, kb, rest & ~bit):
                    st[nowrap(L.X_ASG + depth)] = h
                    st[nowrap(L.X_OPT + depth)] = h + 1
                    rest &= ~bit
                    depth += 1
                    if depth < L.N_CARDS:
                        st[nowrap(L.X_OPT + depth)] = 0
                    placed = True
                    break
                st[nowrap(L.X_A + h)] &= ~bit
                st[nowrap(L.X_REM + h)] += 1
            h += 1
        if not placed:
            if depth == 0:
                return 0
            depth -= 1
            c = st[nowrap(L.X_ORDER + depth)]
            bit = 1 << c
            h = st[nowrap(L.X_ASG + depth)]
            st[nowrap(L.X_A + h)] &= ~bit
            st[nowrap(L.X_REM + h)] += 1
            rest |= bit


@njit(cache=True)
def sample_deal(st, kb):
    """Draw one deal consistent with the (propagated) block at ``kb`` by sequential
    importance sampling: each unknown card goes to a holder that keeps the deal completable,
    with probability proportional to the holder's free places (as a shuffled deal would).

    Returns the log importance weight (``-inf`` if the draw dead-ended); the deal is in X_A
    (cards given to each holder on top of the known ones).  The block is not modified.
    """
    nu = _prepare(st, kb)
    rest = 0
    for d in range(nu):
        rest |= 1 << st[nowrap(L.X_ORDER + d)]
    logw = 0.0
    for d in range(nu):
        c = st[nowrap(L.X_ORDER + d)]
        bit = 1 << c
        total = 0
        for h in range(L.N_HOLDERS):
            st[nowrap(L.X_OPT + h)] = 0
            if _can_take(st, kb, h, c):
                st[nowrap(L.X_A + h)] |= bit
                st[nowrap(L.X_REM + h)] -= 1
                if _feasible(st, kb, rest & ~bit):
                    w = 1 if h == L.ENVELOPE else st[nowrap(L.X_REM + h)] + 1
                    st[nowrap(L.X_OPT + h)] = w
                    total += w
                st[nowrap(L.X_A + h)] &= ~bit
                st[nowrap(L.X_REM + h)] += 1
        if total == 0:
            return -math.inf
        r = randint(st, L.S_RNG, total)
        h = 0
        while r >= st[nowrap(L.X_OPT + h)]:
            r -= st[nowrap(L.X_OPT + h)]
            h += 1
        logw += math.log(total / st[nowrap(L.X_OPT + h)])
        st[nowrap(L.X_A + h)] |= bit
        st[nowrap(L.X_REM + h)] -= 1
        rest &= ~bit
    return logw


@njit(cache=True)
def envelope_candidates(st, kb):
    """Cards the envelope may still hold (after propagation)."""
    return L.ALL_CARDS & ~st[nowrap(kb + L.K_NOT + L.ENVELOPE)]


@njit(cache=True)
def known_cards(st, kb):
    """Cards whose holder this knowledge determines."""
    k = 0
    for h in range(L.N_HOLDERS):
        k |= st[nowrap(kb + L.K_HAS + h)]
    return k
