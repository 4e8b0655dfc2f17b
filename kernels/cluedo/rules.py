"""The rules of Cluedo (CL-S, CL-T, CL-K, CL-2, CL-V): setup, the turn, suggestions and
refutation, clue cards, accusations.  Every decision is delegated to ``agents``; every fact a
player learns goes to its knowledge block through ``_tell_*`` (what it could really know)."""

from numba import njit

from kernels.rng import randint, stream_key
from kernels.sigs import ST, I, sig

from ..index import nowrap
from . import agents
from . import layout as L
from .board import reach
from .knowledge import add_clause, add_has, add_not, kbase, kn_init, popc, propagate

# --- event log ------------------------------------------------------------------------


@njit(sig(ST, I, I, I, I, I, I), cache=True)
def emit(st, seat, kind, a, b, c, d):
    """Buffer one event (only when the event log is on)."""
    if st[L.S_REC] == 0:
        return
    i = st[L.S_NEV]
    if i >= L.EV_BUF:
        st[L.S_VIOL] += 1  # buffer too small: flagged, never silent
        return
    o = L.S_EVB + i * L.EV_COLS
    st[nowrap(o)] = st[L.S_EVSEQ] + i
    st[nowrap(o + 1)] = st[L.S_TURNS]
    st[nowrap(o + 2)] = seat
    st[nowrap(o + 3)] = kind
    st[nowrap(o + 4)] = a
    st[nowrap(o + 5)] = b
    st[nowrap(o + 6)] = c
    st[nowrap(o + 7)] = d
    st[L.S_NEV] = i + 1


# --- what players learn -----------------------------------------------------------------


@njit(cache=True, inline="always")
def _smart(st, p):
    return st[nowrap(L.S_AGENT + p)] != L.AGENT.NAIVE


@njit(sig(ST, I, I, I), cache=True)
def _tell_has(st, p, h, card):
    add_has(st, kbase(p), h, 1 << card)


@njit(cache=True)
def _tell_not(st, p, h, mask):
    if _smart(st, p):
        add_not(st, kbase(p), h, mask)


@njit(cache=True)
def public_reveal(st, holder, card):
    """A card shown to everyone (CL-K1..K4): every player learns who holds it."""
    n = st[L.S_N]
    st[nowrap(L.S_PUBLIC + holder)] |= 1 << card
    for p in range(n):
        _tell_has(st, p, holder, card)
    emit(st, holder, L.EV.REVEAL, card, -1, 0, -1)


@njit(cache=True)
def private_show(st, holder, to, card):
    """``holder`` shows ``card`` to ``to`` only (CL-T5, CL-K5)."""
    st[nowrap(L.S_SHOWN + holder * 6 + to)] |= 1 << card
    _tell_has(st, to, holder, card)
    emit(st, holder, L.EV.SHOW, card, to, 0, -1)


@njit(cache=True)
def show_named(st, card):
    """CL-K1/CL-K2: whoever holds ``card`` shows it; if nobody does, everyone learns that no
    player holds it (then it is the envelope's, or in CL-2 possibly face down in a room)."""
    h = st[nowrap(L.S_OWNER + card)]
    if h < 6:
        public_reveal(st, h, card)
        return
    n = st[L.S_N]
    two = n == 2
    for p in range(n):
        for q in range(n):
            _tell_not(st, p, q, 1 << card)
        if not two:
            _tell_has(st, p, L.ENVELOPE, card)
    emit(st, -1, L.EV.REVEAL, card, -1, 1, -1)


@njit(cache=True)
def look_face_down(st, seat, room):
    """CL-2.2: a player in a room holding a face-down card looks at it (privately).  The
    look is logged the first time the seat looks at that room's card, whatever the seat may
    have deduced before, so a referee can demand it from the rules alone."""
    c = st[nowrap(L.S_ROOMCARD + room)]
    if c >= 0:
        first = not (st[nowrap(L.S_LOOKED + seat)] >> room) & 1
        st[nowrap(L.S_LOOKED + seat)] |= 1 << room
        add_has(st, kbase(seat), L.TABLE, 1 << c)
        if first:
            emit(st, seat, L.EV.LOOK, c, room, -1, -1)


