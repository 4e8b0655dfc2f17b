"""Cluedo adapter: config -> kernel tables, kernel columns -> Arrow tables.

Game data (board grid, doors, passages, the 21 cards, the 29 clue cards) is read from
``configs/cluedo/`` and checked when first used; the rules contract is
``../shared/rules/cluedo.md`` (ids CL-...).  See ``docs/cluedo.md`` for the columns.
"""

from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass
from functools import lru_cache

import numba
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kernels.cluedo import layout as L  # constants only: importing it compiles nothing
from kernels.layout_tools import alloc_columns, block_count
from sim.config import check_keys, check_seat_count, data_dir, get_choice, get_float, get_int
from sim.errors import ConfigError
from sim.games.lazy import lazy
from sim.registry import Chunk

walking_distances = lazy("kernels.cluedo.board", "walking_distances")  # compiled when first used

DATA_DIR = data_dir() / "cluedo"  # package data (sim.config.data_dir)

#: Blocks of games per thread in a chunk, at least ``BLOCK_GAMES`` games each (as for The
#: Bloody Inn, sim/games/bloody_inn/adapter.py).  The rows do not depend on the blocks.
BLOCKS_PER_THREAD = 32
BLOCK_GAMES = 100

# --- strategies ------------------------------------------------------------------------

#: slot of each parameter in the kernel's parameter vector (kernels.cluedo.agents.P_*)
PARAM_SLOTS = {
    "show": 0,
    "loupe": 1,
    "walk": 2,
    "exact": 3,
    "risk": 4,
    "samples": 5,
    "threshold": 6,
    "move": 7,
    "rollouts": 8,
    "margin": 9,
    "rsamples": 10,
    "tells": 11,
}
PARAM_RANGES = {
    "show": (0.0, 1.0),
    "loupe": (0.0, 1.0),
    "walk": (0.0, 100.0),
    "exact": (0.0, 324.0),
    "risk": (0.0, 1.0),
    "samples": (1.0, 1024.0),
    "threshold": (0.0, 1.0),
    "move": (0.0, 6.0),
    "rollouts": (0.0, 1024.0),
    "margin": (-1.0, 1.0),
    "rsamples": (1.0, 1024.0),
    "tells": (0.0, 1.0),
}

STRATEGIES = {
    "naive": (
        L.AGENT.NAIVE,
        "ticks only the cards it has seen; accuses when one unseen card is left per category",
        {"show": 0.0, "loupe": 1.0, "walk": 12.0},
    ),
    "logic": (
        L.AGENT.LOGIC,
        "complete card-location bookkeeping (has / has-not / at-least-one-of, hand "
        "sizes, one envelope card per category) propagated to a fixed point, exact "
        "search when few envelope triples remain; accuses when certain",
        {"show": 1.0, "loupe": 1.0, "walk": 12.0, "exact": 8.0},
    ),
    "prob": (
        L.AGENT.PROB,
        "logic plus envelope probabilities from sampled consistent deals; suggests the "
        "most uncertain cards and accuses when the likeliest triple reaches `risk`",
        {"show": 1.0, "loupe": 1.0, "walk": 12.0, "exact": 8.0, "risk": 0.85, "samples": 32.0},
    ),
    "search": (
        L.AGENT.SEARCH,
        "prob's bookkeeping and movement; names the suspect and weapon with the largest expected "
        "information gain over `samples` deals consistent with its knowledge (own cards included) "
        "and accuses when the likeliest triple reaches `threshold` per opponent, or at 3+ players "
        "with `rollouts` when the likeliest triple beats the win rate of waiting, played out on "
        "sampled deals; weighs its samples by what opponents' suggestions tell (`tells`)",
        {
            "show": 1.0,
            "loupe": 1.0,
            "walk": 12.0,
            "exact": 8.0,
            "samples": 256.0,
            "threshold": 0.75,
            "move": 2.0,
            "rollouts": 0.0,
            "margin": 0.0,
            "rsamples": 32.0,
            "tells": 0.3,
        },
    ),
}
PARAM_HELP = {
    "show": "1: show the least revealing card when refuting or revealing, 0: a random one",
    "loupe": "1: use a loupe to draw a clue card unless its step is needed to reach the target room; 0: always count it as 1",
    "walk": "stay in the current room and suggest when the nearest useful room is farther than this many steps",
    "exact": "settle the envelope by exact search when at most this many candidate triples remain (0: propagation only)",
    "risk": "accuse when the likeliest envelope triple has at least this probability",
    "samples": "consistent deals sampled per estimate (search: per decision)",
    "move": "search: with at most this many players it stays, takes a passage or walks where the expected information per turn is largest; with more it moves as prob (0: always as prob)",
    "rollouts": "search, 3+ players: sampled deals played out to the end to value waiting against accusing now with the likeliest triple (0: the threshold bar)",
    "margin": "search with rollouts: accuse when the likeliest triple's probability reaches the win rate of waiting plus this",
    "rsamples": "search with rollouts: the seat's samples per decision inside a rollout",
    "tells": "search: how surely an opponent's suggested suspect and weapon are cards it does not hold (agents name the cards they are unsure of); a sampled deal weighs 1 - tells for each named card the suggester holds in it (0: suggestions tell only who showed)",
    "threshold": "search: the chance that one opponent does not accuse right before the seat's next turn; it accuses once the likeliest triple reaches threshold ** (opponents still in)",
}

