"""Cluedo state layout: card numbering, holders, enums and the offsets of the flat arrays.

A game lives in ONE flat ``int64`` array ``st`` (the "state"); the static tables of a run
(board adjacency, distances, clue deck, rules flags, lineup) live in ONE flat ``int64``
array ``tb`` of which every block of games gets its own copy.  Every helper therefore
takes ``(st, tb, ...)`` and nothing else, which keeps Numba's reference counting cheap and
keeps two threads off each other's cache lines.

Offsets below are plain module-level ints: Numba folds them into the compiled code.  The
output columns are ``NamedTuple`` tables (``GameCols``, ``SeatCols``; see
``kernels/layout_tools.py``): the one list of their names and dtypes, which the kernel writes
by name and the adapter allocates.
"""

from typing import NamedTuple

import numpy as np

from kernels.layout_tools import Alloc, enum_names

# --- cards (CL-C1/CL-C2) -----------------------------------------------------------
N_SUSPECTS = 6
N_WEAPONS = 6
N_ROOMS = 9
N_CARDS = 21
FIRST_WEAPON = 6
FIRST_ROOM = 12
ALL_CARDS = (1 << N_CARDS) - 1
CAT_SUSPECT = 0x3F
CAT_WEAPON = 0x3F << FIRST_WEAPON
CAT_ROOM = 0x1FF << FIRST_ROOM

# --- holders of a card: seats 0..5, the envelope, the face-down table (CL-2) ------------
MAX_PLAYERS = 6
ENVELOPE = 6
TABLE = 7
N_HOLDERS = 8

# --- board ---------------------------------------------------------------------------
# Node ids: rooms are nodes 0..8 (room index = card - FIRST_ROOM), squares follow.
MAX_NODES = 320
MAX_DEGREE = 6
FAR = 9999  # "unreachable" in the static distance table

N_CLUE_MAX = 64  # clue deck capacity (29 in the shipped deck)
N_PARAMS = 12  # float parameters per strategy (stored x PARAM_SCALE)
PARAM_SCALE = 1_000_000
MAX_CLAUSES = 48  # "holds at least one of" facts kept per player
EV_COLS = 8  # event row: seq, turn, seat, kind, a, b, c, d
SLOG_MAX = 256  # public suggestion log (search rollouts rebuild opponents' knowledge from it)
EV_BUF = 128  # events buffered per turn (setup: weapons, envelope, deal, up to 64 clue cards)


class Agent(NamedTuple):
    """Strategy ids (``sim strategies cluedo``)."""

    NAIVE: int = 0
    LOGIC: int = 1
    PROB: int = 2
    SEARCH: int = 3


AGENT = Agent()


class Effect(NamedTuple):
    """Clue-card effects (CL-K1..CL-K7)."""

    SHOW_SPECIFIC: int = 0
    NAME_SUSPECT: int = 1
    NAME_WEAPON: int = 2
    NAME_ROOM: int = 3
    CHOOSE_PLAYER_REVEALS: int = 4
    ALL_REVEAL: int = 5
    ALL_SHOW_LEFT: int = 6
    ALL_MOVE_TO_ROOM: int = 7
    NEW_PASSAGE: int = 8


EFFECT = Effect()
EFFECT_NAMES = (
    "show_specific",
    "name_suspect",
    "name_weapon",
    "name_room",
    "choose_player_reveals",
    "all_reveal",
    "all_show_left",
    "all_move_to_room",
    "new_passage",
)


class Ev(NamedTuple):
    """Event kinds of the optional event log (columns a, b, c, d by kind)."""

    ENVELOPE: int = 0  # a, b, c = solution suspect, weapon, room card
    DEAL: int = 1  # seat = holder (6 envelope, 7 face down), a = card, b = room (face down)
    WEAPON: int = 2  # a = weapon card, b = room index (setup)
    ROLL: int = 3  # a, b = dice (0 = no second die), c = loupes, d = 1 if a clue card was drawn
    CLUE: int = 4  # a = clue card number (1-based row), b = effect, c = choice (card/seat/room), d = -1
    REVEAL: int = 5  # seat = revealer, a = card, b = seen by (-1 everyone), c = 1 if no holder (a not held)
    MOVE: int = 6  # a = from node, b = to node, c = steps allowed, d = 1 passage / 2 clue / 3 suggestion
    SUGGEST: int = 7  # a, b, c = suspect, weapon, room card, d = refuting seat (-1 nobody)
    SHOW: int = 8  # seat = refuter, a = card shown, b = to seat
    ACCUSE: int = 9  # a, b, c = cards, d = 1 right / 2 wrong
    LOOK: int = 10  # a = face-down card looked at, b = room (CL-2.2)
    PASSAGE: int = 11  # a = room given the new passage (CL-K7)
    DEAL_START: int = 12  # a = seat dealt the first card (CL-S2), b = cards dealt to the players
    PILE: int = 13  # a = clue card number (1-based row), b = position from the top (setup)


EV = Ev()
EV_NAMES = enum_names(Ev, PASSAGE="new_passage")  # the event vocabulary: one source, the enum


