"""State layout of one Bloody Inn game: offsets into a single flat ``int64`` array.

A block of games (one per thread) owns one state array ``st``.  Its first part holds the
card and kind tables (copied once per block so the two threads never share them), the
rest is the state of the game being played, the decision scratch and the event buffer.
All offsets are module-level integers, which Numba folds into constants.

Enumerations are ``NamedTuple`` constants (vectorbt style) so Python code and the kernel
use the same names.  The output columns are ``NamedTuple`` tables too (``GameCols``,
``SeatCols``): the one list of their names and dtypes, read by the kernel that writes them
and the adapter that allocates them and hands them to Arrow.
"""

from typing import NamedTuple

import numpy as np

from kernels.layout_tools import Alloc, enum_names

MAXP = 4  # players (BI-S: 1-4)
MAXC = 512  # card instances (travellers x deck_copies + peasants)
MAXK = 32  # card kinds (29 in the table)
NROOMS = 8  # BI-S1
MAXPARAM = 32  # float parameters per strategy (search: its own + the heuristic's 16)
NCOL = 6  # colours
NACT = 5  # actions
ROTATE_DUPLICATE = 2  # G_ROTATE value of rotate = "duplicate"


class Action(NamedTuple):
    bribe: int = 0
    build: int = 1
    kill: int = 2
    bury: int = 3
    passing: int = 4  # pass / launder (BI-N7)


class Colour(NamedTuple):
    blue: int = 0
    red: int = 1
    purple: int = 2
    grey: int = 3
    green: int = 4
    yellow: int = 5


class CardType(NamedTuple):
    merchant: int = 0
    artisan: int = 1
    religious: int = 2
    police: int = 3
    noble: int = 4
    peasant: int = 5


class Loc(NamedTuple):
    box: int = 0
    entrance: int = 1
    exit: int = 2
    bistro: int = 3
    room: int = 4  # slot = room index
    hand: int = 8  # + player
    annex: int = 16  # + player
    corpse: int = 24  # + player (unburied)
    buried: int = 32  # + owner of the annex; slot = annex card, or BARN_SLOT - owner


ACTION = Action()
COLOUR = Colour()
CTYPE = CardType()
LOC = Loc()

BARN_SLOT = -10  # slot of a corpse under player p's Barn: BARN_SLOT - p
WHITE = 8  # R_KEY value of a white (neutral) key
CLOSED = -1  # R_KEY value of a room without key (closed all game)
NO_CARD = -1

# --- kind table (per kind, MAXK entries each) -------------------------------------
_region = Alloc()


K_ANNEXABLE = _region(MAXK)
K_ANNEX_BIT = _region(MAXK)  # bit of annex_mask, -1 if no annex
K_BUILD_CASH = _region(MAXK)  # on_build_cash(n)
K_PER_COLOUR = _region(MAXK)  # on_build_cash_per_own_annex_of_colour: colour or -1
K_PER_COLOUR_AMT = _region(MAXK)
K_DISCOUNT_ACT = _region(MAXK)  # discount(action): action or -1
K_DISCOUNT_AMT = _region(MAXK)
K_WAGE_FREE = _region(MAXK)  # wage_reduction(n)
K_LEAVE_INCOME = _region(MAXK)  # leave_income(n)
K_END_COLOUR = _region(MAXK)  # end_cash_per_exit_card_of_colour: colour or -1
K_END_COLOUR_AMT = _region(MAXK)
K_END_CHEQUE = _region(MAXK)  # end_cash_per_cheque(n)
K_MULTI = _region(MAXK)  # multi_target(action) or -1
K_ROOM_SERVICE = _region(MAXK)  # room_service_token
K_PEASANT_LIMIT = _region(MAXK)  # peasant_bribe_limit(n), 0 = none
K_MONK = _region(MAXK)  # replace_white_key
K_CHAPEL = _region(MAXK)  # bury_payment_returns
K_FIELDS_END = _region.n