RULE_KEYS = (
    "loupe_dice",
    "dice",
    "clue_cards",
    "stay_and_suggest",
    "first_player",
    "two_player_rooms",
    "max_turns",
    "characters",
    "roll_every_turn",
    "move_steps",
    "extra_steps",
    "die_faces",
    "clue_pile",
)
#: The numbers of the printed rules a designer may tune: name -> (rule id, printed value, lo,
#: hi, meaning).  They reach the kernel as table entries (data, no compile per value).
RULE_CONSTANTS = {
    "die_faces": ("CL-C2", 6, 2, 15, "faces of each die (face 1 is the loupe, CL-V1)"),
    "clue_pile": ("CL-C2", 29, 0, 29, "clue cards shuffled into the pile (the rest stay in the box)"),
}
RULE_DEFAULTS = {
    "loupe_dice": 2,
    "dice": 2,
    "clue_cards": "on",
    "stay_and_suggest": "allowed",
    "first_player": "random",
    "two_player_rooms": "corners",
    "max_turns": 2000,
    "characters": "random",
    "roll_every_turn": "no",
    "move_steps": "exact",
    **{name: c[1] for name, c in RULE_CONSTANTS.items()},
}


# --- game data ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Board:
    """The board graph and card data read from ``configs/cluedo/``."""

    cards: tuple  # card ids, index = card number (0..20)
    names: tuple  # display names
    suspects: tuple
    weapons: tuple
    rooms: tuple
    n_nodes: int
    node_xy: tuple  # (col, row) of each square node; rooms: (-1, -1)
    adj: np.ndarray  # (MAX_NODES, MAX_DEGREE) int64, -1 padded
    start: tuple  # start node of each suspect
    passages: tuple  # 9 passage masks
    corners: tuple  # the four corner rooms (CL-2.1)
    clue: tuple  # (effect id, target card or -1) per clue card row
    clue_titles: tuple
    sdist: np.ndarray  # (9, MAX_NODES) walking distance from each room
    sha256: str

    def node(self, col, row):
        """Node id of the square at (col, row)."""
        return self.node_xy.index((col, row))

    def room(self, name):
        return self.rooms.index(name)


def _read_csv(name):
    with (DATA_DIR / name).open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@lru_cache(maxsize=1)
