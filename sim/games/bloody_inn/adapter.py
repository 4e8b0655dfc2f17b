"""The Bloody Inn adapter: config -> kernel arrays, kernel columns -> Arrow tables."""

from __future__ import annotations

import functools
from typing import NamedTuple

import numba
import numpy as np
import pyarrow as pa

from kernels.bloody_inn.search_params import SEARCH_PARAMS_BEFORE
from kernels.layout_tools import alloc_columns, block_bounds, block_count

from ...buffers import ColumnPool
from ...config import check_keys, check_seat_count, find_data_file, get_bool, get_choice, get_float, get_int
from ...errors import ConfigError
from ...registry import Chunk
from ..lazy import lazy
from . import cards

# The kernels are imported when first used (``lazy``): importing this adapter, listing the
# games, reading a dataset's facts or analysing it compiles nothing.
L = lazy("kernels.bloody_inn.layout")
T = lazy("kernels.bloody_inn.trajectory")
play_games = lazy("kernels.bloody_inn.play", "play_games")
REGISTRY = lazy("sim.games.bloody_inn.presets", "REGISTRY")  # policies and presets
BOUNDS = lazy("sim.games.bloody_inn.presets", "BOUNDS")
_STRATEGIES = lazy("kernels.bloody_inn.strategies")

# BI-S2: deck size (travellers kept in the Entrance) by length and players, from the player
# aid.  The one source of this table: the adapter, the analyses (through the manifest's
# facts) and the tests read it; the referee keeps an independent copy on purpose.
DECK_SIZE = {
    ("short", 1): 36,
    ("short", 2): 35,
    ("short", 3): 42,
    ("short", 4): 48,
    ("long", 1): 44,
    ("long", 2): 45,
    ("long", 3): 54,
    ("long", 4): 64,
}

#: Blocks of games per thread in a chunk.  A thread takes the next block when it is done,
#: so at a chunk's end one thread waits for the other's last block: the last blocks are
#: smaller (``block_bounds``), so that wait is about half a block of ``BLOCK_GAMES``.
#: A block has at least ``BLOCK_GAMES`` games (each block is a call from Python), one with a
#: search seat (its games are long).
#: A block's games and rows do not depend on the blocks (each game has its own stream).
BLOCKS_PER_THREAD = 32
BLOCK_GAMES = 100

#: Rounds a game is first given room for in the trajectory arrays (a game that needs more
#: plays the chunk again with twice the room: rows are deterministic, so a retry is exact).
TRAJECTORY_ROUNDS = 24

# BI-X3: rating bands of a long solo game (player aid), lowest score of each band
SOLO_BANDS = ((170, "demonic"), (150, "evil"), (130, "hazardous"), (110, "worrying"))


def solo_rating(score, lost, length="long"):
    """BI-X3: the rulebook's rating of a solo game.

    ``"lost"`` when the player was caught with a corpse (BI-X2), ``None`` for a short game
    (the bands are for long games), ``"below"`` under 110, else the band's name.
    """
    if lost:
        return "lost"
    if length != "long":
        return None
    for low, name in SOLO_BANDS:
        if score >= low:
            return name
    return "below"


class RuleConstant(NamedTuple):
    """A numeric rule constant of ``[rules]``: its rule id, printed value and allowed range."""

    rule: str
    printed: int
    lo: int
    hi: int
    step: int  # allowed values are multiples of it
    slot: str  # the kernel's state slot (kernels/bloody_inn/layout.py)
    meaning: str


