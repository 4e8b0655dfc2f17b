"""The referee's model of one game: where every card is, the rooms, each seat's money.

Every card has exactly one :class:`Place` in ``where``; :meth:`GameState.move` is the only
way a card moves, and it keeps the per-zone sets (hands, corpses, annexes, Exit, Bistro,
box) in step with ``where``.  Money changes go through :meth:`GameState.gain` (the wealth
cap, BI-N8 / BI-V10) and :meth:`GameState.pay_fine` (BI-M1, the split checked by ``morning.fine_split``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

WHITE = "white"  # a white (neutral) key


class Place(NamedTuple):
    """Where a card is: ``zone`` plus the seat or room it belongs to (``-1`` if none).

    zones: box, entrance, exit, bistro, room (``owner`` = room index), hand, annex,
    corpse (unburied, in front of ``owner``), buried (``owner`` = annex owner; ``slot`` =
    the annex card, or ``-1`` for the owner's Barn).
    """

    zone: str
    owner: int = -1
    slot: int = -1


BOX = Place("box")
EXIT = Place("exit")
BISTRO = Place("bistro")


@dataclass
class Room:
    key: object = None  # seat number, WHITE, or None (closed, BI-S1)
    traveller: int | None = None
    tokens: dict = field(default_factory=dict)  # Room-Service tokens: seat -> count

    @property
    def is_open(self):
        return self.key is not None


@dataclass
class Seat:
    cash: int = 0
    cheques: int = 0
    hand: set = field(default_factory=set)
    corpses: set = field(default_factory=set)  # unburied
    annexes: list = field(default_factory=list)  # annex cards in build order
    barn_fill: int = 0  # BI-C4: the Barn holds one corpse
    solo_lost: bool = False
    # tallies the seats table reports
    buried: int = 0  # corpses this seat buried (BI-G3 tie-break)
    buried_under_own: int = 0  # corpses under this seat's annexes (BI-V9)
    buried_money: int = 0
    kills: int = 0
    bribes: int = 0
    builds: int = 0
    fines: int = 0
    wages: int = 0
    peasants_bribed: int = 0
    peasants_killed: int = 0
    bribed_by_rank: list = field(default_factory=lambda: [0, 0, 0, 0])
    killed_by_rank: list = field(default_factory=lambda: [0, 0, 0, 0])
    buried_by_rank: list = field(default_factory=lambda: [0, 0, 0, 0])

    @property
    def score(self):
        return self.cash + 10 * self.cheques  # BI-G3


def _copy_seat(seat):
    new = Seat(**{k: v for k, v in seat.__dict__.items()})
    new.hand, new.corpses, new.annexes = set(seat.hand), set(seat.corpses), list(seat.annexes)
    new.bribed_by_rank = list(seat.bribed_by_rank)
    new.killed_by_rank = list(seat.killed_by_rank)
    new.buried_by_rank = list(seat.buried_by_rank)
    return new


class GameState:
    """The whole table of one game."""

    def __init__(self, cards, players, wealth_cap, unlimited_wealth):
        self.cards = cards
        self.players = players
        self.cap = wealth_cap
        self.unlimited = unlimited_wealth
        self.where = {c.index: BOX for c in cards}
        self.box = {c.index for c in cards}
        self.exit = set()
        self.bistro = set()
        self.entrance = []  # the Entrance, top card first
        self.rooms = [Room() for _ in range(8)]  # BI-S1: 8 rooms
        self.seats = [Seat() for _ in range(players)]
        self.fill = {}  # annex card -> corpses buried under it
        self.round = 0
        self.season = 1
        self.first = 0  # first player of the round
        self.last_round = False
        self.over = False  # solo game lost (BI-X2)

    def copy(self):
        """An independent copy (the static card list is shared)."""
        other = GameState.__new__(GameState)
        other.__dict__.update(self.__dict__)
        other.where = dict(self.where)
        other.box, other.exit, other.bistro = set(self.box), set(self.exit), set(self.bistro)
        other.entrance = list(self.entrance)
        other.rooms = [Room(r.key, r.traveller, dict(r.tokens)) for r in self.rooms]
        other.seats = [_copy_seat(seat) for seat in self.seats]
        other.fill = dict(self.fill)
        return other

    # --- cards ---------------------------------------------------------------------
    def move(self, card, place):
        """Move ``card`` to ``place``, keeping the zone sets in step."""
        self._leave(card, self.where[card])
        self.where[card] = place
        z = place.zone
        if z == "box":
            self.box.add(card)
        elif z == "exit":
            self.exit.add(card)
        elif z == "bistro":
            self.bistro.add(card)
        elif z == "hand":
            self.seats[place.owner].hand.add(card)
        elif z == "corpse":
            self.seats[place.owner].corpses.add(card)
        elif z == "annex":
            self.seats[place.owner].annexes.append(card)
        elif z == "room":
            self.rooms[place.owner].traveller = card

    def _leave(self, card, place):
        z = place.zone
        if z == "box":
            self.box.discard(card)
        elif z == "exit":
            self.exit.discard(card)
        elif z == "bistro":
            self.bistro.discard(card)
        elif z == "hand":
            self.seats[place.owner].hand.discard(card)
        elif z == "corpse":
            self.seats[place.owner].corpses.discard(card)
        elif z == "annex":
            self.seats[place.owner].annexes.remove(card)
        elif z == "room":
            self.rooms[place.owner].traveller = None
        elif z == "entrance":
            self.entrance.remove(card)

    def discard(self, card):
        """BI-N2 / BI-M3: a discarded peasant goes to the Bistro, any other card to the Exit."""
        self.move(card, BISTRO if self.cards[card].is_peasant else EXIT)

    # --- money ---------------------------------------------------------------------
    def gain(self, p, amount, capped=True):
        """Give seat ``p`` ``amount`` francs; return what the seat keeps.

        BI-N8: cash never exceeds the cap, the rest is lost.  BI-V10 ``unlimited_wealth``:
        above the cap the player takes cap/10 cheques and moves the cash back by as much.
        """
        if amount <= 0:
            return 0
        seat = self.seats[p]
        cash = seat.cash + amount
        if not capped or cash <= self.cap:
            seat.cash = cash
            return amount
        if self.unlimited:
            tens = self.cap // 10
            while cash > self.cap:
                cash -= 10 * tens
                seat.cheques += tens
            seat.cash = cash
            return amount
        seat.cash = self.cap
        return amount - (cash - self.cap)

    def would_gain(self, p, amount, capped=True):
        """What seat ``p`` would keep of ``amount`` (nothing changes)."""
        if amount <= 0:
            return 0
        if not capped or self.unlimited:
            return amount
        return max(0, min(amount, self.cap - self.seats[p].cash))

    def pay_fine(self, p, cash, cheques):
        """BI-M1: seat ``p`` pays a fine with ``cash`` francs and ``cheques`` cheques (a split
        the caller has checked)."""
        seat = self.seats[p]
        seat.cash -= cash
        seat.cheques -= cheques
        seat.fines += cash + 10 * cheques

    # --- annex effects (BI-C5) ----------------------------------------------------
    def _effects(self, p, name):
        for a in self.seats[p].annexes:
            for args in self.cards[a].effect_args(name):
                yield args

    def discount(self, p, action):
        """BI-N2: cards fewer to pay for ``action`` (duplicates stack, BI-V3 false)."""
        return sum(
            int(args[1]) if len(args) > 1 else 1 for args in self._effects(p, "discount") if args[0] == action
        )

    def multi_target(self, p, action):
        """Store / Butcher's Shop / Crypt: several targets in one action."""
        return any(args[0] == action for args in self._effects(p, "multi_target"))

    def peasant_limit(self, p, base):
        """BI-N3: 1 or 2 peasants per bribe (``base``: rules.peasants_per_bribe), up to 4 with
        the Brewery (never fewer than ``base``)."""
        return max([base] + [int(args[0]) for args in self._effects(p, "peasant_bribe_limit")])

    def chapel(self, p):
        """Chapel: every card paid for Bury returns to hand."""
        return any(True for _ in self._effects(p, "bury_payment_returns"))

    def wage_free(self, p):
        """Distillery: accomplices who work for free."""
        return sum(int(args[0]) for args in self._effects(p, "wage_reduction"))

    def leave_bonus(self, p):
        """Gardens: extra francs in every Travellers-leave phase."""
        return sum(int(args[0]) for args in self._effects(p, "leave_income"))

    def owns_kind(self, p, kind):
        return any(self.cards[a].kind == kind for a in self.seats[p].annexes)

    # --- queries ---------------------------------------------------------------------
    def capacity_left(self, dest_annex):
        """BI-C3: an annex holds as many corpses as its rank."""
        return self.cards[dest_annex].rank - self.fill.get(dest_annex, 0)

    def police_in_inn(self):
        """Police travellers in the rooms (BI-M1)."""
        return sum(1 for r in self.rooms if r.traveller is not None and self.cards[r.traveller].is_police)

    def travellers_in_inn(self):
        return sum(1 for r in self.rooms if r.traveller is not None)

    def empty_open_rooms(self):
        return [i for i, r in enumerate(self.rooms) if r.key is not None and r.traveller is None]

    def has_empty_open_room(self):
        for r in self.rooms:
            if r.key is not None and r.traveller is None:
                return True
        return False

    # --- reporting -------------------------------------------------------------------
    def snapshot(self, seats=None):
        """A small dict of the public and private state (for divergence reports)."""
        seats = range(self.players) if seats is None else seats
        out = {
            "round": self.round,
            "season": self.season,
            "first_player": self.first,
            "rooms": {
                i: {
                    "key": r.key,
                    "traveller": r.traveller,
                    **({"tokens": dict(r.tokens)} if r.tokens else {}),
                }
                for i, r in enumerate(self.rooms)
                if r.is_open
            },
            "entrance_left": len(self.entrance),
            "exit": len(self.exit),
            "bistro": sorted(self.bistro),
        }
        for p in seats:
            if 0 <= p < self.players:
                s = self.seats[p]
                out[f"seat{p}"] = {
                    "cash": s.cash,
                    "cheques": s.cheques,
                    "hand": sorted(s.hand),
                    "corpses": sorted(s.corpses),
                    "annexes": {
                        a: f"{self.cards[a].kind} {self.fill.get(a, 0)}/{self.cards[a].rank}"
                        for a in s.annexes
                    },
                    "barn": f"{s.barn_fill}/1",
                }
        return out