# --- per-game state array ``st`` -----------------------------------------------------
_a = Alloc()
S_RNG = _a()  # counter-based stream state (kernels.rng)
S_GAME = _a()  # game id
S_N = _a()  # players
S_TURNS = _a()  # turns taken by all players
S_CUR = _a()  # seat to play
S_ROUNDS = _a()
S_WINNER = _a()  # seat or -1
S_OVER = _a()
S_TRUNC = _a()
S_CLUE_PTR = _a()  # top of the clue pile (cyclic: a drawn card goes under, CL-T2)
S_CLUE_DRAWN = _a()
S_NPILE = _a()  # clue cards in the pile (CL-K7: the new-passage card leaves it)
S_DEAL_START = _a()  # seat dealt the first card (CL-S2), independent of the first player
S_REC = _a()  # event mode: 0 off, 1 count, 2 write
S_NEV = _a()  # events buffered
S_EVSEQ = _a()  # events of this game so far
S_CHECK = _a()  # check invariants after every turn (tests)
S_VIOL = _a()  # invariant violations found
S_GEN = _a()  # BFS generation stamp
S_GEN2 = _a()  # generation stamp of the exact-move candidate check
S_NWRONG = _a()  # wrong accusations so far
S_CL_OVERFLOW = _a()  # clause facts dropped because a player's list was full
S_ENV0 = _a()  # envelope mask at setup (invariant check)
S_MOVE_STEPS = _a()  # steps allowed in the current move (event log)
S_TMP = _a(4)
S_POS = _a(6)  # node of each character's pawn (CL-S1: all 6 pawns on the board)
S_MOVED = _a(6)  # pawn moved into a room by another's suggestion / clue card (CL-T4)
S_WROOM = _a(6)  # room of each weapon
S_PASS = _a(9)  # secret-passage mask of each room (CL-C3, CL-K7)
S_OWNER = _a(N_CARDS)  # holder of each card
S_TRUE = _a(N_HOLDERS)  # true card mask of each holder
S_HSIZE = _a(N_HOLDERS)  # public number of cards of each holder
S_ROOMCARD = _a(9)  # face-down card in each room (CL-2.1), -1 none
S_CHAR = _a(6)  # seat -> character
S_SEATOF = _a(6)  # character -> seat, -1 unplayed
S_AGENT = _a(6)  # seat -> agent id
S_LINEUP = _a(6)  # seat -> lineup entry
S_PARAM = _a(6 * N_PARAMS)
S_ACTIVE = _a(6)  # 0 once eliminated (CL-T6)
S_TTAKEN = _a(6)
S_NSUGG = _a(6)
S_FIRST_ROOM = _a(6)
S_ACCUSED = _a(6)  # 0 none, 1 right, 2 wrong
S_LOOKED = _a(6)  # rooms whose face-down card the seat has looked at (CL-2.2)
S_STALE = _a(6)  # the seat's last suggestion taught it nothing: do not stay for another
S_PUBLIC = _a(N_HOLDERS)  # cards each holder revealed to everyone
S_SHOWN = _a(36)  # [j * 6 + i]: cards seat j showed seat i privately
S_WRONG = _a(18)  # wrong accusations (public): suspect, weapon, room card
S_DECK = _a(N_CLUE_MAX)  # clue pile order (row numbers of the clue table)
S_PROB = _a(6 * 24)  # prob agent: envelope probability per card (ppm), best triple, its ppm
# knowledge of each seat (see kernels.cluedo.knowledge)
K_HAS = 0
K_NOT = N_HOLDERS
K_NCL = 2 * N_HOLDERS
K_DIRTY = K_NCL + 1
K_VER = K_NCL + 2
K_EXVER = K_NCL + 3  # version of the last exact envelope check
K_EXRES = K_NCL + 4  # its result: packed triple or -1
K_CL = K_NCL + 5
K_SIZE = K_CL + MAX_CLAUSES
S_KN = _a(6 * K_SIZE)
S_XK = _a(K_SIZE)  # scratch knowledge block for the exact solver
# scratch
X_DIST = _a(MAX_NODES)
X_STAMP = _a(MAX_NODES)
X_QUEUE = _a(MAX_NODES)
X_VIS = _a(MAX_NODES)  # exact moves: squares on the current path (or occupied), self-clearing
X_BEST = _a(MAX_NODES)  # exact moves: longest path found to each square (valid with X_STAMP)
X_STK = _a(16)  # exact moves: the path (depth-first search stack) ...
X_NXT = _a(16)  # ... and the next neighbour to try at each depth
X_DV = _a(MAX_NODES)  # exact moves: distance of each square to one candidate end square ...
X_DVSTAMP = _a(MAX_NODES)  # ... valid while equal to S_GEN2
X_DVQ = _a(MAX_NODES)
X_CAND = _a(MAX_NODES)  # exact moves: candidate end squares of the agent, by closeness
X_ORDER = _a(N_CARDS)  # solver: card order
X_OPT = _a(N_CARDS)  # solver: next holder to try at each depth
X_ASG = _a(N_CARDS)  # solver: holder assigned at each depth
X_A = _a(N_HOLDERS)  # solver: cards assigned to each holder
X_REM = _a(N_HOLDERS)  # solver: free places of each holder
X_CNT = _a(324)  # prob agent: weight of each envelope triple (ppm-scaled)
X_W = _a(N_CARDS)
# restricted play (sim power) and the search player (kernels/cluedo/search.py)
S_FORBID = _a(6)  # seat -> restriction bits (R_*): choices the seat never makes
S_SDEC = _a(6)  # search seat -> samplings so far in this game (keys their random streams)
S_SKEY = _a()  # stream key of the run seed and game id (search sampling streams derive from it)
S_SACC = _a(6)  # search seat: triple decided before its turn, or one of the SACC_* codes
S_NSLOG = _a()  # suggestions logged
S_SLOG = _a(SLOG_MAX)  # public suggestion log: suggester | mask << 3 | (refuter + 1) << 24
S_EVB = _a(EV_BUF * EV_COLS)
STATE_SIZE = _a.n