#: The numbers of the printed rules a designer may tune, by their ``[rules]`` name.  Each
#: defaults to the printed value (so a config that does not name them plays the printed
#: game) and reaches the kernels as state (the template's rule slots), not as code, so a new
#: value costs no compile.  The cash cap is ``wealth_cap`` (BI-N8, BI-V10); card values
#: (rank, pocket money, copies, effect amounts) are ``[cards.<id>]`` edits; the deck size is
#: ``deck_size`` (BI-S2, BI-V2).
RULE_CONSTANTS = {
    "start_cash": RuleConstant("BI-S3", 5, 0, 10_000, 1, "G_START_CASH", "cash on the track at the start"),
    "start_cheques": RuleConstant("BI-S3", 1, 0, 100, 1, "G_START_CHEQUES", "10 F cheques at the start"),
    "start_peasants": RuleConstant("BI-S3", 2, 0, 8, 1, "G_START_PEASANTS", "peasants dealt to each hand"),
    "solo_bistro_peasants": RuleConstant(
        "BI-X1", 2, 0, 8, 1, "G_SOLO_BISTRO", "peasants in the Bistro at the start of a solo game"
    ),
    "room_service_per_rank": RuleConstant(
        "BI-E2",
        1,
        0,
        40,
        1,
        "G_ROOM_SERVICE",
        "francs per rank of a traveller placed on a Room-Service token",
    ),
    "peasants_per_bribe": RuleConstant(
        "BI-N3",
        2,
        1,
        8,
        1,
        "G_PEAS_BRIBE",
        "peasants one bribe may take from the Bistro (the Brewery: its own)",
    ),
    "police_to_investigate": RuleConstant(
        "BI-M1", 1, 1, 8, 1, "G_POLICE_MIN", "police travellers in the inn that make a Morning investigation"
    ),
    "fine_per_corpse": RuleConstant(
        "BI-M1", 10, 0, 100, 10, "G_FINE", "francs fined per unburied corpse at a Morning investigation"
    ),
    "leave_income_per_room": RuleConstant(
        "BI-M2", 1, 0, 40, 1, "G_LEAVE", "francs per own-keyed room holding a traveller in the Morning"
    ),
    "wage_per_accomplice": RuleConstant(
        "BI-M3", 1, 0, 40, 1, "G_WAGE", "francs of cash wages per accomplice kept"
    ),
    "final_fine_per_corpse": RuleConstant(
        "BI-G1", 10, 0, 100, 10, "G_FINAL_FINE", "francs fined per unburied corpse at the end of the game"
    ),
}
PEASANTS = 8  # BI-C1


def _resolve_constants(rules, players, cap, p):
    """The ``RULE_CONSTANTS`` of ``[rules]``, each checked against its range (and the ones
    that depend on each other: start cash under the cash cap, the peasants dealt within the
    eight of BI-C1)."""
    out = {}
    for name, c in RULE_CONSTANTS.items():
        value = rules.get(name, c.printed)
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not c.lo <= value <= c.hi
            or value % c.step
        ):
            step = f"a multiple of {c.step} " if c.step > 1 else "an integer "
            raise ConfigError(p + name, value, f"{step}from {c.lo} to {c.hi} ({c.rule}, printed {c.printed})")
        out[name] = value
    if out["start_cash"] > cap:
        raise ConfigError(
            p + "start_cash", out["start_cash"], f"at most rules.wealth_cap = {cap} (BI-N8: cash is capped)"
        )
    bistro = out["solo_bistro_peasants"] if players == 1 else 0
    if players * out["start_peasants"] + bistro > PEASANTS:
        most = (PEASANTS - bistro) // players
        raise ConfigError(
            p + "start_peasants",
            out["start_peasants"],
            f"at most {most} with {players} player(s)"
            + (f" and {bistro} in the Bistro" if bistro else "")
            + " (BI-C1: 8 peasants)",
        )
    return out


RULE_KEYS = (
    "length",
    "deck_size",
    "deck_copies",
    "unique_annexes",
    "white_keys",
    "voluntary_dismissal",
    "final_round",
    "seasons",
    "end_bonus_capped",
    "tiebreak",
    "wealth_cap",
    "unlimited_wealth",
    "season_change",
    "room_service_per_room",
    "max_rounds",
    "check_invariants",
    *RULE_CONSTANTS,
)
SEAT_KEYS = ("strategy", "params", "restrict")
#: restricted play: the actions a seat may be barred from ("launder": passes never launder;
#: the pass itself always stays legal)
RESTRICT_ACTIONS = ("bribe", "build", "kill", "bury", "launder")
RESTRICT_BIT = {
    "bribe": L.ACTION.bribe,
    "build": L.ACTION.build,
    "kill": L.ACTION.kill,
    "bury": L.ACTION.bury,
    "launder": L.ACTION.passing,
}


def annex_ids(table):
    """Card ids that can become annexes (BI-C3), in table order."""
    return [r["id"] for r in table if r["annex"] != "" and r["type"] not in ("police", "peasant", "aid")]


def _resolve_restrict(value, prefix, table):
    """``restrict = { actions = [...], build = [...] }`` of one seat -> sorted lists."""
    check_keys(value, ("actions", "build"), prefix)
    out = {}
    for key, allowed in (("actions", RESTRICT_ACTIONS), ("build", annex_ids(table))):
        items = value.get(key, [])
        if not isinstance(items, list):
            raise ConfigError(prefix + key, items, "a list of " + ", ".join(allowed))
        for item in items:
            if item not in allowed:
                what = "actions" if key == "actions" else "card ids that can be annexes"
                raise ConfigError(prefix + key, item, f"{what}: " + ", ".join(allowed))
        if items:
            out[key] = sorted(set(items), key=allowed.index)
    return out