def load_board() -> Board:
    """Parse and check the board, doors, passages, cards and clue cards."""
    digest = hashlib.sha256()
    for fname in ("board.txt", "doors.csv", "passages.csv", "cards.csv", "clue_cards.csv"):
        digest.update((DATA_DIR / fname).read_bytes())
    rows = _read_csv("cards.csv")
    cards = tuple(r["id"] for r in rows)
    kinds = [r["kind"] for r in rows]
    if kinds != ["suspect"] * 6 + ["weapon"] * 6 + ["room"] * 9:
        raise ConfigError(
            "configs/cluedo/cards.csv:kind", kinds, "6 suspects, then 6 weapons, then 9 rooms (CL-C1)"
        )
    suspects, weapons, rooms = cards[:6], cards[6:12], cards[12:]
    symbol = {r["id"]: r["board"] for r in rows}
    corners = tuple(rooms.index(r["id"]) for r in rows[12:] if r["corner"] == "1")
    if len(corners) != 4:
        raise ConfigError("configs/cluedo/cards.csv:corner", corners, "exactly 4 corner rooms")

    lines = [
        ln.rstrip("\n")
        for ln in (DATA_DIR / "board.txt").read_text(encoding="utf-8").splitlines()
        if not ln.startswith("#")
    ]
    width = max(len(ln) for ln in lines)
    grid = [ln.ljust(width) for ln in lines]
    room_of_letter = {symbol[r].lower(): i for i, r in enumerate(rooms)}
    start_of_digit = {symbol[s]: i for i, s in enumerate(suspects)}
    node_xy = [(-1, -1)] * 9
    cell_node = {}
    start = [-1] * 6
    for y, line in enumerate(grid):
        for x, ch in enumerate(line):
            if ch == "." or ch.isdigit():
                cell_node[(x, y)] = len(node_xy)
                node_xy.append((x, y))
                if ch.isdigit():
                    if ch not in start_of_digit:
                        raise ConfigError("configs/cluedo/board.txt", ch, "start digits of cards.csv")
                    start[start_of_digit[ch]] = cell_node[(x, y)]
            elif ch.strip() and ch.lower() not in room_of_letter and ch.lower() != "x":
                raise ConfigError(
                    "configs/cluedo/board.txt", ch, "'.', digits, room letters of cards.csv, 'x' or ' '"
                )
    if -1 in start:
        raise ConfigError("configs/cluedo/board.txt", "start squares", "one per suspect (1..6)")
    n_nodes = len(node_xy)
    if n_nodes > L.MAX_NODES:
        raise ConfigError("configs/cluedo/board.txt", n_nodes, f"at most {L.MAX_NODES - 9} squares")
    nbrs = [[] for _ in range(n_nodes)]
    for (x, y), u in cell_node.items():
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            v = cell_node.get((x + dx, y + dy))
            if v is not None:
                nbrs[u].append(v)
    for i, d in enumerate(_read_csv("doors.csv")):
        key = f"configs/cluedo/doors.csv:{i + 2}"
        if d["room"] not in rooms:
            raise ConfigError(key, d["room"], "a room id of cards.csv")
        r = rooms.index(d["room"])
        dx, dy = int(d["doorway_col"]), int(d["doorway_row"])
        cx, cy = int(d["corridor_col"]), int(d["corridor_row"])
        if not (0 <= dy < len(grid) and 0 <= dx < width) or grid[dy][dx].lower() != symbol[rooms[r]]:
            raise ConfigError(key, (dx, dy), f"a square of the {rooms[r]} on the board")
        if (cx, cy) not in cell_node or abs(cx - dx) + abs(cy - dy) != 1:
            raise ConfigError(key, (cx, cy), "a corridor square next to the doorway")
        c = cell_node[(cx, cy)]
        if c not in nbrs[r]:
            nbrs[r].append(c)
            nbrs[c].append(r)
    adj = np.full((L.MAX_NODES, L.MAX_DEGREE), -1, np.int64)
    for u, vs in enumerate(nbrs):
        if len(vs) > L.MAX_DEGREE:
            raise ConfigError("configs/cluedo/board.txt", node_xy[u], f"at most {L.MAX_DEGREE} exits")
        adj[u, : len(vs)] = vs
    passages = [0] * 9
    for p in _read_csv("passages.csv"):
        a, b = rooms.index(p["room_a"]), rooms.index(p["room_b"])
        passages[a] |= 1 << b
        passages[b] |= 1 << a
    clue, titles = [], []
    for i, c in enumerate(_read_csv("clue_cards.csv")):
        key = f"configs/cluedo/clue_cards.csv:{i + 2}"
        if c["effect"] not in L.EFFECT_NAMES:
            raise ConfigError(key, c["effect"], " | ".join(L.EFFECT_NAMES))
        eff = L.EFFECT_NAMES.index(c["effect"])
        target = -1
        if eff == L.EFFECT.SHOW_SPECIFIC:
            if c["target"] not in cards:
                raise ConfigError(key, c["target"], "a card id of cards.csv")
            target = cards.index(c["target"])
        clue.append((eff, target))
        titles.append(c["title_fr"])
    if not 1 <= len(clue) <= L.N_CLUE_MAX:
        raise ConfigError("configs/cluedo/clue_cards.csv", len(clue), f"1 to {L.N_CLUE_MAX} cards")
    sdist = np.zeros((9, L.MAX_NODES), np.int64)
    walking_distances(adj, n_nodes, sdist)
    return Board(
        cards,
        tuple(r["name"] for r in rows),
        suspects,
        weapons,
        rooms,
        n_nodes,
        tuple(node_xy),
        adj,
        tuple(start),
        tuple(passages),
        corners,
        tuple(clue),
        tuple(titles),
        sdist,
        digest.hexdigest(),
    )


# --- configuration -------------------------------------------------------------------------


def _on_off(table, key, default, prefix, on, off):
    value = table.get(key, default)
    if value is True:
        value = on
    elif value is False:
        value = off
    if value not in (on, off):
        raise ConfigError(prefix + key, value, f"{on!r} | {off!r} (or true/false)")
    return value


def _int_choice(table, key, default, choices, prefix):
    value = table.get(key, default)
    if isinstance(value, bool) or value not in choices:
        raise ConfigError(prefix + key, value, " | ".join(str(c) for c in choices))
    return value


