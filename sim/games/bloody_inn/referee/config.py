"""The ruleset of a run as the referee reads it from the resolved config (BI-V flags)."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import annex_bits, card_instances

#: BI-S2: travellers in the Entrance by (length, players), one copy of the deck.  The
#: referee's own copy, kept apart ON PURPOSE: it is the independent reading of the rules
#: (the project's one source is ``sim.games.bloody_inn.adapter.DECK_SIZE``); the resolved config
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


#: The printed numbers of the rules that a run may change as ``[rules]`` constants, with the
#: rule that prints them.  The referee's own copy, kept apart ON PURPOSE (the project's one
#: source is ``sim.games.bloody_inn.adapter.RULE_CONSTANTS``): a run's resolved config carries the
#: values it played, and a dataset written before the constants existed played these.
PRINTED = {
    "start_cash": 5,  # BI-S3
    "start_cheques": 1,  # BI-S3
    "start_peasants": 2,  # BI-S3
    "solo_bistro_peasants": 2,  # BI-X1
    "room_service_per_rank": 1,  # BI-E2: the traveller's rank in francs
    "peasants_per_bribe": 2,  # BI-N3: 1 or 2 (the Brewery: more)
    "police_to_investigate": 1,  # BI-M1: at least one police traveller
    "fine_per_corpse": 10,  # BI-M1
    "leave_income_per_room": 1,  # BI-M2
    "wage_per_accomplice": 1,  # BI-M3
    "final_fine_per_corpse": 10,  # BI-G1
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
    start_cash: int = PRINTED["start_cash"]  # BI-S3
    start_cheques: int = PRINTED["start_cheques"]  # BI-S3
    start_peasants: int = PRINTED["start_peasants"]  # BI-S3
    solo_bistro_peasants: int = PRINTED["solo_bistro_peasants"]  # BI-X1
    room_service_per_rank: int = PRINTED["room_service_per_rank"]  # BI-E2
    peasants_per_bribe: int = PRINTED["peasants_per_bribe"]  # BI-N3
    police_to_investigate: int = PRINTED["police_to_investigate"]  # BI-M1
    fine_per_corpse: int = PRINTED["fine_per_corpse"]  # BI-M1
    leave_income_per_room: int = PRINTED["leave_income_per_room"]  # BI-M2
    wage_per_accomplice: int = PRINTED["wage_per_accomplice"]  # BI-M3
    final_fine_per_corpse: int = PRINTED["final_fine_per_corpse"]  # BI-G1

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
            # a dataset written before the rule constants existed played the printed numbers
            **{name: int(r.get(name, printed)) for name, printed in PRINTED.items()},
        )