def _resolve_rules(raw, players, n_travellers_one_copy):
    rules = raw.get("rules", {})
    check_keys(rules, RULE_KEYS, "rules.")
    p = "rules."
    out = {}
    out["length"] = get_choice(rules, "length", "long", ("long", "short"), p)  # BI-V1
    out["deck_copies"] = get_int(rules, "deck_copies", 1, 1, 7, p)  # BI-V2
    total = n_travellers_one_copy * out["deck_copies"]
    if total < 1:
        raise ConfigError("cards", "no travellers", "at least one traveller card")
    default_deck = min(total, DECK_SIZE[(out["length"], players)] * out["deck_copies"])
    deck = rules.get("deck_size", "default")
    if deck == "default":
        deck = default_deck
    out["deck_size"] = get_int({"deck_size": deck}, "deck_size", deck, 1, total, p)
    out["unique_annexes"] = get_bool(rules, "unique_annexes", True, p)  # BI-V3
    wk = rules.get("white_keys", "standard")  # BI-V4
    if wk == "standard":
        white = 3 if players <= 3 else 4
    elif wk == "players":
        white = players if players >= 2 else 3
    elif isinstance(wk, int) and not isinstance(wk, bool) and 0 <= wk <= 8 - players:
        white = wk
    else:
        raise ConfigError(p + "white_keys", wk, f"'standard', 'players' or an integer 0..{8 - players}")
    if players + white > 8:
        raise ConfigError(
            p + "white_keys", wk, f"at most {8 - players} white keys with {players} players (8 rooms)"
        )
    out["white_keys"] = wk
    out["white_keys_count"] = white
    out["voluntary_dismissal"] = get_bool(rules, "voluntary_dismissal", True, p)  # BI-V5
    out["final_round"] = get_choice(rules, "final_round", "partial", ("partial", "strict"), p)  # BI-V6
    out["seasons"] = get_int(rules, "seasons", 2, 1, 2, p)  # BI-V7
    out["end_bonus_capped"] = get_bool(rules, "end_bonus_capped", True, p)  # BI-V8
    out["tiebreak"] = get_choice(
        rules, "tiebreak", "buried_by_player", ("buried_by_player", "buried_under_own_annexes"), p
    )  # BI-V9
    out["wealth_cap"] = get_int(rules, "wealth_cap", 40, 10, 10_000, p)  # BI-V10
    out["unlimited_wealth"] = get_bool(rules, "unlimited_wealth", False, p)
    out["season_change"] = get_choice(
        rules, "season_change", "when_empty", ("when_empty", "on_next_draw"), p
    )  # BI-V11
    rs = rules.get("room_service_per_room", 1)  # BI-V12
    if isinstance(rs, bool) or not (rs == "any" or (isinstance(rs, int) and rs == 1)):
        raise ConfigError(p + "room_service_per_room", rs, "1 (one token per room) or 'any'")
    out["room_service_per_room"] = rs
    out["max_rounds"] = get_int(rules, "max_rounds", 200, 1, 100_000, p)  # BI-G4
    out["check_invariants"] = get_bool(rules, "check_invariants", False, p)
    out.update(_resolve_constants(rules, players, out["wealth_cap"], p))
    return out


def _check_limits(strategy, resolved, given, prefix):
    """Refuse a parameter outside its strategy's hard limits (``strategies.LIMITS``)."""
    for pname, (lo, hi, whole) in getattr(_STRATEGIES, "LIMITS", {}).get(strategy, {}).items():
        v = resolved[pname]
        if lo <= v <= hi and (not whole or v == int(v)):
            continue
        if whole and hi - lo == 1:
            allowed = f"{lo:g} or {hi:g}"
        else:
            allowed = f"{'a whole number' if whole else 'a number'} from {lo:g} to {hi:g}"
        raise ConfigError(prefix + pname, given.get(pname, v), allowed)