def _resolve_rules(raw, n):
    rules = raw.get("rules", {})
    check_keys(rules, RULE_KEYS, "rules.")
    p = "rules."
    out = {
        "loupe_dice": _int_choice(rules, "loupe_dice", 2, (2, 1, 0), p),  # CL-V1
        "dice": _int_choice(rules, "dice", 2, (2, 1), p),  # CL-V2
        "clue_cards": _on_off(rules, "clue_cards", "on", p, "on", "off"),  # CL-V3
        "stay_and_suggest": _on_off(rules, "stay_and_suggest", "allowed", p, "allowed", "classic"),  # CL-V4
        "first_player": get_choice(rules, "first_player", "random", ("random", "classic"), p),  # CL-V5
        "two_player_rooms": get_choice(
            rules, "two_player_rooms", "corners", ("corners", "random"), p
        ),  # CL-V6
        "max_turns": get_int(rules, "max_turns", 2000, 1, 1_000_000, p),  # CL-V7
        # the seed: a stay or a passage replaces the roll (*vous ne jetterez donc pas les dés*);
        # "yes" is the 2023 booklet (roll every turn, so a stay can draw a clue card)
        "roll_every_turn": _on_off(rules, "roll_every_turn", "no", p, "yes", "no"),
        # the seed: *déplacez-vous du score obtenu* (the whole roll unless entering a room, CL-T1)
        "move_steps": get_choice(rules, "move_steps", "exact", ("exact", "up_to"), p),
    }
    n_clue = len(load_board().clue)
    for name, (rule, printed, lo, hi, _) in RULE_CONSTANTS.items():
        hi = min(hi, n_clue) if name == "clue_pile" else hi
        value = rules.get(name, printed)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ConfigError(p + name, value, f"an integer from {lo} to {hi} ({rule}, printed {printed})")
        out[name] = value
    suspects = load_board().suspects
    chars = rules.get("characters", "random")  # CL-S3
    if chars == "permute":  # the deal's random characters rotate over the seats game by game
        if raw.get("rotate") != "duplicate":
            raise ConfigError(
                p + "characters", chars, '"permute" only with rotate = "duplicate" (it rotates within a deal)'
            )
    elif chars != "random":
        if (
            not isinstance(chars, list)
            or len(chars) != n
            or len(set(chars)) != n
            or any(c not in suspects for c in chars)
        ):
            raise ConfigError(
                p + "characters",
                chars,
                f"'random', 'permute' or a list of {n} distinct suspects from " + ", ".join(suspects),
            )
        chars = list(chars)
    out["characters"] = chars
    extra = _resolve_extra_steps(rules.get("extra_steps", {}), suspects, p + "extra_steps")
    if extra:  # absent = the rules (no extra step), so rule-true configs keep their config_id
        out["extra_steps"] = extra
    return out


def _resolve_extra_steps(value, suspects, key):
    """What-if ``extra_steps = { plum = 1 }``: steps added to a character's every walk (not a
    rule of the game: a handicap to measure what movement is worth, 0 by the rules)."""
    if not isinstance(value, dict):
        raise ConfigError(key, value, "a table of suspect = extra steps (0 to 12)")
    check_keys(value, suspects, key + ".")
    out = {}
    for c in suspects:
        if c in value:
            v = get_int(value, c, 0, 0, 12, key + ".")
            if v:
                out[c] = v
    return out


#: restricted play (``sim power``): seat ``restrict = { actions = [...] }`` -> kernel bit
RESTRICT_BIT = {
    "clue_cards": L.R_CLUE,  # never uses a loupe for a clue card (CL-T2)
    "passage": L.R_PASSAGE,  # never takes a secret passage (CL-T3)
    "own_cards": L.R_OWN,  # never names its own suspect or weapon card in a suggestion (CL-T5)
    "gamble": L.R_GAMBLE,  # accuses at its first certainty, never on a probability (CL-T6)
}
RESTRICT_ACTIONS = tuple(RESTRICT_BIT)


def _resolve_restrict(value, prefix):
    """``restrict = { actions = [...] }`` of one seat -> sorted list of actions."""
    if not isinstance(value, dict):
        raise ConfigError(prefix.rstrip("."), value, "a table { actions = [...] }")
    check_keys(value, ("actions",), prefix)
    acts = value.get("actions", [])
    if not isinstance(acts, list) or any(a not in RESTRICT_ACTIONS for a in acts):
        raise ConfigError(prefix + "actions", acts, "a list of " + ", ".join(RESTRICT_ACTIONS))
    return sorted(set(acts))


def _resolve_seat(entry, i):
    p = f"seats.{i}."
    check_keys(entry, ("strategy", "params", "restrict"), p)
    name = get_choice(entry, "strategy", None, tuple(STRATEGIES), p)
    defaults = STRATEGIES[name][2]
    given = entry.get("params", {})
    check_keys(given, tuple(defaults), p + "params.")
    params = {}
    for k, d in defaults.items():
        lo, hi = PARAM_RANGES[k]
        params[k] = get_float(given, k, d, lo, hi, p + "params.")
    out = {"strategy": name, "params": params}
    acts = _resolve_restrict(entry.get("restrict", {}), p + "restrict.")
    if acts:  # absent = unrestricted, so unrestricted configs keep their config_id
        out["restrict"] = {"actions": acts}
    return out


def resolve(raw):
    """Validate the Cluedo keys of a run config; return the complete resolved dict."""
    if "cards" in raw:
        raise ConfigError(
            "cards", raw["cards"], "no card edits for cluedo (edit configs/cluedo/clue_cards.csv)"
        )
    seats_raw = raw.get("seats", [{"strategy": "logic"}])
    if not isinstance(seats_raw, list) or not seats_raw:
        raise ConfigError("seats", seats_raw, "a non-empty list of {strategy, params} tables")
    default_n = len(seats_raw) if len(seats_raw) > 1 else 4
    n = get_int(raw, "players", default_n, 2, 6)
    check_seat_count(seats_raw, n)
    lineup = [
        _resolve_seat(e if isinstance(e, dict) else {"strategy": e}, i) for i, e in enumerate(seats_raw)
    ]
    if len(lineup) == 1:
        lineup = [dict(lineup[0], params=dict(lineup[0]["params"])) for _ in range(n)]
    board = load_board()
    return {"players": n, "rules": _resolve_rules(raw, n), "seats": lineup, "data": {"sha256": board.sha256}}