# S_SACC codes (kernels/cluedo/rollout.py): a triple >= 0 is accused at the turn's start
SACC_BAR = -1  # no rollout decision: the threshold bar decides (agents.wants_accuse)
SACC_WAIT_START = -3  # a rollout's scratch game: no guess at this turn's start, the bar after
SACC_WAIT_TURN = -4  # no guess during this turn; the game loop decides after it

# restriction bits (sim power): a seat with the bit set never makes that choice
R_CLUE = 1  # never uses a loupe to draw a clue card (CL-T2)
R_PASSAGE = 2  # never takes a secret passage (CL-T3, CL-K7)
R_OWN = 4  # never names one of its own cards in a suggestion (CL-T5)
R_GAMBLE = 8  # accuses only when certain: at its first certainty, never on a probability (CL-T6)
ROTATE_DUPLICATE = 2  # T_ROTATE of rotate = "duplicate": the games of a deal share its stream

# --- per-run tables ``tb`` ------------------------------------------------------------
_t = Alloc()
T_NNODES = _t()
T_NPLAYERS = _t()
T_SEED = _t()
T_ROTATE = _t()
T_NLINEUP = _t()
# rules (CL-V1..CL-V7, CL-S3)
T_LOUPE_DICE = _t()
T_DICE = _t()
T_CLUE_ON = _t()
T_STAY = _t()  # 1 stay_and_suggest allowed, 0 classic
T_FIRST_CLASSIC = _t()  # 1 classic character order from Scarlett
T_TWO_RANDOM = _t()  # 1 face-down rooms random, 0 corner rooms
T_MAX_TURNS = _t()
T_CHARS_RANDOM = _t()
T_ROLL_ALWAYS = _t()  # 1 roll_every_turn = "yes": a stay or a passage still rolls (2023 booklet)
T_EXACT = _t()  # 1 move_steps = "exact": a walk uses the whole roll unless it enters a room
# numeric rule constants (sim.games.cluedo RULE_CONSTANTS): data, so a new value compiles nothing
T_DIE_FACES = _t()  # CL-C2: faces of each die (6), face 1 the loupe
T_CLUE_PILE = _t()  # CL-C2: clue cards shuffled into the pile (29: the whole deck)
T_CHARS = _t(6)  # configured characters per seat
T_CORNERS = _t(4)  # the four corner rooms (CL-2.1 default)
T_START = _t(6)  # start node of each character
T_PASS = _t(9)  # initial passage masks
T_NCLUE = _t()
T_CLUE = _t(2 * N_CLUE_MAX)  # effect, target card (-1) per clue row
T_LAGENT = _t(6)
T_LPARAM = _t(6 * N_PARAMS)
T_ADJ = _t(MAX_NODES * MAX_DEGREE)
T_SDIST = _t(9 * MAX_NODES)  # static walking distance from each room to each node
T_LFORBID = _t(6)  # lineup entry -> restriction bits (R_*)
T_XSTEP = _t(6)  # what-if: extra steps each character's walk gets (rules.extra_steps)
T_PERMUTE = _t()  # 1 characters = "permute": the deal's characters rotate over the seats
TABLE_SIZE = _t.n


# --- output columns (kernels/layout_tools.py: one typed 1-D array per column) ------------


class GameCols(NamedTuple):
    """One entry per game, written by ``play.play`` (the table: ``sim.games.cluedo``)."""

    rounds: np.int16
    turns: np.int32
    winner: np.int8  # seat that accused right, -1 nobody
    n_winners: np.int8
    truncated: np.int8
    solution_suspect: np.int8  # index among the suspects
    solution_weapon: np.int8
    solution_room: np.int8
    clue_cards_drawn: np.int16
    n_events: np.int64  # event rows of the game (event mode)
    violations: np.int32  # invariant violations found (check mode)
    clause_overflow: np.int32


class SeatCols(NamedTuple):
    """One entry per (game, seat), row ``game * players + seat``."""

    character: np.int8
    lineup: np.int8
    turns_taken: np.int16
    suggestions: np.int16
    first_room_turn: np.int16
    accused: np.int8
    known_cards: np.int8
    score: np.int16
    place: np.int8
    win: np.float32
