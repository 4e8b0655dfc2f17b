"""The ruleset of a run, read from its resolved config (CL-V flags, CL-S3 characters)."""

from __future__ import annotations

from dataclasses import dataclass

from sim.errors import SimError

from .data import DATA_DIR, load_data

#: CL-C2's printed numbers that a run may change as ``[rules]`` constants.  The referee's own
#: copy, kept apart ON PURPOSE (the project's one source is ``sim.games.cluedo.adapter.RULE_CONSTANTS``):
#: a run's resolved config carries the values it played, and a run resolved before the
#: constants existed played these.
PRINTED = {
    "die_faces": 6,  # CL-C2: two six-sided dice
    "clue_pile": 29,  # CL-C2: the 29 clue cards
}


@dataclass(frozen=True)
class CluedoRules:
    """What the referee needs of a resolved Cluedo config."""

    players: int
    loupe_dice: int  # CL-V1, dice carrying a loupe (at most ``dice``)
    dice: int  # CL-V2
    clue_cards: bool  # CL-V3 (off also when no die carries a loupe)
    stay_allowed: bool  # CL-V4
    first_classic: bool  # CL-V5
    two_random_rooms: bool  # CL-V6
    max_turns: int  # CL-V7
    stay_rolls: bool  # roll_every_turn = "yes": a stay or a passage still rolls (2023 booklet)
    exact_roll: bool  # move_steps = "exact": a walk not entering a room uses the whole roll
    characters: tuple | None  # configured suspect ids per seat, None = random (CL-S3)
    rotate: bool
    lineup: tuple  # strategy name per lineup entry
    data: object  # sim.games.cluedo.referee.data.Data
    die_faces: int = PRINTED["die_faces"]  # CL-C2 (face 1 is the loupe, CL-V1)
    clue_pile: int = PRINTED["clue_pile"]  # CL-C2: clue cards in the pile, the rest boxed
    #: what-if ``extra_steps``: steps added to each suspect's every walk (CL-T1: 0 by the rules;
    #: a handicap to measure what movement is worth), indexed by suspect id
    extra_steps: tuple = (0,) * 6

    @classmethod
    def from_resolved(cls, resolved, data_dir=DATA_DIR):
        if resolved.get("game") not in (None, "cluedo"):
            raise SimError(f"the Cluedo referee replays cluedo runs, not {resolved.get('game')!r}")
        r = resolved["rules"]
        data = load_data(data_dir)
        want = resolved.get("data", {}).get("sha256")
        if want is not None and want != data.sha256:
            raise SimError(
                f"{data_dir}: the Cluedo data files differ from the ones the run was played with "
                f"(data.sha256 {want[:12]}..., files {data.sha256[:12]}...); replay with the run's data"
            )
        chars = r.get("characters", "random")
        dice = int(r.get("dice", 2))
        loupe = min(int(r.get("loupe_dice", 2)), dice)
        return cls(
            players=int(resolved["players"]),
            loupe_dice=loupe,
            dice=dice,
            clue_cards=r.get("clue_cards", "on") in ("on", True) and loupe > 0,
            stay_allowed=r.get("stay_and_suggest", "allowed") in ("allowed", True),
            first_classic=r.get("first_player", "random") == "classic",
            two_random_rooms=r.get("two_player_rooms", "corners") == "random",
            max_turns=int(r.get("max_turns", 2000)),
            # runs resolved before these two flags existed were played "no" / "up_to"
            stay_rolls=r.get("roll_every_turn", "no") in ("yes", True),
            exact_roll=r.get("move_steps", "up_to") == "exact",
            characters=None if chars == "random" else tuple(data.suspects.index(c) for c in chars),
            rotate=bool(resolved.get("rotate", True)),
            lineup=tuple(s["strategy"] for s in resolved["seats"]),
            data=data,
            extra_steps=tuple(int(r.get("extra_steps", {}).get(c, 0)) for c in data.suspects),
            **{name: int(r.get(name, printed)) for name, printed in PRINTED.items()},
        )
