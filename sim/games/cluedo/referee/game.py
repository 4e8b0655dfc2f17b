"""Replay of one Cluedo game: the table state, a cursor over the events, the turn loop.

Decisions (which dice face was a loupe used for, where a pawn walks, what is suggested,
which card is shown, which clue-card choice, what is accused) are taken from the log and
checked for legality; their consequences (who must refute, who holds a named card, whether
an accusation is right, who is still in the game, who plays next, when the game ends) are
derived by the referee and compared with the log.  The first :class:`Objection` ends the
replay of the game and becomes its :class:`Divergence`.
"""

from __future__ import annotations

from collections import deque

from . import setup, tables, turn
from .data import N_ROOMS
from .divergence import Divergence, Objection, fail
from .log import END, event_dict


class GameReplay:
    """Replays the events of game ``game_id`` under ``rules`` (a :class:`CluedoRules`)."""

    def __init__(self, rules, game_id, events, game_row=None, seat_rows=None):
        self.rules = rules
        self.data = rules.data
        self.game_id = game_id
        self.events = list(events) + [END]
        self.n_events = len(events)
        self.game_row = game_row
        self.seat_rows = seat_rows
        self.i = 0
        self.current = None
        n = self.n = rules.players
        # table
        self.chars = [None] * n  # seat -> suspect
        self.seat_of = [-1] * 6  # suspect -> seat (-1 unplayed)
        self.pos = list(self.data.start)  # suspect -> node (CL-S1)
        self.weapon_room = [None] * 6
        self.owner = [None] * 21  # card -> seat 0..n-1, "envelope" or "table"
        self.hands = [set() for _ in range(n)]
        self.envelope = None  # (suspect, weapon, room card)
        self.face_down = {}  # room -> card (CL-2.1)
        self.passages = [set(p) for p in self.data.passages]
        self.unseen = set(range(1, len(self.data.clue) + 1))  # clue pile, top: unknown order
        # CL-C2 rules.clue_pile: how many of the deck's cards are in the pile (the rest boxed);
        # without the pile's order in the log, the pile has gone round after that many draws
        self.unseen_left = rules.clue_pile
        if self.unseen_left == 0:
            self.unseen.clear()
        self.under = deque()  # clue cards below the unseen ones, top first (CL-T2)
        self.left_pile = set()  # new-passage cards out of the pile (CL-K7)
        self.deal_start = None
        # players
        self.active = [True] * n
        self.accused = [0] * n
        self.turns_taken = [0] * n
        self.suggestions = [0] * n
        self.first_room = [-1] * n
        self.moved = [False] * 6  # pawn moved into a room by someone else (CL-T4)
        self.looked = {}  # (seat, room) -> turn of the look at that face-down card (CL-2.2)
        # game
        self.turn = 0
        self.cur = 0
        self.rounds = 1
        self.over = False
        self.winner = -1
        self.truncated = False
        self.clue_drawn = 0
        self.ctx = None  # the turn being replayed (turn.TurnCtx)

    # --- cursor ------------------------------------------------------------------------
    def peek(self):
        return self.events[self.i]

    def in_turn(self):
        """Does the next event belong to the turn being replayed?"""
        ev = self.events[self.i]
        return ev is not END and ev.turn == self.turn

    def take(self):
        """The next event (LOG-4 past the end; LOG-1 if its seq or turn stamp is off)."""
        ev = self.events[self.i]
        self.current = ev
        if ev is END:
            fail("LOG-4", f"the log ends at turn {self.turn} before the game is over")
        if ev.seq != self.i:
            fail("LOG-1", "event out of sequence", {"seq": self.i}, {"seq": ev.seq})
        if ev.turn != self.turn:
            fail("LOG-1", "event stamped with the wrong turn", {"turn": self.turn}, {"turn": ev.turn})
        self.i += 1
        return ev

    def expect(self, kind, rule, what, seat=None):
        """Take the next event, which must be of ``kind`` (and by ``seat``) in this turn."""
        ev = self.events[self.i]
        if ev.kind != kind or (seat is not None and ev.seat != seat) or ev.turn != self.turn:
            self.current = ev
            fail(
                rule,
                f"expected {what}; the log has '{ev.kind}' (seat {ev.seat}, turn {ev.turn})",
                {"kind": kind, "turn": self.turn, **({"seat": seat} if seat is not None else {})},
                {"kind": ev.kind, "turn": ev.turn, "seat": ev.seat},
            )
        return self.take()

    def check(self, ok, rule, message, expected=None, logged=None):
        if not ok:
            fail(rule, message, expected, logged)

    def check_value(self, rule, what, expected, logged):
        if logged != expected:
            fail(
                rule,
                f"{what}: the rules give {expected!r}, the log {logged!r}",
                {what: expected},
                {what: logged},
            )

    # --- table helpers -------------------------------------------------------------------
    def pawn_seat(self, suspect):
        return self.seat_of[suspect]

    def blocked_for(self, suspect):
        """Squares of the other pawns (all six are on the board, CL-S1)."""
        return {p for c, p in enumerate(self.pos) if c != suspect and p >= N_ROOMS}

    def in_room(self, seat):
        return self.pos[self.chars[seat]] < N_ROOMS

    def card_holder(self, card):
        return self.owner[card]

    # --- the game -----------------------------------------------------------------------
    def run(self):
        try:
            setup.run(self)
            self._turns()
            if self.peek() is not END:
                self.current = self.peek()
                fail("LOG-4", "the log goes on after the game is over")
            self.current = None
            tables.check(self)
        except Objection as obj:
            return self._divergence(obj)
        return None

    def _turns(self):
        """Seat 0 starts (CL-S4), play goes clockwise, players out of the game are skipped
        (CL-T6) until a right accusation, everyone wrong (CL-T7) or the turn cap (CL-V7)."""
        while True:
            if self.active[self.cur]:
                turn.play(self, self.cur)
                self.turn += 1
            if self.over:
                return
            if self.turn >= self.rules.max_turns:
                self.truncated = True
                return
            self.cur = (self.cur + 1) % self.n
            if self.cur == 0:
                self.rounds += 1

    # --- reports ------------------------------------------------------------------------
    def state(self):
        d = self.data
        pawns = {d.suspects[c]: d.node_name(p) for c, p in enumerate(self.pos)}
        return {
            "turn": self.turn,
            "seat_to_play": self.cur,
            "characters": [d.suspects[c] if c is not None else None for c in self.chars],
            "active": [int(a) for a in self.active],
            "pawns": pawns,
            "hands": [sorted(d.card_name(c) for c in h) for h in self.hands],
            "envelope": [d.card_name(c) for c in self.envelope] if self.envelope else None,
            "face_down": {d.rooms[r]: d.card_name(c) for r, c in self.face_down.items()},
            "passages": {d.rooms[r]: sorted(d.rooms[q] for q in p) for r, p in enumerate(self.passages) if p},
            "clue_pile": {"unseen": len(self.unseen), "under": list(self.under)},
        }

    def _divergence(self, obj):
        ev = self.current
        event = event_dict(ev, self.game_id) if ev is not None and ev is not END else None
        log_state = {}
        if ev is not None and ev is not END:
            log_state = {"turn": ev.turn, "seat": ev.seat, "kind": ev.kind}
        try:
            state = self.state()
        except Exception:  # noqa: BLE001 - a report must never fail on a half-built state
            state = {}
        return Divergence(
            self.game_id, obj.rule, obj.message, event, obj.expected, obj.logged, state, log_state
        )