# --- card instance table (per card, MAXC entries each) ----------------------------
C_KIND = _region(MAXC)
C_TYPE = _region(MAXC)
C_COLOUR = _region(MAXC)
C_AFF = _region(MAXC)  # affinity action, -1 none
C_RANK = _region(MAXC)
C_POCKET = _region(MAXC)
TABLES_END = _region.n  # st[:TABLES_END] is copied once per block

# --- globals of the game -----------------------------------------------------------
G_NP = _region(1)
G_NCARDS = _region(1)
G_NTRAV = _region(1)
G_NKINDS = _region(1)
G_DECK_SIZE = _region(1)
G_SEASONS = _region(1)  # BI-V7
G_CAP = _region(1)  # BI-V10
G_UNLIMITED = _region(1)  # BI-V10 unlimited_wealth
G_UNIQUE = _region(1)  # BI-V3
G_WHITE_KEYS = _region(1)  # BI-V4 (resolved count)
G_VOLUNTARY = _region(1)  # BI-V5
G_STRICT = _region(1)  # BI-V6 final_round = strict
G_END_CAPPED = _region(1)  # BI-V8
G_TIEBREAK_OWN = _region(1)  # BI-V9 buried_under_own_annexes
G_SEASON_ON_DRAW = _region(1)  # BI-V11 season_change = on_next_draw (0: when_empty, BI-E3)
G_RS_ANY = _region(1)  # BI-V12 room_service_per_room = any (0: at most one token per room)
G_MAX_ROUNDS = _region(1)  # BI-G4
# numeric rule constants, set from ``[rules]`` (the adapter's ``RULE_CONSTANTS`` names each
# with its rule id and printed value): state, not code, so a new value needs no compile
G_START_CASH = _region(1)  # BI-S3 cash on the track at the start
G_START_CHEQUES = _region(1)  # BI-S3 cheques at the start
G_START_PEASANTS = _region(1)  # BI-S3 peasants dealt to each hand
G_SOLO_BISTRO = _region(1)  # BI-X1 peasants in the Bistro at the start of a solo game
G_ROOM_SERVICE = _region(1)  # BI-E2 francs per rank of a traveller placed on a token
G_PEAS_BRIBE = _region(1)  # BI-N3 peasants one bribe may take (without the Brewery)
G_POLICE_MIN = _region(1)  # BI-M1 police travellers in the inn that make an investigation
G_FINE = _region(1)  # BI-M1 francs per unburied corpse (a multiple of 10)
G_LEAVE = _region(1)  # BI-M2 francs per own-keyed room holding a traveller
G_WAGE = _region(1)  # BI-M3 francs per accomplice kept
G_FINAL_FINE = _region(1)  # BI-G1 francs per unburied corpse at the end (a multiple of 10)
G_ROTATE = _region(1)  # 0 fixed lineup, 1 rotate, ROTATE_DUPLICATE: each deal once per rotation
G_NLINEUP = _region(1)
G_LOG = _region(1)  # log events
G_CHECK = _region(1)  # check invariants after every step
G_GAME_ID = _region(1)
G_RNG = _region(1)  # counter-based stream state (kernels.rng)
G_ROUND = _region(1)
G_SEASON = _region(1)
G_FIRST = _region(1)  # first player of the current round
G_ENT_N = _region(1)  # Entrance holds ENT[G_ENT_POS:G_ENT_N]
G_ENT_POS = _region(1)
G_LAST_ROUND = _region(1)  # BI-E4 triggered
G_OVER = _region(1)
G_TRUNC = _region(1)
G_TURNS = _region(1)
G_OPEN_ROOMS = _region(1)
G_ERR = _region(1)  # first invariant violation code (0 none)
G_ERR_ROUND = _region(1)
G_EV_N = _region(1)  # events logged for this game
G_EV_CAP = _region(1)  # capacity of the event buffer (rows)
G_EV_OVERFLOW = _region(1)
G_PHASE = _region(1)  # 0 evening, 1 night, 2 morning, 3 end (for events)
G_FINAL_FP = _region(1)
G_FREE_SPACE = _region(1)  # free burial places over every annex and Barn
# the rooms holding a traveller, bit r for room r (kept beside R_CARD by every writer): the
# heuristic visits only these, without a branch per room that it cannot predict
G_INN = _region(1)
G_INN_N = _region(1)  # ... how many, and how many of them are police
G_INN_POLICE = _region(1)
# a decision made ahead of its turn (search: the decision to play; its rollouts: the
# candidate under test).  ``decide_action`` plays it when G_STASH = G_TURNS + 1 and the
# seat matches; D_T / D_DEST hold its targets.
G_STASH = _region(1)
G_STASH_SEAT = _region(1)
G_STASH_ACTION = _region(1)
G_STASH_NT = _region(1)
G_STASH_PEAS = _region(1)
G_STASH_LAUNDER = _region(1)
G_REC = _region(1)  # 1: the heuristic records every candidate it values (search)
G_SEARCH_AT = _region(1)  # offset of the search's two work states in ``st`` (0: none)

