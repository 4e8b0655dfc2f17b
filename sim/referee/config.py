"""The ruleset of a run as the referee reads it from the resolved config (BI-V flags)."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import annex_bits, card_instances

#: BI-S2: travellers in the Entrance by (length, players), one copy of the deck.  The
#: referee's own copy, kept apart ON PURPOSE: it is the independent reading of the rules
#: (the project's one source is ``sim.games.bloody_inn.DECK_SIZE``); the resolved config
#: carries the run's ``deck_size`` and the tests check its default against this table.
ENTRANCE_SIZE = {
    ("short", 1): 36,
    ("short", 2): 35,
    ("short", 3): 42,
    ("short", 4): 48,
    ("long", 1): 44,
    ("long", 2): 45,
    ("long", 3): 54,
    ("long", 4): 64,
}


def white_key_count(players, setting):
    """BI-S1 / BI-V4 / BI-X1: white keys for ``players`` under the ``white_keys`` flag."""
    if setting == "standard":
        return 3 if players <= 3 else 4
    if setting == "players":
        return players if players >= 2 else 3  # solo always has 3 (BI-X1)
    return int(setting)


@dataclass
class RefereeConfig:
    players: int
    cards: list
    annex_bits: dict
    deck_size: int
    seasons: int  # BI-V7
    wealth_cap: int  # BI-V10
    unlimited_wealth: bool
    unique_annexes: bool  # BI-V3
    white_keys: int  # BI-V4
    voluntary_dismissal: bool  # BI-V5
    strict_final_round: bool  # BI-V6
    end_bonus_capped: bool  # BI-V8
    tiebreak_own_annexes: bool  # BI-V9
    max_rounds: int  # BI-G4
    check_invariants: bool
    season_on_next_draw: bool = False  # BI-V11 (False: BI-E3, the shuffle when the Entrance empties)
    one_token_per_room: bool = True  # BI-V12 (False: tokens stack)

    @property
    def travellers(self):
        return [c.index for c in self.cards if not c.is_peasant]

    @property
    def peasants(self):
        return [c.index for c in self.cards if c.is_peasant]

    @classmethod
    def from_resolved(cls, resolved):
        if resolved.get("game") != "bloody_inn":
            raise ValueError(f"the referee replays Bloody Inn games, not {resolved.get('game')!r}")
        r = resolved["rules"]
        players = int(resolved["players"])
        return cls(
            players=players,
            cards=card_instances(resolved),
            annex_bits=annex_bits(resolved),
            deck_size=int(r["deck_size"]),
            seasons=int(r["seasons"]),
            wealth_cap=int(r["wealth_cap"]),
            unlimited_wealth=bool(r["unlimited_wealth"]),
            unique_annexes=bool(r["unique_annexes"]),
            white_keys=white_key_count(players, r["white_keys"]),
            voluntary_dismissal=bool(r["voluntary_dismissal"]),
            strict_final_round=r["final_round"] == "strict",
            end_bonus_capped=bool(r["end_bonus_capped"]),
            tiebreak_own_annexes=r["tiebreak"] == "buried_under_own_annexes",
            max_rounds=int(r["max_rounds"]),
            check_invariants=bool(r.get("check_invariants", False)),
            # a dataset written before these flags existed played the old readings
            season_on_next_draw=r.get("season_change", "on_next_draw") == "on_next_draw",
            one_token_per_room=r.get("room_service_per_room", "any") != "any",
        )