def _resolve_seats(raw, players, table):
    seats = raw.get("seats", [{"strategy": "random"}])
    if isinstance(seats, dict):
        seats = [seats]
    check_seat_count(seats, players)
    out = []
    for i, s in enumerate(seats):
        prefix = f"seats.{i}."
        check_keys(s, SEAT_KEYS + ("params_file",), prefix)
        name = s.get("strategy", "random")
        if name not in REGISTRY:
            raise ConfigError(prefix + "strategy", name, " | ".join(REGISTRY))
        spec = REGISTRY[name][1]
        params = s.get("params", {})
        if "params_file" in s:
            # [params] of a file written by `sim tune`; inline params override it. A
            # relative path is tried from the working directory, then the shipped configs.
            from ...config import load_toml

            path = s["params_file"]
            if not isinstance(path, str):
                raise ConfigError(prefix + "params_file", path, "a path to a TOML file")
            file = find_data_file(path)
            if file is None:
                raise ConfigError(prefix + "params_file", path, "an existing TOML file")
            data = load_toml(file)
            if not isinstance(data.get("params"), dict):
                raise ConfigError(prefix + "params_file", path, "a TOML file with a [params] table")
            made_for = data.get("strategy", name)  # presets share their policy's params
            if made_for not in REGISTRY or REGISTRY[made_for][0] != REGISTRY[name][0]:
                raise ConfigError(
                    prefix + "params_file",
                    path,
                    f"parameters of strategy {name!r} (the file is for {made_for!r})",
                )
            if not isinstance(params, dict):
                raise ConfigError(prefix + "params", params, "a table")
            params = {**data["params"], **params}
        check_keys(params, [n for n, _, _ in spec] or ["(none)"], prefix + "params.")
        resolved = {}
        for pname, default, _ in spec:
            resolved[pname] = get_float(params, pname, default, -1e6, 1e6, prefix + "params.")
        _check_limits(name, resolved, params, prefix + "params.")
        seat = {"strategy": name, "params": resolved}
        restrict = _resolve_restrict(s.get("restrict", {}), prefix + "restrict.", table)
        if restrict:  # absent = unrestricted, so unrestricted configs keep their config_id
            seat["restrict"] = restrict
        out.append(seat)
    if len(out) == 1 and players > 1:
        out = [dict(out[0]) for _ in range(players)]
    return out


#: what every column of a Bloody Inn dataset means (manifest ``facts.columns``)
COLUMNS = {
    "games": {
        "rounds": "rounds played (BI-G4 caps them)",
        "turns": "night actions taken, passes included",
        "winner": "winning seat after the tie-break (BI-G3), -1 if the win is shared",
        "n_winners": "seats sharing the win",
        "winners": "bit p set: seat p is among the winners",
        "truncated": "1 if the game hit rules.max_rounds before its end (BI-G4)",
        "deck_size": "travellers in the Entrance at the start (BI-S2)",
        "open_rooms": "rooms open at the end (keyed by a player or white)",
        "seasons_played": "seasons reached (BI-V7)",
        "invariant_error": "first invariant violation code, 0 none (rules.check_invariants)",
        "error_round": "round of that violation",
    },
    "seats": {
        "score": "francs at the end, cash plus cheques (BI-G2)",
        "place": "finishing place after the tie-break, 1 = won (shared places are equal)",
        "win": "1/k for each of the k seats that share the win, else 0",
        "lineup": "index of the seat's entry in the config's [[seats]] lineup",
        "cash": "cash at the end",
        "cheques": "cheques at the end (BI-N7)",
        "buried": "corpses this player buried",
        "buried_money": "francs this player took from corpses it buried",
        "kills": "travellers and peasants killed",
        "bribes": "travellers and peasants bribed",
        "builds": "annexes built",
        "fines": "francs paid in police fines (BI-M1, BI-G1)",
        "wages": "francs paid in wages (BI-M3)",
        "solo_lost": "1 if a solo game was lost with a corpse in the inn (BI-X2)",
        "annex_mask": "bit i set = built the annex of facts.annex_bits[i]",
        **{
            f"{what}_r{r}": f"travellers of rank {r} {what}"
            for what in ("bribed", "killed", "buried")
            for r in range(4)
        },
        "peasants_bribed": "peasants bribed",
        "peasants_killed": "peasants killed",
        "solo_rating": "BI-X3 rating of a solo game (long games only)",
    },
    "events": {
        "seq": "position of the event in its game",
        "round": "round of the event (0 = setup)",
        "phase": "evening, night, morning or end",
        "kind": "event kind (facts.event_kinds; a, b, c by kind: kernels/bloody_inn/layout.py Event)",
        "seat": "acting seat or -1",
        "card": "card instance or -1",
        "card_kind": "card id of that instance",
        "a": "first argument",
        "b": "second argument",
        "c": "third argument",
        "cash": "the seat's cash after the event",
        "cheques": "the seat's cheques after the event",
    },
    "trajectory": {
        "round": "round just played (1 = first); one row per seat at the end of each round (after its morning)",
        "seat": "seat",
        "cash": "cash at the end of the round",
        "cheques": "cheques at the end of the round (BI-N7)",
        "score": "score so far: cash + 10 x cheques (BI-G3) at the end of the round, before the final "
        "investigation (BI-G1) and end-of-game bonuses (BI-G2)",
        "annexes": "annexes built and standing",
        "hand": "cards in hand",
    },
}
PHASES = ("evening", "night", "morning", "end")