# --- lineup (per lineup entry) ----------------------------------------------------
L_STRAT = _region(MAXP)
# restricted play (sim power's arms): bit ``a`` of L_FORBID forbids action ``a`` (bit ACTION.passing
# forbids laundering; the pass itself stays legal); bit ``k`` of L_NOBUILD: never build kind k
L_FORBID = _region(MAXP)
L_NOBUILD = _region(MAXP)

# --- per player (MAXP entries each unless noted) -----------------------------------
P_STRAT = _region(MAXP)  # strategy id of this seat in this game
P_LINEUP = _region(MAXP)  # lineup entry playing this seat
P_FORBID = _region(MAXP)  # L_FORBID of the lineup entry playing this seat
P_NOBUILD = _region(MAXP)  # L_NOBUILD of the lineup entry playing this seat
P_CASH = _region(MAXP)
P_CHEQUES = _region(MAXP)
P_BARN_FILL = _region(MAXP)
# free burial places of each player, its Barn's and its annexes' (kept by setup, build and
# bury beside G_FREE_SPACE, their sum): the heuristic reads them at every decision
P_FREE_SPACE = _region(MAXP)
P_BURIED = _region(MAXP)  # corpses this player buried (BI-G3 tie-break)
P_BURIED_OWN = _region(MAXP)  # corpses under this player's annexes (BI-V9 alternative)
P_BURIED_MONEY = _region(MAXP)
P_KILLS = _region(MAXP)
P_BRIBES = _region(MAXP)
P_BUILDS = _region(MAXP)
P_FINES = _region(MAXP)
P_WAGES = _region(MAXP)
P_ANNEX_MASK = _region(MAXP)
P_KINDS_OWNED = _region(MAXP)  # bit per kind built (BI-V3)
P_PEAS_BRIBED = _region(MAXP)
P_PEAS_KILLED = _region(MAXP)
P_SOLO_LOST = _region(MAXP)
P_SCORE = _region(MAXP)
P_PLACE = _region(MAXP)
P_WINNER = _region(MAXP)  # 1 if among the winners
P_WAGE_FREE = _region(MAXP)  # Distillery
P_LEAVE_INCOME = _region(MAXP)  # Gardens
P_PEAS_LIMIT = _region(MAXP)  # Brewery (2 without)
P_CHAPEL = _region(MAXP)
P_END_CHEQUE = _region(MAXP)  # Greenhouse
P_DISCOUNT = _region(MAXP * NACT)  # [p * NACT + action]
P_MULTI = _region(MAXP * NACT)
P_END_COLOUR = _region(MAXP * NCOL)  # francs per Exit card of a colour [p * NCOL + colour]
P_COL_ANNEX = _region(MAXP * NCOL)  # annexes built per colour
P_BRIBED_R = _region(MAXP * 4)  # travellers bribed by rank [p * 4 + rank]
P_KILLED_R = _region(MAXP * 4)
P_BURIED_R = _region(MAXP * 4)

# --- rooms -------------------------------------------------------------------------
R_KEY = _region(NROOMS)  # owner seat, WHITE, or CLOSED
R_CARD = _region(NROOMS)  # traveller in the room or -1
R_TOKENS = _region(NROOMS * MAXP)  # Room-Service tokens [room * MAXP + owner]
G_N_EMPTY = _region(1)  # open rooms still empty this evening ...
R_EMPTY = _region(NROOMS)  # ... and their list (filled by ``evening``)