def strategies():
    return [
        {"name": k, "description": v[1], "params": dict(v[2]), "param_help": {p: PARAM_HELP[p] for p in v[2]}}
        for k, v in STRATEGIES.items()
    ]


# --- kernel tables -----------------------------------------------------------------------


def build_tables(resolved, seed=None):
    """The flat ``tb`` array of a resolved config (see kernels.cluedo.layout)."""
    b = load_board()
    r = resolved["rules"]
    n = resolved["players"]
    tb = np.zeros(L.TABLE_SIZE, np.int64)
    tb[L.T_NNODES] = b.n_nodes
    tb[L.T_NPLAYERS] = n
    tb[L.T_SEED] = resolved.get("seed", 0) if seed is None else seed
    rotate = resolved.get("rotate", True)
    tb[L.T_ROTATE] = L.ROTATE_DUPLICATE if rotate == "duplicate" else (1 if rotate else 0)
    tb[L.T_NLINEUP] = len(resolved["seats"])
    tb[L.T_LOUPE_DICE] = min(r["loupe_dice"], r["dice"])
    tb[L.T_DICE] = r["dice"]
    tb[L.T_CLUE_ON] = 1 if (r["clue_cards"] == "on" and r["loupe_dice"] > 0) else 0
    tb[L.T_STAY] = 1 if r["stay_and_suggest"] == "allowed" else 0
    tb[L.T_FIRST_CLASSIC] = 1 if r["first_player"] == "classic" else 0
    tb[L.T_TWO_RANDOM] = 1 if r["two_player_rooms"] == "random" else 0
    tb[L.T_MAX_TURNS] = r["max_turns"]
    tb[L.T_ROLL_ALWAYS] = 1 if r["roll_every_turn"] == "yes" else 0
    tb[L.T_EXACT] = 1 if r["move_steps"] == "exact" else 0
    tb[L.T_DIE_FACES] = r["die_faces"]
    tb[L.T_CLUE_PILE] = r["clue_pile"]
    if r["characters"] in ("random", "permute"):
        tb[L.T_CHARS_RANDOM] = 1
        tb[L.T_PERMUTE] = 1 if r["characters"] == "permute" else 0
    else:
        for i, c in enumerate(r["characters"]):
            tb[L.T_CHARS + i] = b.suspects.index(c)
    tb[L.T_CORNERS : L.T_CORNERS + 4] = b.corners
    tb[L.T_START : L.T_START + 6] = b.start
    tb[L.T_PASS : L.T_PASS + 9] = b.passages
    tb[L.T_NCLUE] = len(b.clue)
    for i, (eff, target) in enumerate(b.clue):
        tb[L.T_CLUE + 2 * i] = eff
        tb[L.T_CLUE + 2 * i + 1] = target
    for c, v in r.get("extra_steps", {}).items():
        tb[L.T_XSTEP + b.suspects.index(c)] = v
    for e, seat in enumerate(resolved["seats"]):
        tb[L.T_LAGENT + e] = STRATEGIES[seat["strategy"]][0]
        for a in seat.get("restrict", {}).get("actions", []):
            tb[L.T_LFORBID + e] |= RESTRICT_BIT[a]
        for k, v in seat["params"].items():
            tb[L.T_LPARAM + e * L.N_PARAMS + PARAM_SLOTS[k]] = int(round(v * L.PARAM_SCALE))
    tb[L.T_ADJ : L.T_ADJ + L.MAX_NODES * L.MAX_DEGREE] = b.adj.ravel()
    tb[L.T_SDIST : L.T_SDIST + 9 * L.MAX_NODES] = b.sdist.ravel()
    return tb