# --- pawns ---------------------------------------------------------------------------


@njit(sig(ST, I, I, I), cache=True)
def move_pawn(st, ch, node, how):
    frm = st[nowrap(L.S_POS + ch)]
    st[nowrap(L.S_POS + ch)] = node
    seat = -1
    for s in range(st[L.S_N]):
        if st[nowrap(L.S_CHAR + s)] == ch:
            seat = s
    emit(st, seat, L.EV.MOVE, frm, node, st[L.S_MOVE_STEPS], how)


@njit(cache=True)
def _in_room(st, seat):
    """Bookkeeping of a player whose pawn is in a room on its own turn (first_room_turn)."""
    if st[nowrap(L.S_FIRST_ROOM + seat)] < 0:
        st[nowrap(L.S_FIRST_ROOM + seat)] = st[nowrap(L.S_TTAKEN + seat)]


@njit(cache=True)
def _entered(st, seat, room):
    """``seat`` entered ``room`` on its own turn (walk, passage, its own clue card): it looks
    at a face-down card there at once (CL-2.2)."""
    _in_room(st, seat)
    look_face_down(st, seat, room)


# --- suggestion and refutation (CL-T5) ---------------------------------------------------


@njit(cache=True)
def suggest(st, tb, seat, room):
    """``seat`` suggests in ``room``: its agent names a suspect and a weapon (CL-T5)."""
    sw = agents.choose_suggestion(st, seat)
    resolve_suggestion(st, seat, sw // 64, sw % 64, room)


@njit(cache=True)
def resolve_suggestion(st, seat, s, w, room):
    """Suggestion of suspect ``s``, weapon card ``w`` in ``room``: pawn and weapon move in,
    the players to the left are asked in order, and everyone learns what they could (CL-T5)."""
    n = st[L.S_N]
    ver = st[nowrap(kbase(seat) + L.K_VER)]
    r = L.FIRST_ROOM + room
    st[nowrap(L.S_NSUGG + seat)] += 1
    # the named suspect's pawn and the weapon move into the room
    if st[nowrap(L.S_POS + s)] != room:
        st[L.S_MOVE_STEPS] = 0
        move_pawn(st, s, room, 3)
        if st[nowrap(L.S_CHAR + seat)] != s:
            st[nowrap(L.S_MOVED + s)] = 1  # CL-T4
    st[nowrap(L.S_WROOM + w - 6)] = room
    m = (1 << s) | (1 << w) | (1 << r)
    refuter = -1
    card = -1
    for k in range(1, n):
        j = (seat + k) % n  # to the left, in order; eliminated still show
        match = st[nowrap(L.S_TRUE + j)] & m
        if match:
            refuter = j
            card = agents.choose_show(st, j, seat, match)
            break
    emit(st, seat, L.EV.SUGGEST, s, w, r, refuter)
    _log_suggestion(st, seat, m, refuter)
    # who could not refute: everyone sees it
    last = n if refuter < 0 else (refuter - seat) % n
    for k in range(1, last):
        j = (seat + k) % n
        for p in range(n):
            if p != j:
                _tell_not(st, p, j, m)
    if refuter >= 0:
        private_show(st, refuter, seat, card)
        for p in range(n):
            if p != seat and p != refuter and _smart(st, p):
                add_clause(st, kbase(p), refuter, m)
    st[nowrap(L.S_STALE + seat)] = 1 if st[nowrap(kbase(seat) + L.K_VER)] == ver else 0


@njit(cache=True)
def _log_suggestion(st, seat, m, refuter):
    """Keep the public part of a suggestion (who asked, the three cards, who showed): the
    search player's rollouts rebuild each opponent's knowledge from it."""
    i = st[L.S_NSLOG]
    if i < L.SLOG_MAX:
        st[nowrap(L.S_SLOG + i)] = seat | (m << 3) | ((refuter + 1) << 24)
        st[L.S_NSLOG] = i + 1


# --- clue cards (CL-K) -------------------------------------------------------------------


@njit(cache=True)
def draw_clue(st, tb, seat):
    """Draw the top clue card, apply it, put it under the pile (CL-T2).  Returns 1 if the
    drawer's pawn was moved into a room of its choice (CL-K6), 2 if it chose the room it is
    in, else 0."""
    n = st[L.S_N]
    row = st[nowrap(L.S_DECK + st[L.S_CLUE_PTR])]
    st[L.S_CLUE_DRAWN] += 1
    eff = tb[nowrap(L.T_CLUE + 2 * row)]
    target = tb[nowrap(L.T_CLUE + 2 * row + 1)]
    placed = 0
    if eff == L.EFFECT.SHOW_SPECIFIC:
        emit(st, seat, L.EV.CLUE, row + 1, eff, target, -1)
        show_named(st, target)
    elif eff == L.EFFECT.NAME_SUSPECT or eff == L.EFFECT.NAME_WEAPON or eff == L.EFFECT.NAME_ROOM:
        cat = (
            L.CAT_SUSPECT
            if eff == L.EFFECT.NAME_SUSPECT
            else (L.CAT_WEAPON if eff == L.EFFECT.NAME_WEAPON else L.CAT_ROOM)
        )
        c = agents.choose_named_card(st, seat, cat)
        emit(st, seat, L.EV.CLUE, row + 1, eff, c, -1)
        show_named(st, c)
    elif eff == L.EFFECT.CHOOSE_PLAYER_REVEALS:
        p = agents.choose_reveal_player(st, seat)  # never an eliminated player (CL-K8)
        emit(st, seat, L.EV.CLUE, row + 1, eff, p, -1)
        if p >= 0:
            public_reveal(st, p, agents.choose_show(st, p, -1, st[nowrap(L.S_TRUE + p)]))
    elif eff == L.EFFECT.ALL_REVEAL:
        emit(st, seat, L.EV.CLUE, row + 1, eff, -1, -1)
        for k in range(n):
            p = (seat + k) % n
            if st[nowrap(L.S_ACTIVE + p)]:  # CL-K8: players out of the game take no part
                public_reveal(st, p, agents.choose_show(st, p, -1, st[nowrap(L.S_TRUE + p)]))
    elif eff == L.EFFECT.ALL_SHOW_LEFT:
        emit(st, seat, L.EV.CLUE, row + 1, eff, -1, -1)
        for k in range(n):
            p = (seat + k) % n
            to = _left_in_game(st, p)  # CL-K8: out players neither show nor are shown
            if st[nowrap(L.S_ACTIVE + p)] and to != p:
                private_show(st, p, to, agents.choose_show(st, p, to, st[nowrap(L.S_TRUE + p)]))
    elif eff == L.EFFECT.ALL_MOVE_TO_ROOM:
        emit(st, seat, L.EV.CLUE, row + 1, eff, -1, -1)
        st[L.S_MOVE_STEPS] = 0
        for k in range(n):
            p = (seat + k) % n
            if st[nowrap(L.S_ACTIVE + p)]:
                agents.prepare(st, p)
                room = agents.choose_room_all_move(st, tb, p, p == seat)
                ch = st[nowrap(L.S_CHAR + p)]
                if st[nowrap(L.S_POS + ch)] != room:
                    move_pawn(st, ch, room, 2)
                    if p == seat:
                        placed = 1
                    else:
                        st[nowrap(L.S_MOVED + ch)] = 1  # may suggest there next turn (as CL-T4)
                elif p == seat:
                    placed = 2  # chose to stay where it is
    elif eff == L.EFFECT.NEW_PASSAGE:
        room = agents.choose_new_passage(st, seat)
        emit(st, seat, L.EV.CLUE, row + 1, eff, room, -1)
        if room >= 0:
            for q in range(9):
                if q != room and st[nowrap(L.S_PASS + q)] != 0:
                    st[nowrap(L.S_PASS + q)] |= 1 << room
                    st[nowrap(L.S_PASS + room)] |= 1 << q
            emit(st, seat, L.EV.PASSAGE, room, -1, -1, -1)
            _leave_pile(st)  # CL-K7: the card stays in the chosen room
            return placed
    _under_pile(st)
    return placed


@njit(cache=True)
def _under_pile(st):
    """The drawn card goes under the pile (CL-T2): the next card is on top."""
    st[L.S_CLUE_PTR] = (st[L.S_CLUE_PTR] + 1) % st[L.S_NPILE]


@njit(cache=True)
def _leave_pile(st):
    """The drawn card leaves the pile for good (CL-K7); the order of the others is kept."""
    n = st[L.S_NPILE]
    for i in range(st[L.S_CLUE_PTR], n - 1):
        st[nowrap(L.S_DECK + i)] = st[nowrap(L.S_DECK + i + 1)]
    st[L.S_NPILE] = n - 1
    if st[L.S_CLUE_PTR] >= n - 1:
        st[L.S_CLUE_PTR] = 0


@njit(sig(ST, I), cache=True)
def _left_in_game(st, p):
    """The nearest seat to the left of ``p`` still in the game (``p`` itself if none)."""
    n = st[L.S_N]
    for k in range(1, n):
        q = (p + k) % n
        if st[nowrap(L.S_ACTIVE + q)]:
            return q
    return p


# --- accusation (CL-T6, CL-T7) -----------------------------------------------------------


@njit(cache=True)
def accuse(st, seat, t):
    s = agents.unpack_suspect(t)
    w = agents.unpack_weapon(t)
    r = agents.unpack_room(t)
    env = st[L.S_TRUE + L.ENVELOPE]
    right = (env >> s) & 1 and (env >> w) & 1 and (env >> r) & 1
    emit(st, seat, L.EV.ACCUSE, s, w, r, 1 if right else 2)
    if right:
        st[nowrap(L.S_ACCUSED + seat)] = 1
        st[L.S_WINNER] = seat
        st[L.S_OVER] = 1
        return
    st[nowrap(L.S_ACCUSED + seat)] = 2
    st[nowrap(L.S_ACTIVE + seat)] = 0  # out, pawn stays, still shows cards
    i = st[L.S_NWRONG]
    st[nowrap(L.S_WRONG + 3 * i)] = s
    st[nowrap(L.S_WRONG + 3 * i + 1)] = w
    st[nowrap(L.S_WRONG + 3 * i + 2)] = r
    st[L.S_NWRONG] = i + 1
    for p in range(st[L.S_N]):
        if st[nowrap(L.S_ACTIVE + p)]:
            return
    st[L.S_OVER] = 1  # CL-T7: nobody wins


# --- the turn (CL-T) ----------------------------------------------------------------------


@njit(cache=True)
def take_turn(st, tb, seat):
    st[nowrap(L.S_TTAKEN + seat)] += 1
    ch = st[nowrap(L.S_CHAR + seat)]
    pos = st[nowrap(L.S_POS + ch)]
    moved = st[nowrap(L.S_MOVED + ch)]
    st[nowrap(L.S_MOVED + ch)] = 0
    in_room = pos < 9
    may_stay = in_room and (tb[L.T_STAY] == 1 or moved == 1)  # CL-T3, CL-T4, CL-V4
    if moved:
        st[nowrap(L.S_STALE + seat)] = 0  # a new room, a new start
    if in_room:
        _in_room(st, seat)
    agents.prepare(st, seat)
    if in_room:
        t = agents.accusation(st, seat, True)
        if t >= 0:
            accuse(st, seat, t)
            return
    if st[nowrap(L.S_SACC + seat)] == L.SACC_WAIT_START:
        # a rollout waited at the start only (kernels/cluedo/rollout.py)
        st[nowrap(L.S_SACC + seat)] = L.SACC_BAR
    act = agents.start_action(st, tb, seat, pos, may_stay)
    if act == agents.ROLL:
        _walk(st, tb, seat, pos)
    else:
        placed = 0
        if tb[L.T_ROLL_ALWAYS]:  # roll_every_turn: a stay or a passage still rolls (a loupe draws)
            placed = _roll_to_stay(st, tb, seat)
        if placed == 1:  # its own CL-K6 card put it in another room: it suggests there
            q = st[nowrap(L.S_POS + ch)]
            _entered(st, seat, q)
        elif act == agents.STAY:
            q = pos
            look_face_down(st, seat, q)  # CL-2.2: a dragged pawn sees the card only now
        else:
            q = act - agents.PASSAGE
            st[L.S_MOVE_STEPS] = 0
            move_pawn(st, ch, q, 1)  # the passage is the whole move (CL-T3)
            _entered(st, seat, q)
        agents.prepare(st, seat)
        suggest(st, tb, seat, q)
    pos = st[nowrap(L.S_POS + ch)]
    if pos < 9 and st[L.S_OVER] == 0:
        agents.prepare(st, seat)
        t = agents.accusation(st, seat, False)
        if t >= 0:
            accuse(st, seat, t)


@njit(cache=True)
def _dice(st, tb):
    """Roll (CL-T1, CL-V2); returns ``d1 * 64 + d2 * 4 + loupes`` (CL-V1: face 1 is a loupe)."""
    faces = tb[L.T_DIE_FACES]
    d1 = 1 + randint(st, L.S_RNG, faces)
    d2 = 1 + randint(st, L.S_RNG, faces) if tb[L.T_DICE] == 2 else 0
    loupes = 0
    if tb[L.T_LOUPE_DICE] >= 1 and d1 == 1:
        loupes += 1
    if tb[L.T_LOUPE_DICE] >= 2 and d2 == 1:
        loupes += 1
    return d1 * 64 + d2 * 4 + loupes


@njit(cache=True, inline="always")
def _may_draw(st, tb, loupes):
    return loupes > 0 and tb[L.T_CLUE_ON] == 1 and st[L.S_NPILE] > 0


@njit(cache=True)
def _roll_to_stay(st, tb, seat):
    """``roll_every_turn = "yes"``: a player who stays or takes a passage rolls too; the steps
    are not used, a loupe may draw a clue card (CL-T2).  Returns ``draw_clue``'s result."""
    r = _dice(st, tb)
    loupes = r % 4
    draw = _may_draw(st, tb, loupes) and agents.wants_clue_staying(st, seat)
    emit(st, seat, L.EV.ROLL, r // 64, (r // 4) % 16, loupes, 1 if draw else 0)
    if draw:
        return draw_clue(st, tb, seat)
    return 0


@njit(cache=True)
def _walk(st, tb, seat, pos):
    """Roll and move (CL-T1, CL-T2); suggest if the move ends in a room."""
    ch = st[nowrap(L.S_CHAR + seat)]
    r = _dice(st, tb)
    d1 = r // 64
    d2 = (r // 4) % 16
    loupes = r % 4
    total = d1 + d2 + tb[nowrap(L.T_XSTEP + ch)]  # what-if rules.extra_steps (0 by the rules)
    target = agents.choose_target(st, tb, seat, pos)
    nq = reach(st, tb, pos, total)  # rooms within the roll: enough to decide on the loupe
    draw = _may_draw(st, tb, loupes) and agents.wants_clue(st, tb, seat, target, total)
    emit(st, seat, L.EV.ROLL, d1, d2, loupes, 1 if draw else 0)
    placed = 0
    if draw:
        total -= 1  # the loupe used for its effect counts 0
        placed = draw_clue(st, tb, seat)
        if placed == 2:
            placed = 0  # CL-K9: the room it started in is no stay: the roll was the action
        if placed == 0:
            agents.prepare(st, seat)
            target = agents.choose_target(st, tb, seat, pos)
    entered = -1
    if placed:
        entered = st[nowrap(L.S_POS + ch)]
    else:
        if draw:
            nq = reach(st, tb, pos, total)  # fewer steps, and CL-K6 may have moved pawns
        st[L.S_MOVE_STEPS] = total
        dest = agents.choose_destination(st, tb, seat, pos, target, nq)
        if dest != pos:
            move_pawn(st, ch, dest, 0)
            if dest < 9:
                entered = dest
    if entered >= 0:
        _entered(st, seat, entered)
        agents.prepare(st, seat)
        suggest(st, tb, seat, entered)


# --- setup (CL-S, CL-2) ---------------------------------------------------------------------


@njit(cache=True)
def setup(st, tb, game_id, n, rec):
    """Clear ``st`` and deal game ``game_id`` (its own random stream, CL-S1..S4, CL-2.1);
    ``rec`` is the event-log mode."""
    for i in range(st.shape[0]):
        st[nowrap(i)] = 0
    st[L.S_REC] = rec
    # duplicate deals: the games of one deal (one per rotation of the lineup) share the
    # stream, so the characters, the deal and the first dice are the same in each
    dup = tb[L.T_ROTATE] == L.ROTATE_DUPLICATE
    st[L.S_RNG] = stream_key(tb[L.T_SEED], game_id // n if dup else game_id)
    st[L.S_SKEY] = st[L.S_RNG]  # the search player's sampling streams derive from it
    st[L.S_GAME] = game_id
    st[L.S_N] = n
    st[L.S_WINNER] = -1
    st[L.S_ROUNDS] = 1
    # characters (CL-S3) and first player (CL-S4 / CL-V5)
    for c in range(6):
        st[nowrap(L.S_SEATOF + c)] = -1
    if tb[L.T_CHARS_RANDOM]:
        for i in range(6):
            st[nowrap(L.S_CHAR + i)] = i
        for i in range(n):  # partial Fisher-Yates: n of the 6 suspects
            j = i + randint(st, L.S_RNG, 6 - i)
            a = st[nowrap(L.S_CHAR + i)]
            st[nowrap(L.S_CHAR + i)] = st[nowrap(L.S_CHAR + j)]
            st[nowrap(L.S_CHAR + j)] = a
    else:
        for i in range(n):
            st[nowrap(L.S_CHAR + i)] = tb[nowrap(L.T_CHARS + i)]
    if tb[L.T_FIRST_CLASSIC]:  # CL-V5 classic: Scarlett's order
        for i in range(1, n):
            v = st[nowrap(L.S_CHAR + i)]
            j = i
            while j > 0 and st[nowrap(L.S_CHAR + j - 1)] > v:
                st[nowrap(L.S_CHAR + j)] = st[nowrap(L.S_CHAR + j - 1)]
                j -= 1
            st[nowrap(L.S_CHAR + j)] = v
    if tb[L.T_PERMUTE]:  # characters = "permute": game k of the deal rotates them by k seats
        _rotate_characters(st, n, game_id % n)
    for i in range(n, 6):
        st[nowrap(L.S_CHAR + i)] = -1
    for i in range(n):
        st[nowrap(L.S_SEATOF + st[nowrap(L.S_CHAR + i)])] = i
        e = (i + game_id) % n if tb[L.T_ROTATE] else i
        if tb[L.T_NLINEUP] == 1:
            e = 0
        st[nowrap(L.S_LINEUP + i)] = e
        st[nowrap(L.S_AGENT + i)] = tb[nowrap(L.T_LAGENT + e)]
        for k in range(L.N_PARAMS):
            st[nowrap(L.S_PARAM + i * L.N_PARAMS + k)] = tb[nowrap(L.T_LPARAM + e * L.N_PARAMS + k)]
        st[nowrap(L.S_ACTIVE + i)] = 1
        st[nowrap(L.S_FIRST_ROOM + i)] = -1
        st[nowrap(L.S_FORBID + i)] = tb[nowrap(L.T_LFORBID + e)]
        st[nowrap(L.S_SACC + i)] = L.SACC_BAR
    # pawns on their start squares, played or not (CL-S1)
    for c in range(6):
        st[nowrap(L.S_POS + c)] = tb[nowrap(L.T_START + c)]
    # each weapon in a different random room (CL-S1)
    for r in range(9):
        st[nowrap(L.S_ROOMCARD + r)] = r  # scratch permutation of the rooms
    for i in range(6):
        j = i + randint(st, L.S_RNG, 9 - i)
        a = st[nowrap(L.S_ROOMCARD + i)]
        st[nowrap(L.S_ROOMCARD + i)] = st[nowrap(L.S_ROOMCARD + j)]
        st[nowrap(L.S_ROOMCARD + j)] = a
        st[nowrap(L.S_WROOM + i)] = st[nowrap(L.S_ROOMCARD + i)]
        emit(st, -1, L.EV.WEAPON, 6 + i, st[nowrap(L.S_WROOM + i)], -1, -1)
    for r in range(9):
        st[nowrap(L.S_ROOMCARD + r)] = -1
        st[nowrap(L.S_PASS + r)] = tb[nowrap(L.T_PASS + r)]
    # the envelope (CL-S2)
    es = randint(st, L.S_RNG, 6)
    ew = 6 + randint(st, L.S_RNG, 6)
    er = L.FIRST_ROOM + randint(st, L.S_RNG, 9)
    env = (1 << es) | (1 << ew) | (1 << er)
    st[L.S_TRUE + L.ENVELOPE] = env
    st[L.S_ENV0] = env
    st[nowrap(L.S_OWNER + es)] = L.ENVELOPE
    st[nowrap(L.S_OWNER + ew)] = L.ENVELOPE
    st[nowrap(L.S_OWNER + er)] = L.ENVELOPE
    emit(st, -1, L.EV.ENVELOPE, es, ew, er, -1)
    # shuffle the 18 others (S_DECK as scratch)
    k = 0
    for c in range(L.N_CARDS):
        if not (env >> c) & 1:
            st[nowrap(L.S_DECK + k)] = c
            k += 1
    for i in range(17, 0, -1):
        j = randint(st, L.S_RNG, i + 1)
        a = st[nowrap(L.S_DECK + i)]
        st[nowrap(L.S_DECK + i)] = st[nowrap(L.S_DECK + j)]
        st[nowrap(L.S_DECK + j)] = a
    first = 0
    if n == 2:  # CL-2.1: 4 cards face down in 4 rooms
        if tb[L.T_TWO_RANDOM]:  # CL-V6
            for r in range(9):
                st[nowrap(L.S_ROOMCARD + r)] = r
            for i in range(4):
                j = i + randint(st, L.S_RNG, 9 - i)
                a = st[nowrap(L.S_ROOMCARD + i)]
                st[nowrap(L.S_ROOMCARD + i)] = st[nowrap(L.S_ROOMCARD + j)]
                st[nowrap(L.S_ROOMCARD + j)] = a
            rooms0 = st[L.S_ROOMCARD]
            rooms1 = st[L.S_ROOMCARD + 1]
            rooms2 = st[L.S_ROOMCARD + 2]
            rooms3 = st[L.S_ROOMCARD + 3]
            for r in range(9):
                st[nowrap(L.S_ROOMCARD + r)] = -1
            _face_down(st, rooms0, st[L.S_DECK + 0])
            _face_down(st, rooms1, st[L.S_DECK + 1])
            _face_down(st, rooms2, st[L.S_DECK + 2])
            _face_down(st, rooms3, st[L.S_DECK + 3])
        else:
            for i in range(4):
                _face_down(st, tb[nowrap(L.T_CORNERS + i)], st[nowrap(L.S_DECK + i)])
        first = 4
    # CL-S2: dealt one at a time clockwise from a random seat, drawn apart from the first
    # player (seat 0, CL-S4), so who holds the extra cards does not depend on who starts
    ds = randint(st, L.S_RNG, n)
    st[L.S_DEAL_START] = ds
    emit(st, -1, L.EV.DEAL_START, ds, 18 - first, -1, -1)
    for i in range(first, 18):
        p = (ds + i - first) % n
        c = st[nowrap(L.S_DECK + i)]
        st[nowrap(L.S_OWNER + c)] = p
        st[nowrap(L.S_TRUE + p)] |= 1 << c
        emit(st, p, L.EV.DEAL, c, -1, -1, -1)
    for h in range(L.N_HOLDERS):
        st[nowrap(L.S_HSIZE + h)] = popc(st[nowrap(L.S_TRUE + h)])
    # clue pile (CL-C2)
    nclue = tb[L.T_NCLUE]
    for i in range(nclue):
        st[nowrap(L.S_DECK + i)] = i
    for i in range(nclue - 1, 0, -1):
        j = randint(st, L.S_RNG, i + 1)
        a = st[nowrap(L.S_DECK + i)]
        st[nowrap(L.S_DECK + i)] = st[nowrap(L.S_DECK + j)]
        st[nowrap(L.S_DECK + j)] = a
    # the whole deck is shuffled and the pile is its top ``T_CLUE_PILE`` cards (all by default)
    st[L.S_NPILE] = tb[L.T_CLUE_PILE]
    for i in range(tb[L.T_CLUE_PILE]):
        emit(st, -1, L.EV.PILE, st[nowrap(L.S_DECK + i)] + 1, i, -1, -1)
    for p in range(n):
        kn_init(st, kbase(p), p, n, n == 2)


@njit(cache=True)
def _rotate_characters(st, n, k):
    """Seat ``i`` takes the character of seat ``(i + k) mod n`` (``S_SEATOF`` as scratch:
    it is filled right after)."""
    for i in range(n):
        st[nowrap(L.S_SEATOF + i)] = st[nowrap(L.S_CHAR + (i + k) % n)]
    for i in range(n):
        st[nowrap(L.S_CHAR + i)] = st[nowrap(L.S_SEATOF + i)]
        st[nowrap(L.S_SEATOF + i)] = -1


@njit(cache=True)
def _face_down(st, room, card):
    st[nowrap(L.S_ROOMCARD + room)] = card
    st[nowrap(L.S_OWNER + card)] = L.TABLE
    st[L.S_TRUE + L.TABLE] |= 1 << card
    emit(st, L.TABLE, L.EV.DEAL, card, room, -1, -1)


# --- invariants (tests) -------------------------------------------------------------------


@njit(cache=True)
def check_invariants(st, tb):
    """Count broken invariants: 21 cards each in exactly one place, envelope unchanged, one
    card per category in it, pawns on distinct squares, the clue pile a set of distinct deck
    cards, knowledge true of the real deal."""
    bad = 0
    seen = 0
    total = 0
    for h in range(L.N_HOLDERS):
        m = st[nowrap(L.S_TRUE + h)]
        if seen & m:
            bad += 1
        seen |= m
        total += popc(m)
        if popc(m) != st[nowrap(L.S_HSIZE + h)]:
            bad += 1
    if seen != L.ALL_CARDS or total != L.N_CARDS:
        bad += 1
    for c in range(L.N_CARDS):
        if not (st[nowrap(L.S_TRUE + st[nowrap(L.S_OWNER + c)])] >> c) & 1:
            bad += 1
    env = st[L.S_TRUE + L.ENVELOPE]
    if (
        env != st[L.S_ENV0]
        or popc(env & L.CAT_SUSPECT) != 1
        or popc(env & L.CAT_WEAPON) != 1
        or popc(env & L.CAT_ROOM) != 1
    ):
        bad += 1
    for a in range(6):
        for b in range(a + 1, 6):
            if st[nowrap(L.S_POS + a)] >= 9 and st[nowrap(L.S_POS + a)] == st[nowrap(L.S_POS + b)]:
                bad += 1
    seen = 0  # the clue pile: distinct cards of the deck (CL-T2; CL-K7 removes card 18)
    npile = st[L.S_NPILE]
    if npile < 0 or npile > tb[L.T_NCLUE] or (npile > 0 and st[L.S_CLUE_PTR] >= npile):
        bad += 1
    for i in range(npile):
        row = st[nowrap(L.S_DECK + i)]
        if row < 0 or row >= tb[L.T_NCLUE] or (seen >> row) & 1:
            bad += 1
        seen |= 1 << row
    n = st[L.S_N]
    for p in range(n):
        kb = kbase(p)
        if _smart(st, p) and propagate(st, kb):
            bad += 1
        for h in range(L.N_HOLDERS):
            if st[nowrap(kb + L.K_HAS + h)] & ~st[nowrap(L.S_TRUE + h)]:
                bad += 1
            if st[nowrap(kb + L.K_NOT + h)] & st[nowrap(L.S_TRUE + h)]:
                bad += 1
    return bad
