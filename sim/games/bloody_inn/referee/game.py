"""Replay of one game: a cursor over its events and the phase loop (BI-S .. BI-G).

The referee consumes the log in order.  Decisions (where a traveller goes, which action,
which cards pay, who is dismissed) are taken from the log and checked for legality; their
consequences (money, card moves, fines, income, bonuses, scores) are computed by the referee
and compared with what the log says.  The first :class:`Objection` ends the replay of the
game and becomes its :class:`Divergence`.
"""

from __future__ import annotations

from . import ending, evening, morning, night, setup, tables
from .divergence import Divergence, Objection, fail
from .log import END, event_dict
from .state import GameState


class GameReplay:
    """Replays the events of game ``game_id`` under ``cfg`` (a :class:`RefereeConfig`)."""

    def __init__(self, cfg, game_id, events, game_row=None, seat_rows=None):
        self.cfg = cfg
        self.game_id = game_id
        self.events = list(events) + [END]  # the sentinel: peek() is always an event
        self.n_events = len(events)
        self.game_row = game_row
        self.seat_rows = seat_rows
        self.s = GameState(cfg.cards, cfg.players, cfg.wealth_cap, cfg.unlimited_wealth)
        self.i = 0
        self.phase = "evening"
        self.current = None  # the event being judged
        self.turns = 0  # night actions taken (games table ``turns``)
        self.truncated = False
        self.seasons_played = 1
        self.fallback_passes = 0  # passes logged for a refused strategy decision

    # --- cursor --------------------------------------------------------------------
    def peek(self):
        """The next event (``END`` after the last one)."""
        return self.events[self.i]

    def take(self):
        """The next event (LOG-4 if the log has ended; LOG-1 if its round/phase stamp is off)."""
        ev = self.events[self.i]
        self.current = ev
        if ev is END:
            fail("LOG-4", f"the log ends in round {self.s.round} ({self.phase}) before the game is over")
        self.i += 1
        if ev.round != self.s.round or ev.phase != self.phase:
            fail(
                "LOG-1",
                "event stamped with the wrong round or phase",
                {"round": self.s.round, "phase": self.phase},
                {"round": ev.round, "phase": ev.phase},
            )
        return ev

    def expect(self, kind, rule, what, seat=None):
        """Take the next event, which must be of ``kind`` (and ``seat``)."""
        ev = self.events[self.i]
        if ev.kind != kind or (seat is not None and ev.seat != seat):
            self.current = ev
            fail(
                rule,
                f"expected {what}; the log has '{ev.kind}' (seat {ev.seat})",
                {"kind": kind, **({"seat": seat} if seat is not None else {})},
                {"kind": ev.kind, "seat": ev.seat},
            )
        return self.take()

    def check(self, ok, rule, message, expected=None, logged=None):
        """Objection unless ``ok`` (use with a constant message; else ``if``/``fail``)."""
        if not ok:
            fail(rule, message, expected, logged)

    def check_value(self, rule, what, expected, logged):
        """Objection unless ``logged == expected`` (a quantity named ``what``)."""
        if logged != expected:
            fail(
                rule,
                f"{what}: the rules give {expected}, the log has {logged}",
                {what: expected},
                {what: logged},
            )

    def check_money(self, ev, rule):
        """The acting seat's cash and cheques after ``ev`` must match the referee's."""
        if 0 <= ev.seat < self.cfg.players:
            seat = self.s.seats[ev.seat]
            if ev.cash != seat.cash or ev.cheques != seat.cheques:
                fail(
                    rule,
                    f"seat {ev.seat}'s money after this event: the rules give cash "
                    f"{seat.cash} and {seat.cheques} cheques, the log {ev.cash} and "
                    f"{ev.cheques}",
                    {"cash": seat.cash, "cheques": seat.cheques},
                    {"cash": ev.cash, "cheques": ev.cheques},
                )

    # --- the game ------------------------------------------------------------------
    def play(self):
        """Replay the whole game; raise :class:`Objection` at the first divergence."""
        setup.setup(self)  # BI-S, BI-X1
        while True:
            if not evening.start_round(self):  # BI-G4 truncation
                break
            if not evening.evening(self):  # BI-E; False: BI-E4 not played
                self.s.round -= 1  # the trigger round is not played
                break
            night.night(self)  # BI-N
            morning.morning(self)  # BI-M
            if self.s.over or self.s.last_round:
                break
        ending.end_game(self)  # BI-G
        if self.peek() is not END:
            self.current = self.peek()
            fail("LOG-4", "events logged after the end of the game")

    def run(self):
        """Replay and check the tables; return the first :class:`Divergence` or None."""
        try:
            self.play()
            self.current = None
            tables.check_tables(self)
        except Objection as obj:
            if self.current is END and obj.rule != "LOG-4":
                obj = Objection(
                    "LOG-4",
                    f"the log ends in round {self.s.round} ({self.phase}) "
                    f"before the game is over: {obj.message}",
                    obj.expected,
                    obj.logged,
                )
            return self.divergence(obj)
        return None

    def divergence(self, obj):
        """The :class:`Divergence` of ``obj``: the event and the two states."""
        ev = self.current if self.current is not END else None
        seats = None
        log_state = dict(obj.logged)
        if ev is not None:
            log_state = {"round": ev.round, "phase": ev.phase, **obj.logged}
            if 0 <= ev.seat < self.cfg.players:
                seats = [ev.seat]
                log_state[f"seat{ev.seat}"] = {"cash": ev.cash, "cheques": ev.cheques}
        kind = None
        if ev is not None and 0 <= ev.card < len(self.cfg.cards):
            kind = self.cfg.cards[ev.card].kind
        return Divergence(
            game_id=self.game_id,
            rule=obj.rule,
            message=obj.message,
            event=None if ev is None else event_dict(ev, card_kind=kind),
            expected=obj.expected,
            logged=obj.logged,
            referee_state=self.s.snapshot(seats),
            log_state=log_state,
        )