def run_arrays(resolved, start, count, *, events=False, check=False, threads=None, trajectory=False):
    """Play games ``start..start+count-1``; return ``(game_cols, seat_cols, events)``: dicts
    of NumPy arrays named and typed by ``L.GameCols`` / ``L.SeatCols`` (events: an (E, 8)
    int32 array or None).  ``check`` runs the invariant checks after every turn
    (``violations`` column).  ``trajectory``: a fourth item, the trajectory columns
    (``kernels.cluedo.trajectory.TrajCols``, ``rounds * players`` rows a game in game order),
    written by a second pass once the rounds are known (the play is the same: the rows are
    deterministic)."""
    from kernels import compile_once
    from kernels.cluedo import CACHE_DIR
    from kernels.cluedo.play import MODE_CHECK, MODE_EVENTS_COUNT, MODE_EVENTS_WRITE, MODE_TRAJECTORY, play
    from kernels.cluedo.trajectory import TrajCols

    if threads is not None:
        numba.set_num_threads(threads)
    n = resolved["players"]
    tb = build_tables(resolved)
    nblocks = block_count(count, numba.get_num_threads(), BLOCKS_PER_THREAD, BLOCK_GAMES)
    games = alloc_columns(L.GameCols, count)
    seats = alloc_columns(L.SeatCols, count * n)
    base = MODE_CHECK if check else 0
    ev_at = np.zeros(count, np.int64)
    ev = np.zeros((0, L.EV_COLS), np.int32)
    tr_at = np.zeros(count, np.int64)
    traj = alloc_columns(TrajCols, 0)
    rollouts = _rollouts(resolved)

    def _go(mode):
        # a thread takes the next block when done (by default Numba splits the blocks evenly
        # between the threads up front, and games of a mixed lineup differ 40-fold in cost)
        with numba.parallel_chunksize(1):
            play(tb, start, count, nblocks, mode, ev_at, ev, games, seats, tr_at, traj, rollouts)

    def _warm():  # a call that plays no game
        play(
            tb,
            start,
            0,
            1,
            base,
            ev_at[:0],
            ev,
            alloc_columns(L.GameCols, 0),
            alloc_columns(L.SeatCols, 0),
            tr_at[:0],
            traj,
            rollouts,
        )

    # compile (or load) the kernel variant first, one process at a time
    compile_once(CACHE_DIR, ("cluedo.play", rollouts is not None), _warm)

    g, s = games._asdict(), seats._asdict()
    if not events and not trajectory:
        _go(base)
        return g, s, None
    # a first pass counts each game's event rows and rounds, the second writes them
    _go(base | (MODE_EVENTS_COUNT if events else 0))
    last = base
    if events:
        ev_at[1:] = np.cumsum(g["n_events"])[:-1]
        ev = np.zeros((int(g["n_events"].sum()), L.EV_COLS), np.int32)
        last |= MODE_EVENTS_WRITE
    if trajectory:
        rows = g["rounds"].astype(np.int64) * n
        tr_at[1:] = np.cumsum(rows)[:-1]
        traj = alloc_columns(TrajCols, int(rows.sum()))
        last |= MODE_TRAJECTORY
    _go(last)
    out = (g, s, ev if events else None)
    return out + (traj._asdict(),) if trajectory else out


def _rollouts(resolved):
    """``np.int64(1)`` if a seat may accuse by rollouts (``search`` with ``rollouts`` at 3+
    players, ``kernels.cluedo.rollout.active``), else None: a run without them does not
    compile that code."""
    seats = resolved["seats"]
    used = resolved["players"] >= 3 and any(
        s["strategy"] == "search" and s["params"].get("rollouts", 0.0) >= 1.0 for s in seats
    )
    return np.int64(1) if used else None


def _names(names, idx):
    return pc.take(pa.array(list(names), pa.string()), pa.array(idx))


def _agent_label(seat):
    defaults = STRATEGIES[seat["strategy"]][2]
    diff = [f"{k}={v:g}" for k, v in seat["params"].items() if v != defaults[k]]
    return seat["strategy"] + (f"({','.join(diff)})" if diff else "")