def annex_bits(kinds):
    """Indexes of the card kinds with an annex side, in ``annex_mask`` bit order (table
    order).  The one numbering the kernel, the manifest's facts and the analyses use; the
    referee numbers them again on its own (``sim.games.bloody_inn.referee.cards.annex_bits``)."""
    return [k for k, row in enumerate(kinds) if row["annex"] != "" and row["type"] != "aid"]


@functools.cache
def _traj_pool():
    """The trajectory columns' pool (``sim.buffers``), one per process."""
    return ColumnPool(T.TrajCols)


class BloodyInnAdapter:
    name = "bloody_inn"
    title = "The Bloody Inn (L'Auberge Sanglante)"
    #: the rules contract (../shared/rules/) and its rule-id prefix
    rules_contract = ("bloody-inn.md", "BI")
    min_players = 1
    max_players = 4
    duplicate_deals = True  # rotate = "duplicate" (kernels/bloody_inn/play.py)

    def __init__(self):
        self._table = None

    # -- configuration ----------------------------------------------------------------
    def base_table(self):
        if self._table is None:
            rows = cards.load_table()
            cards.check_table(rows)
            self._table = rows
        return self._table

    def resolve(self, raw):
        players = get_int(raw, "players", 3, self.min_players, self.max_players)
        table = cards.apply_edits(self.base_table(), raw.get("cards", {}))
        n_trav = sum(r["copies"] for r in table if r["type"] not in ("peasant", "aid"))
        rules = _resolve_rules(raw, players, n_trav)
        n_cards = n_trav * rules["deck_copies"] + 8
        if n_cards > L.MAXC:
            raise ConfigError(
                "rules.deck_copies", rules["deck_copies"], f"at most {L.MAXC} cards in all (now {n_cards})"
            )
        seats = _resolve_seats(raw, players, table)
        return {
            "game": self.name,
            "players": players,
            "rules": rules,
            "seats": seats,
            "cards": [r for r in table if r["type"] != "aid"],
        }

    def strategies(self):
        return [
            {
                "name": n,
                "description": d,
                "params": {p: v for p, v, _ in spec},
                "param_help": {p: h for p, _, h in spec},
            }
            for n, (_, spec, d) in REGISTRY.items()
        ]

    def tuning_bounds(self, strategy):
        return dict(BOUNDS[strategy]) if strategy in BOUNDS else {}

    def whole_params(self, strategy):
        """Parameters of ``strategy`` that only take whole numbers (``sim tune`` rounds them)."""
        limits = getattr(_STRATEGIES, "LIMITS", {}).get(strategy, {})
        return {n for n, (_, _, whole) in limits.items() if whole}

    def bench_config(self, players, lineup):
        return {"players": players, "rules": {"length": "long"}, "seats": [{"strategy": s} for s in lineup]}

    def bench_search(self):
        # a few seconds of CPU each on the reference machine; a decision is a night action
        # (BI-N1), the placements searched as first player (BI-E1) inside its cost
        return {
            "strategy": "search",
            "others": "expert",
            "games": {1: 24, 2: 16},
            "decision": "a night action of the search seat, its placements included",
        }

    def bench_targets(self):
        # the project's throughput targets on the reference 2-core machine, 1,000,000 games:
        # seconds, and games/s over the yardstick's on both cores (issues 17 and 31); the
        # typical seconds are the medians of `sim bench --targets --target-sittings 3`
        return [
            {
                "label": "bloody_inn 3p long, random at every seat",
                "config": {"game": self.name, **self.bench_config(3, ["random"])},
                "seconds": 8.0,
                "yardstick_ratio": 0.18,
                "typical_s": 7.4,
            },
            {
                "label": "bloody_inn 3p long, expert at every seat",
                "config": {"game": self.name, **self.bench_config(3, ["expert"])},
                "seconds": 20.0,
                "yardstick_ratio": 0.10,
                "typical_s": 14.3,
            },
        ]

    def dataset_facts(self, resolved):
        """Columns, event kinds, the card table as played (after what-if edits) with each
        annex's bit, the annex-bit order and the official deck sizes (BI-S2)."""
        kinds = resolved.get("cards") or [r for r in self.base_table() if r["type"] != "aid"]
        bits = annex_bits(kinds)
        bit_of = {k: i for i, k in enumerate(bits)}
        return {
            "columns": COLUMNS,
            "event_kinds": list(L.EVENT_NAMES),
            "actions": list(L.ACTION_NAMES),
            "phases": list(PHASES),
            "cards": [dict(row, annex_bit=bit_of.get(k, -1)) for k, row in enumerate(kinds)],
            "annex_bits": [kinds[k]["id"] for k in bits],
            "official_deck_size": {
                length: {str(n): DECK_SIZE[(length, n)] for n in range(1, 5)} for length in ("short", "long")
            },
            "rule_constants": {
                name: {"rule": c.rule, "printed": c.printed, "meaning": c.meaning}
                for name, c in RULE_CONSTANTS.items()
            },
        }

    def referee(self):
        from . import referee

        return referee

    def deals(self):
        from . import deals

        return deals

    def analyses(self):
        return ("cards", "deck", "power")

    def restrictions(self, resolved):
        return {"actions": list(RESTRICT_ACTIONS), "build": annex_ids(resolved["cards"])}

    # -- kernel arrays ----------------------------------------------------------------
    def build_template(self, resolved, *, events=False):
        """The state template (tables + rules), the parameter matrix and lineup names."""
        rules = resolved["rules"]
        kinds = resolved["cards"]
        st = np.zeros(L.STATE_END, dtype=np.int64)
        for f in (L.K_ANNEX_BIT, L.K_PER_COLOUR, L.K_DISCOUNT_ACT, L.K_END_COLOUR, L.K_MULTI):
            st[f : f + L.MAXK] = -1
        for bit, k in enumerate(annex_bits(kinds)):
            st[L.K_ANNEX_BIT + k] = bit
        for k, row in enumerate(kinds):
            annexable = row["annex"] != "" and row["type"] not in ("police", "peasant")
            st[L.K_ANNEXABLE + k] = int(annexable)
            for name, args in cards.parse_effect(row["effect"]):
                if name == "on_build_cash":
                    st[L.K_BUILD_CASH + k] += args[0]
                elif name == "on_build_cash_per_own_annex_of_colour":
                    st[L.K_PER_COLOUR + k] = cards.COLOURS.index(args[0])
                    st[L.K_PER_COLOUR_AMT + k] = args[1] if len(args) > 1 else 1
                elif name == "discount":
                    st[L.K_DISCOUNT_ACT + k] = cards.ACTIONS.index(args[0])
                    st[L.K_DISCOUNT_AMT + k] = args[1] if len(args) > 1 else 1
                elif name == "wage_reduction":
                    st[L.K_WAGE_FREE + k] = args[0]
                elif name == "leave_income":
                    st[L.K_LEAVE_INCOME + k] = args[0]
                elif name == "end_cash_per_exit_card_of_colour":
                    st[L.K_END_COLOUR + k] = cards.COLOURS.index(args[0])
                    st[L.K_END_COLOUR_AMT + k] = args[1]
                elif name == "end_cash_per_cheque":
                    st[L.K_END_CHEQUE + k] = args[0]
                elif name == "multi_target":
                    st[L.K_MULTI + k] = cards.ACTIONS.index(args[0])
                elif name == "room_service_token":
                    st[L.K_ROOM_SERVICE + k] = 1
                elif name == "peasant_bribe_limit":
                    st[L.K_PEASANT_LIMIT + k] = args[0]
                elif name == "replace_white_key":
                    st[L.K_MONK + k] = 1
                elif name == "bury_payment_returns":
                    st[L.K_CHAPEL + k] = 1
        # card instances: travellers (kind order x copies x deck_copies), then peasants
        inst = []
        for _ in range(rules["deck_copies"]):
            for k, row in enumerate(kinds):
                if row["type"] != "peasant":
                    inst.extend([k] * row["copies"])
        n_trav = len(inst)
        peasant_kind = next(k for k, r in enumerate(kinds) if r["type"] == "peasant")
        inst.extend([peasant_kind] * 8)
        for c, k in enumerate(inst):
            row = kinds[k]
            st[L.C_KIND + c] = k
            st[L.C_TYPE + c] = cards.TYPES.index(row["type"])
            st[L.C_COLOUR + c] = cards.COLOURS.index(row["colour"])
            st[L.C_AFF + c] = cards.ACTIONS.index(row["affinity"]) if row["affinity"] else -1
            st[L.C_RANK + c] = row["rank"]
            st[L.C_POCKET + c] = row["pocket"]
        st[L.G_NP] = resolved["players"]
        st[L.G_NCARDS] = len(inst)
        st[L.G_NTRAV] = n_trav
        st[L.G_NKINDS] = len(kinds)
        st[L.G_DECK_SIZE] = rules["deck_size"]
        st[L.G_SEASONS] = rules["seasons"]
        st[L.G_CAP] = rules["wealth_cap"]
        st[L.G_UNLIMITED] = int(rules["unlimited_wealth"])
        st[L.G_UNIQUE] = int(rules["unique_annexes"])
        st[L.G_WHITE_KEYS] = rules["white_keys_count"]
        st[L.G_VOLUNTARY] = int(rules["voluntary_dismissal"])
        st[L.G_STRICT] = int(rules["final_round"] == "strict")
        st[L.G_END_CAPPED] = int(rules["end_bonus_capped"])
        st[L.G_TIEBREAK_OWN] = int(rules["tiebreak"] == "buried_under_own_annexes")
        st[L.G_SEASON_ON_DRAW] = int(rules["season_change"] == "on_next_draw")
        st[L.G_RS_ANY] = int(rules["room_service_per_room"] == "any")
        st[L.G_MAX_ROUNDS] = rules["max_rounds"]
        for name, c in RULE_CONSTANTS.items():
            st[getattr(L, c.slot)] = rules[name]
        rotate = resolved.get("rotate", True)
        st[L.G_ROTATE] = L.ROTATE_DUPLICATE if rotate == "duplicate" else int(rotate)
        st[L.G_LOG] = int(events)
        st[L.G_CHECK] = int(rules["check_invariants"])
        lineup = resolved["seats"]
        st[L.G_NLINEUP] = len(lineup)
        # the second half is a search seat's room for its rollout policy's parameters
        params = np.zeros(2 * L.MAXP * L.MAXPARAM, dtype=np.float64)
        for i, seat in enumerate(lineup):
            sid, spec, _ = REGISTRY[seat["strategy"]]
            st[L.L_STRAT + i] = sid
            restrict = seat.get("restrict", {})
            for a in restrict.get("actions", []):
                st[L.L_FORBID + i] |= 1 << RESTRICT_BIT[a]
            for cid in restrict.get("build", []):
                st[L.L_NOBUILD + i] |= 1 << next(k for k, r in enumerate(kinds) if r["id"] == cid)
            for j, (pname, default, _) in enumerate(spec):
                # a manifest made before a parameter existed was played as SEARCH_PARAMS_BEFORE says
                params[i * L.MAXPARAM + j] = seat["params"].get(
                    pname, SEARCH_PARAMS_BEFORE.get(pname, default)
                )
        names = [s["strategy"] for s in lineup]
        return st, params, names, inst

    # -- simulation -------------------------------------------------------------------
    #: ``simulate_chunk`` can write the ``trajectory`` table (a row per seat and round)
    trajectory = True

    def simulate_chunk(self, resolved, start, count, *, events=False, trajectory=False):
        st, params, names, inst = self.build_template(resolved, events=events)
        players = resolved["players"]
        lineup = st[L.L_STRAT : L.L_STRAT + st[L.G_NLINEUP]]
        # a search game takes ~0.1-1 s: a block of its own each keeps the threads even
        block_games = 1 if (lineup == _STRATEGIES.SEARCH).any() else BLOCK_GAMES
        threads = numba.get_num_threads()
        bounds = block_bounds(
            count, block_count(count, threads, BLOCKS_PER_THREAD, block_games), threads, block_games
        )
        n_blocks = len(bounds) - 1
        games = alloc_columns(L.GameCols, count)
        seats = alloc_columns(L.SeatCols, count * players)
        per_block = int(np.diff(bounds).max())
        ev_rows = per_block * 600 if events else 0  # ~450 events in a 3p long game
        ev_game_cap = 8192
        tr_rows = per_block * players * TRAJECTORY_ROUNDS if trajectory else 0
        while True:
            traj = _traj_pool().take(n_blocks * tr_rows) if trajectory else None
            tr_count = np.zeros(n_blocks, dtype=np.int64)
            ev_out = np.zeros((n_blocks * ev_rows, L.EV_FIELDS + 1), dtype=np.int64)
            ev_count = np.zeros(n_blocks, dtype=np.int64)
            play_games(
                st,
                params,
                np.int64(resolved["seed"]),
                np.int64(start),
                np.int64(count),
                bounds,
                np.int64(ev_rows),
                np.int64(ev_game_cap),
                games,
                seats,
                ev_out,
                ev_count,
                traj,
                np.int64(tr_rows),
                tr_count,
            )
            if (tr_count < 0).any():
                tr_rows *= 2
                continue
            if not events or (ev_count >= 0).all():
                break
            # deterministic: a retry with larger buffers gives the same games
            if (ev_count == -2).any():
                ev_game_cap *= 4
            ev_rows = max(ev_rows * 2, ev_game_cap)
        return Chunk(
            games=self._games_table(resolved, start, count, games),
            seats=self._seats_table(resolved, start, count, seats, names),
            events=self._events_table(resolved, start, ev_out, ev_count, ev_rows, inst) if events else None,
            trajectory=self._trajectory_table(traj, tr_count, tr_rows) if trajectory else None,
        )

    @staticmethod
    def _trajectory_table(traj, tr_count, tr_rows):
        """The trajectory table: the kernel's columns (``TrajCols``, ``game_id`` first), each
        block's rows moved down in place to follow the previous block's, so the table is
        views of the kernel's arrays, lent by the pool they return to once the table is gone
        (``sim.buffers``): no copy into new arrays and no fresh memory to fault in."""
        at = 0
        for b, n in enumerate(tr_count):
            src = b * tr_rows
            if src != at:
                for col in traj:
                    col[at : at + n] = col[src : src + n]  # numpy buffers an overlap
            at += n
        return pa.table(_traj_pool().lend(traj, at))

    def _games_table(self, resolved, start, count, games):
        """The games table: ``game_id``, ``players``, then the kernel's columns as they are
        (``L.GameCols``, with ``deal`` after ``winners`` for duplicate deals)."""
        cols = games._asdict()
        if not resolved["rules"]["check_invariants"]:
            for name in L.CHECK_COLS:
                del cols[name]
        out = {
            "game_id": np.arange(start, start + count, dtype=np.int64),
            "players": np.full(count, resolved["players"], dtype=np.int8),
        }
        for name, col in cols.items():
            out[name] = col
            if name == "winners":
                out.update(self._deal_column(resolved, start, count))
        return pa.table(out)

    @staticmethod
    def _deal_column(resolved, start, count):
        """``deal`` of duplicate deals: the games of one deal share shuffle, keys and seats."""
        if resolved.get("rotate") != "duplicate":
            return {}
        return {"deal": np.arange(start, start + count, dtype=np.int64) // len(resolved["seats"])}

    def _seats_table(self, resolved, start, count, seats, names):
        """The seats table: ``game_id``, ``seat``, ``strategy``, then the kernel's columns as
        they are (``L.SeatCols``), then ``solo_rating`` in a solo game (BI-X3)."""
        players = resolved["players"]
        out = {
            "game_id": np.repeat(np.arange(start, start + count, dtype=np.int64), players),
            "seat": np.tile(np.arange(players, dtype=np.int8), count),
            "strategy": pa.array(names, type=pa.string()).take(pa.array(seats.lineup.astype(np.int32))),
            **seats._asdict(),
        }
        if players == 1:
            length = resolved["rules"]["length"]
            out["solo_rating"] = pa.array(
                [solo_rating(int(sc), bool(lo), length) for sc, lo in zip(seats.score, seats.solo_lost)],
                type=pa.string(),
            )
        return pa.table(out)

    def _events_table(self, resolved, start, ev_out, ev_count, ev_rows, inst):
        parts = [ev_out[b * ev_rows : b * ev_rows + n] for b, n in enumerate(ev_count) if n > 0]
        ev = np.concatenate(parts) if parts else np.zeros((0, L.EV_FIELDS + 1), np.int64)
        g = ev[:, 0]
        # seq: position of the event within its game (rows of a game are contiguous)
        idx = np.arange(len(g))
        first = np.r_[0, np.flatnonzero(np.diff(g)) + 1] if len(g) else np.zeros(0, np.int64)
        starts = np.repeat(first, np.diff(np.r_[first, len(g)]))
        kinds = resolved["cards"]
        card_kind_names = pa.array([kinds[k]["id"] for k in inst] + [None])
        card = ev[:, 1 + L.EV_CARD]
        card_idx = np.where(card >= 0, card, len(inst)).astype(np.int32)
        return pa.table(
            {
                "game_id": (start + g).astype(np.int64),
                "seq": (idx - starts).astype(np.int32),
                "round": ev[:, 1 + L.EV_ROUND].astype(np.int16),
                "phase": pa.array(list(PHASES)).take(pa.array(ev[:, 1 + L.EV_PHASE].astype(np.int32))),
                "kind": pa.array(list(L.EVENT_NAMES)).take(pa.array(ev[:, 1 + L.EV_KIND].astype(np.int32))),
                "seat": ev[:, 1 + L.EV_SEAT].astype(np.int8),
                "card": card.astype(np.int16),
                "card_kind": card_kind_names.take(pa.array(card_idx)),
                "a": ev[:, 1 + L.EV_A].astype(np.int32),
                "b": ev[:, 1 + L.EV_B].astype(np.int32),
                "c": ev[:, 1 + L.EV_C].astype(np.int32),
                "cash": ev[:, 1 + L.EV_CASH].astype(np.int16),
                "cheques": ev[:, 1 + L.EV_CHEQUES].astype(np.int16),
            }
        )


ADAPTER = BloodyInnAdapter()