# --- card lists ---------------------------------------------------------------------
# Hands, unburied corpses, annexes, the Bistro and the Exit are kept as lists (with each
# card's position in its list) so rules and strategies walk a hand of five cards instead
# of scanning every card; ``move_card`` maintains them.  The counters below are the list
# lengths.
L_HAND = 0  # + player
L_CORPSE = 4  # + player
L_ANNEX = 8  # + player
L_BISTRO = 12
L_EXIT = 13
NLISTS = 14
LIST_N = _region(16)
LISTS = _region(NLISTS * MAXC)  # list l occupies LISTS + l * MAXC ...
P_HAND_N = LIST_N + L_HAND
P_CORPSE_N = LIST_N + L_CORPSE
P_ANNEX_N = LIST_N + L_ANNEX
G_BISTRO_N = LIST_N + L_BISTRO
G_EXIT_N = LIST_N + L_EXIT

# --- card state (per card) ---------------------------------------------------------
C_POS = _region(MAXC)  # position of the card in its list
C_LOC = _region(MAXC)
C_SLOT = _region(MAXC)  # room index / annex card / BARN_SLOT - owner
C_FILL = _region(MAXC)  # corpses buried under this annex
ENT = _region(MAXC)  # Entrance order (ENT[G_ENT_POS] is the public top card)

# --- decision scratch ---------------------------------------------------------------
D_ACTION = _region(1)
D_NT = _region(1)  # number of targets / peasants
D_PEASANTS = _region(1)  # 1 when the bribe/kill takes peasants from the Bistro
D_LAUNDER = _region(1)  # + cheques bought, - cheques cashed
D_COST = _region(1)
D_NPAY = _region(1)
D_T = _region(MAXC)  # targets (cards)
D_DEST = _region(MAXC)  # bury destinations: annex card or BARN_SLOT - owner
D_PAY = _region(MAXC)  # payment cards
S_A = _region(MAXC)  # scratch lists for strategies
S_B = _region(MAXC)
S_C = _region(MAXC)
S_D = _region(MAXC)
S_E = _region(MAXC)
S_CAP = _region(MAXC)  # free capacity per annex card during a multi-bury
S_BARNCAP = _region(MAXP)

STATE_END = _region.n
# the search's ISMCTS tree (strat_search): at most one node per iteration plus the root, and an
# iteration count never above the largest ``budget`` (4096, search_params.SEARCH_BOUNDS)
TREE_NODES = 4097
NODE_W = 9  # ints per tree node (strat_search.N_*)
#: ``tree_reuse``: per seat, the children of the action it last chose (the next root's)
REUSE_MAX = 64  # most kept (a child per distinct next action met in the samples)
REUSE_W = 2 + REUSE_MAX * 7  # game id + 1 (0: nothing kept), count, then per child its 7 ints
REUSE_AT = 2 * STATE_END + TREE_NODES * NODE_W  # after the work states and the tree
SEARCH_SCRATCH = REUSE_AT + MAXP * REUSE_W  # two work states (a sample, a rollout), the tree, kept children
EV_FIELDS = 10  # seq is the row index; see EV_* below
EV_BASE = STATE_END  # event rows follow; buffer size chosen at run time
EV_ROUND, EV_KIND, EV_SEAT, EV_CARD, EV_A, EV_B, EV_C, EV_CASH, EV_CHEQUES, EV_PHASE = range(10)