def _deal_column(resolved, start, count):
    """``deal`` of duplicate deals: the games of one deal share its stream (characters, deal,
    first dice); one game per rotation of the lineup."""
    if resolved.get("rotate") != "duplicate":
        return {}
    return {"deal": np.arange(start, start + count, dtype=np.int64) // resolved["players"]}


def simulate_chunk(resolved, start, count, *, events=False, trajectory=False):
    """Play games ``start..start+count-1``; Arrow tables without ``config_id``."""
    b = load_board()
    n = resolved["players"]
    g, s, ev, *tr = run_arrays(resolved, start, count, events=events, trajectory=trajectory)
    game_id = np.arange(start, start + count, dtype=np.int64)
    # design.md: ``winner`` names the sole winner (-1 when nobody or several share) and bit
    # p of ``winners`` is set for every seat with a share of the win
    won = s["win"].reshape(count, n) > 0
    winners = (won * (1 << np.arange(n))).sum(axis=1).astype(np.int8)
    winner = np.where(g["n_winners"] == 1, g["winner"], -1).astype(np.int8)
    games = pa.table(
        {
            "game_id": game_id,
            "players": np.full(count, n, np.int8),
            "rounds": g["rounds"],
            "turns": g["turns"],
            "winner": winner,
            "n_winners": g["n_winners"],
            "truncated": g["truncated"],
            "winners": winners,
            **_deal_column(resolved, start, count),
            "solution_suspect": _names(b.suspects, g["solution_suspect"]),
            "solution_weapon": _names(b.weapons, g["solution_weapon"]),
            "solution_room": _names(b.rooms, g["solution_room"]),
            "clue_cards_drawn": g["clue_cards_drawn"],
        }
    )
    lineup_names = [e["strategy"] for e in resolved["seats"]]
    labels = [_agent_label(e) for e in resolved["seats"]]
    seats = pa.table(
        {
            "game_id": np.repeat(game_id, n),
            "seat": np.tile(np.arange(n, dtype=np.int8), count),
            "strategy": _names(lineup_names, s["lineup"]),
            "score": s["score"],
            "place": s["place"],
            "win": s["win"],
            "lineup": s["lineup"],
            "character": _names(b.suspects, s["character"]),
            "agent": _names(labels, s["lineup"]),
            "turns_taken": s["turns_taken"],
            "suggestions": s["suggestions"],
            "first_room_turn": s["first_room_turn"],
            "accused": s["accused"],
            "known_cards": s["known_cards"],
        }
    )
    events_t = None
    if events:
        gid = np.repeat(game_id, g["n_events"])
        events_t = pa.table(
            {
                "game_id": gid,
                "seq": ev[:, 0].astype(np.int32),
                "turn": ev[:, 1].astype(np.int32),
                "seat": ev[:, 2].astype(np.int8),
                "kind": _names(L.EV_NAMES, ev[:, 3]),
                "a": ev[:, 4].astype(np.int16),
                "b": ev[:, 5].astype(np.int16),
                "c": ev[:, 6].astype(np.int16),
                "d": ev[:, 7].astype(np.int16),
            }
        )
    return Chunk(games, seats, events_t, _trajectory_table(game_id, g["rounds"], n, tr[0]) if tr else None)


def _trajectory_table(game_id, rounds, n, tr):
    """``game_id``, then the kernel's columns, and ``score``: the seat's cards known while it
    is still in the game, 0 after a wrong accusation (CL-T6) (the knowledge race the
    experience question follows; Cluedo has no score until someone wins)."""
    return pa.table(
        {
            "game_id": np.repeat(game_id, rounds.astype(np.int64) * n),
            **tr,
            "score": (tr["known"] * tr["active"]).astype(np.int16),
        }
    )


#: what every column of a Cluedo dataset means (manifest ``facts.columns``; docs/cluedo.md)
COLUMNS = {
    "games": {
        "rounds": "rounds played",
        "turns": "turns taken by all players",
        "winner": "seat that accused right, -1 if nobody did",
        "n_winners": "1 if someone won, else 0",
        "winners": "bit p set: seat p is among the winners",
        "deal": 'the deal (rotate = "duplicate" only): its games share characters, cards and first dice',
        "truncated": "1 if the game hit rules.max_turns (CL-V7)",
        "solution_suspect": "suspect in the envelope (card id)",
        "solution_weapon": "weapon in the envelope (card id)",
        "solution_room": "room in the envelope (card id)",
        "clue_cards_drawn": "clue cards drawn",
    },
    "seats": {
        "score": "1 for the winner, else 0",
        "place": "1 for the winner, 2 for the others",
        "win": "1 for the winner, else 0",
        "lineup": "lineup entry the seat played (with rotate: (seat + game) mod players)",
        "character": "suspect the seat played (CL-S3)",
        "agent": "strategy name plus its non-default parameters",
        "turns_taken": "turns the seat took",
        "suggestions": "suggestions the seat made",
        "first_room_turn": "the seat's own turn number (from 1) of its first turn in a room, -1 never",
        "accused": "0 no accusation, 1 right, 2 wrong",
        "known_cards": "cards whose holder the seat's own knowledge determines at the end",
    },
    "trajectory": {
        "round": "round (1 = first); one row per seat at the end of each round and when the game ends",
        "seat": "seat",
        "known": "cards whose holder the seat's knowledge determines (after its deductions, CL-T5)",
        "candidates": "envelope triples the seat has not ruled out: no card seen in a hand, one of each "
        "category (CL-S2; 6 x 6 x 9 = 324 at most)",
        "active": "1 while the seat is in the game, 0 after a wrong accusation (CL-T6)",
        "score": "score so far for the experience question: cards known while in the game, else 0",
    },
    "events": {
        "seq": "position of the event in its game",
        "turn": "the game's turn counter",
        "seat": "acting seat (deal: holder, 6 envelope, 7 face down)",
        "kind": "event kind (facts.event_kinds; a, b, c, d by kind: docs/cluedo.md)",
        "a": "first argument",
        "b": "second argument",
        "c": "third argument",
        "d": "fourth argument",
    },
}


def tuning_bounds(strategy):
    return {k: PARAM_RANGES[k] for k in STRATEGIES[strategy][2]} if strategy in STRATEGIES else {}


def bench_config(players, lineup):
    return {"players": players, "seats": [{"strategy": s} for s in lineup]}


def bench_search():
    # a second or two of CPU on the reference machine; a decision is one of its turns (CL-T1..T6)
    return {"strategy": "search", "others": "prob", "games": {2: 40}, "decision": "a turn of the search seat"}


def bench_targets():
    # the project's throughput target on the reference 2-core machine, 1,000,000 games; the
    # typical seconds are the median of `sim bench --targets --target-sittings 3`
    return [
        {
            "label": "cluedo 4p, logic agents",
            "config": {"game": "cluedo", **bench_config(4, ["logic"])},
            "seconds": 100.0,
            "typical_s": 10.8,
        }
    ]


def dataset_facts(resolved):
    """Columns, event kinds, the cards in kernel order and the clue-card effects."""
    rows = _read_csv("cards.csv")  # not load_board(): the facts need no compiled code
    by_kind = {k: [r["id"] for r in rows if r["kind"] == k] for k in ("suspect", "weapon", "room")}
    return {
        "columns": COLUMNS,
        "event_kinds": list(L.EV_NAMES),
        "cards": [r["id"] for r in rows],
        "suspects": by_kind["suspect"],
        "weapons": by_kind["weapon"],
        "rooms": by_kind["room"],
        "clue_effects": list(L.EFFECT_NAMES),
        # what sim power's arms are called in a report (restricted play, CL-T2/T3/T5/T6)
        "restricted_play": {
            "title": "Causal power of the modern elements and the starting character (restricted play)",
            "kinds": {"action": "modern elements"},
            "arms": {
                "clue_cards": "clue cards (CL-T2)",
                "passage": "secret passages (CL-T3)",
                "own_cards": "naming own cards (CL-T5)",
                "gamble": "accusing before certain (CL-T6)",
            },
        },
        "rule_constants": {
            name: {"rule": rule, "printed": printed, "meaning": meaning}
            for name, (rule, printed, _, _, meaning) in RULE_CONSTANTS.items()
        },
    }


class _Adapter:
    name = "cluedo"
    duplicate_deals = True  # rotate = "duplicate" (kernels/cluedo/rules.py setup)
    title = "Cluedo (modern edition: loupe dice, 29 clue cards, 2-player mode)"
    #: the rules contract (../shared/rules/) and its rule-id prefix
    rules_contract = ("cluedo.md", "CL")
    min_players = 2
    max_players = 6
    resolve = staticmethod(resolve)
    strategies = staticmethod(strategies)
    tuning_bounds = staticmethod(tuning_bounds)
    bench_config = staticmethod(bench_config)
    bench_targets = staticmethod(bench_targets)
    bench_search = staticmethod(bench_search)
    dataset_facts = staticmethod(dataset_facts)
    simulate_chunk = staticmethod(simulate_chunk)
    #: ``simulate_chunk`` can write the ``trajectory`` table (a row per seat and round)
    trajectory = True

    def referee(self):
        # the independent Cluedo referee: its own package, written apart from the kernels
        from . import referee

        return referee

    def deals(self):
        from . import deals

        return deals

    def analyses(self):
        return ("characters", "power")

    def restrictions(self, resolved):
        # no annexes to bar; the modern edition's elements as actions, and the characters
        # permuted over the seats on the same deals (sim power's character arm)
        return {"actions": list(RESTRICT_ACTIONS), "build": [], "characters": True}


ADAPTER = _Adapter()


# --- explicit positions (tests, debugging) ---------------------------------------------------


def card_index(name):
    """Card number of a card id (``"plum"`` -> 5)."""
    return load_board().cards.index(name)


def new_state(resolved, game_id=0):
    """``(st, tb)`` of game ``game_id`` right after setup, for building explicit positions."""
    from kernels.cluedo.rules import setup

    tb = build_tables(resolved)
    st = np.zeros(L.STATE_SIZE, np.int64)
    setup(st, tb, game_id, resolved["players"], 0)
    return st, tb


def set_deal(st, hands, envelope, table=()):
    """Replace the deal of a state: ``hands`` one list of card ids per seat, ``envelope``
    (suspect, weapon, room) ids, ``table`` face-down (card id, room id) pairs (CL-2).
    Every player's knowledge restarts from its new hand."""
    from kernels.cluedo.knowledge import kbase, kn_init

    n = int(st[L.S_N])
    st[L.S_TRUE : L.S_TRUE + L.N_HOLDERS] = 0
    st[L.S_ROOMCARD : L.S_ROOMCARD + 9] = -1
    st[L.S_OWNER : L.S_OWNER + L.N_CARDS] = -1

    def put(h, c):
        c = card_index(c)
        st[L.S_OWNER + c] = h
        st[L.S_TRUE + h] |= 1 << c

    for p, hand in enumerate(hands):
        for c in hand:
            put(p, c)
    for c in envelope:
        put(L.ENVELOPE, c)
    for c, room in table:
        put(L.TABLE, c)
        st[L.S_ROOMCARD + load_board().room(room)] = card_index(c)
    if (
        st[L.S_TRUE : L.S_TRUE + L.N_HOLDERS].sum() != L.ALL_CARDS
        or (st[L.S_OWNER : L.S_OWNER + 21] < 0).any()
    ):
        raise ValueError("the deal must place each of the 21 cards exactly once")
    for h in range(L.N_HOLDERS):
        st[L.S_HSIZE + h] = bin(int(st[L.S_TRUE + h])).count("1")
    st[L.S_ENV0] = st[L.S_TRUE + L.ENVELOPE]
    for p in range(n):
        kn_init(st, kbase(p), p, n, n == 2)