class Event(NamedTuple):
    """Event kinds of the log (``events`` table, column ``kind``)."""

    deck: int = 0  # setup: card at Entrance position a
    box: int = 1  # setup: card put back in the box unseen
    key: int = 2  # setup: room a keyed by seat (-1 white)
    deal: int = 3  # setup: peasant dealt to seat's hand
    bistro: int = 4  # setup: peasant to the Bistro (solo)
    round: int = 5  # round a starts, first player = seat
    place: int = 6  # evening: card placed in room a
    room_service: int = 7  # token owner seat gains a (from the traveller card in room b)
    season: int = 8  # season change: card at new Entrance position a
    last_round: int = 9  # BI-E4 trigger; a = travellers in the inn, b = 1 if the round is played
    bribe: int = 10  # seat takes card from room a (a = -1: peasant from the Bistro)
    build: int = 11  # seat builds card; a = cost paid
    kill: int = 12  # seat kills card from room a (-1: Bistro)
    bury: int = 13  # seat buries corpse card under annex a (b = owner, c = money to burier)
    bury_share: int = 14  # annex owner seat receives a from a burial
    pay: int = 15  # seat pays with card; a = 1 returned to hand, 0 discarded
    launder: int = 16  # a = cheques bought (+) or cashed (-)
    passing: int = 17  # seat passes
    effect_cash: int = 18  # on-build cash a from annex card
    token: int = 19  # Room-Service token placed by seat in room a
    monk_key: int = 20  # seat's key replaces the white key of room a
    investigation: int = 21  # seat fined: a corpses, b cash paid, c cheques paid (BI-M1: the seat's split)
    corpse_boxed: int = 22  # card (corpse) goes to the box
    leave_income: int = 23  # seat gains a (b = rooms with travellers, c = Gardens)
    to_exit: int = 24  # card leaves the inn for the Exit
    wages: int = 25  # seat pays a in wages (b = cards kept, c = free by Distillery)
    dismiss: int = 26  # seat dismisses card
    first_player: int = 27  # first player passes to seat
    end_bonus: int = 28  # seat gains a from annex card at scoring (b = count)
    score: int = 29  # seat: a score, b place, c tie-break value
    solo_lost: int = 30  # seat loses the solo game (BI-X2)
    truncated: int = 31  # safety cap reached (BI-G4)
    final_investigation: int = 32  # seat fined at game end: a corpses, b cash, c cheques (its split)
    discard: int = 33  # card discarded from a room at game end (BI-G1)
    action: int = 34  # a night action starts: a = action id, b = targets (peasants), c = cost after discount


EVENT = Event()
EVENT_NAMES = enum_names(Event)
ACTION_NAMES = enum_names(Action)


# --- output columns (kernels/layout_tools.py: one typed 1-D array per column) ---------
# The kernel (``play._write_rows``) writes row g of each by name; the adapter allocates them
# with their final dtype and passes them to Arrow as they are, in this order.


class GameCols(NamedTuple):
    """``games`` table, one entry per game (meanings: ``sim.games.bloody_inn.COLUMNS``)."""

    rounds: np.int16
    turns: np.int32
    winner: np.int8
    n_winners: np.int8
    truncated: np.int8
    winners: np.int8  # bit p: seat p is among the winners
    deck_size: np.int16
    open_rooms: np.int8
    seasons_played: np.int8
    invariant_error: np.int16  # written to the table only with rules.check_invariants
    error_round: np.int16


#: the games columns only a run with ``rules.check_invariants`` writes to its table
CHECK_COLS = ("invariant_error", "error_round")


class SeatCols(NamedTuple):
    """``seats`` table, one entry per (game, seat), row ``g * players + seat``."""

    score: np.int16
    place: np.int8
    win: np.float32  # 1/k for each of the k seats sharing the win, else 0
    lineup: np.int8
    cash: np.int16
    cheques: np.int16
    buried: np.int16
    buried_money: np.int16
    kills: np.int16
    bribes: np.int16
    builds: np.int16
    fines: np.int16
    wages: np.int16
    solo_lost: np.int8
    annex_mask: np.int32
    bribed_r0: np.int16
    bribed_r1: np.int16
    bribed_r2: np.int16
    bribed_r3: np.int16
    killed_r0: np.int16
    killed_r1: np.int16
    killed_r2: np.int16
    killed_r3: np.int16
    buried_r0: np.int16
    buried_r1: np.int16
    buried_r2: np.int16
    buried_r3: np.int16
    peasants_bribed: np.int16
    peasants_killed: np.int16
