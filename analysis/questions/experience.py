"""Experience: is the game tense?  Lead changes, when the winner is decided, comebacks,
kingmaking, score spread, game length and downtime, from the trajectory table
(``sim run --trajectory``: each seat's score so far after every round).

Definitions (docs/analysis.md, "Experience"; after Browne's evaluation metrics, *Automatic
generation and evaluation of recombination games*, 2008, as in Ludii: lead changes,
decisiveness, drama; and the comeback-by-deficit curves of AI play-test reports):

* **score path**: a seat's score so far after rounds 1..R (R = the game's rounds; the
  trajectory's ``score``, in The Bloody Inn cash + 10 x cheques, in francs), then its
  final place as step R + 1 (the end-of-game scoring and tie-break: The Bloody Inn's BI-G1-G3).
* **leader** after a step: the seat alone at the top of the score so far; at step R + 1 the
  game's winner (none when the win is shared).  A tie at the top names no leader and the
  last sole leader is kept: a tie is not a lead change.
* **lead changes**: how many times the kept leader differs from the one of the step before,
  from the first step with a sole leader on.
* **decided round**: the first step from which the eventual winner is the sole leader at
  every later step (1..R, or R + 1 when only the end-of-game scoring gives it the win);
  none for a shared win.  **Decided late**: decided round >= R (the winner took the lead for
  good in the last round or at the final scoring).
* **comeback**: after round r (r = 1..R; rounds left = R - r, 0 = only the final scoring
  left), a seat behind the sole or shared top score by d > 0 points; its result is its win
  share (1, 1/k for a k-way shared win, 0).  Binned by d and rounds left.
* **out of contention** (kingmaking): after round R - 1, a seat behind the top by more
  points than any eventual winner in the same group (player count and swept parameters)
  overcame with one round left.  **Kingmaker game** (3+ seats): a seat out of contention is
  still playing and the sole leader after round R - 1 does not win: the win changed hands
  in the last round while a seat with nothing to win played.  It is an association: the
  trajectory cannot show that the seat's choices made the difference (restricted play can).
* **spread**: final score of the first place minus the last; **margin**: first minus
  second.  **Downtime**: turns (the games' ``turns``: in The Bloody Inn night actions, passes
  included) per seat per round, and the other seats' turns a seat waits through per round.

Every number comes with a 95% interval.  A game is the unit: means get a t interval over
games, shares of games Wilson's interval, and the comeback shares (several seats and rounds
of one game in a cell) Wilson's interval at the game-clustered effective size
(``stats.clustered_shares``).  All of them describe play by the strategies in the lineup:
they change with the players' strength.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from ..metrics import Metric, question, register
from ..stats import Z95, clustered_shares, t_quantile, wilson

#: lower edges of the deficit bins (score points behind the top score) of the comeback curve
DEFICIT_EDGES = (1, 5, 10, 20, 30, 50)
#: lower edges of the rounds-left bins of the comeback curve (0 = only the final scoring left)
ROUNDS_LEFT_EDGES = (0, 1, 2, 3, 5, 8)
KEY = ("point", "game_id")


def _bin_labels(edges):
    return [f"{a}-{b - 1}" if b - 1 > a else f"{a}" for a, b in zip(edges[:-1], edges[1:])] + [
        f"{edges[-1]}+"
    ]


def _binned(col, edges):
    """``col`` put in the bins starting at ``edges`` (values below the first edge: null)."""
    labels = _bin_labels(edges)
    expr = pl.lit(None, dtype=pl.String)
    for edge, label in zip(edges, labels):
        expr = pl.when(pl.col(col) >= edge).then(pl.lit(label)).otherwise(expr)
    return expr


def _keyed(frame):
    """The frame with a ``point`` column (a single run's frames may have none), collected."""
    frame = frame.collect() if isinstance(frame, pl.LazyFrame) else frame
    if "point" not in frame.columns:
        frame = frame.with_columns(pl.lit("").alias("point"))
    return frame


def score_path(traj, games):
    """``point, game_id, step, seat, score``: rounds 1..R from the trajectory; step R + 1
    holds the winner only (score 1, the others 0; a shared win: every winner tied at 1)."""
    traj, games = _keyed(traj), _keyed(games)
    rounds = traj.select(
        *KEY, pl.col("round").cast(pl.Int64).alias("step"), pl.col("seat").cast(pl.Int64), "score"
    ).with_columns(pl.col("score").cast(pl.Float64))
    g = games.select(*KEY, pl.col("rounds").cast(pl.Int64), pl.col("winner").cast(pl.Int64))
    seats = traj.select(*KEY, pl.col("seat").cast(pl.Int64)).unique()
    final = (
        seats.join(g, on=list(KEY))
        .with_columns(
            (pl.col("rounds") + 1).alias("step"),
            # a shared win: every seat at 1, a tie at the top, no leader (the last one is kept)
            pl.when((pl.col("winner") < 0) | (pl.col("seat") == pl.col("winner")))
            .then(1.0)
            .otherwise(0.0)
            .alias("score"),
        )
        .select(*KEY, "step", "seat", "score")
    )
    return pl.concat([rounds, final]).sort(*KEY, "step", "seat")


def leaders(path):
    """``point, game_id, step, leader, kept``: the sole leader after each step (-1 on a tie
    at the top) and the last sole leader so far (-1 before the first one)."""
    return (
        path.with_columns(pl.col("score").max().over(*KEY, "step").alias("_top"))
        .filter(pl.col("score") == pl.col("_top"))
        .group_by(*KEY, "step")
        .agg(pl.len().alias("_n"), pl.col("seat").first().alias("_seat"))
        .with_columns(pl.when(pl.col("_n") == 1).then(pl.col("_seat")).otherwise(-1).alias("leader"))
        .sort(*KEY, "step")
        .with_columns(
            pl.when(pl.col("leader") >= 0)
            .then(pl.col("leader"))
            .otherwise(None)
            .forward_fill()
            .over(list(KEY))
            .fill_null(-1)
            .alias("kept")
        )
        .select(*KEY, "step", "leader", "kept")
    )


def per_game(traj, games, seats):
    """One row per game: its ``games`` columns, then ``lead_changes``, ``decided_round``
    (null for a shared win), ``decided_late``, ``decided_at_end``, ``spread``, ``margin``.

    ``traj`` needs point (optional), game_id, round, seat, score; ``games`` game_id,
    rounds, winner; ``seats`` game_id, seat, score (final).
    """
    games, seats = _keyed(games), _keyed(seats)
    lead = leaders(score_path(traj, games))
    changes = (
        lead.filter(pl.col("kept") >= 0)
        .with_columns(
            (pl.col("kept") != pl.col("kept").shift(1).over(list(KEY))).fill_null(False).alias("_ch")
        )
        .group_by(KEY)
        .agg(pl.col("_ch").sum().cast(pl.Int64).alias("lead_changes"))
    )
    g = games.with_columns(pl.col("rounds").cast(pl.Int64), pl.col("winner").cast(pl.Int64))
    # the last step at which the eventual winner is not the sole leader
    last_miss = (
        lead.join(g.select(*KEY, "winner"), on=list(KEY))
        .filter((pl.col("winner") >= 0) & (pl.col("leader") != pl.col("winner")))
        .group_by(KEY)
        .agg(pl.col("step").max().alias("_last_miss"))
    )
    final = seats.select(*KEY, pl.col("score").cast(pl.Float64))
    spread = final.group_by(KEY).agg(
        (pl.col("score").max() - pl.col("score").min()).alias("spread"),
        (pl.col("score").max() - pl.col("score").sort(descending=True).slice(1, 1).first()).alias("margin"),
    )
    return (
        g.join(changes, on=list(KEY), how="left")
        .join(last_miss, on=list(KEY), how="left")
        .join(spread, on=list(KEY), how="left")
        .with_columns(
            pl.col("lead_changes").fill_null(0),
            pl.when(pl.col("winner") < 0)
            .then(None)
            .otherwise(pl.col("_last_miss").fill_null(0) + 1)
            .alias("decided_round"),
        )
        .with_columns(
            (pl.col("decided_round") >= pl.col("rounds")).alias("decided_late"),
            (pl.col("decided_round") == pl.col("rounds") + 1).alias("decided_at_end"),
        )
        .drop("_last_miss")
        .sort(*KEY)
    )


def deficits(traj, games, seats):
    """``point, game_id, seat, round, rounds_left, deficit, win`` (+ the ``games`` columns):
    every seat behind the top score after a round, with its final win share."""
    traj, games, seats = _keyed(traj), _keyed(games), _keyed(seats)
    g = games.with_columns(pl.col("rounds").cast(pl.Int64))
    win = seats.select(*KEY, pl.col("seat").cast(pl.Int64), pl.col("win").cast(pl.Float64))
    return (
        traj.select(*KEY, pl.col("round").cast(pl.Int64), pl.col("seat").cast(pl.Int64), "score")
        .with_columns((pl.col("score").max().over(*KEY, "round") - pl.col("score")).alias("deficit"))
        .filter(pl.col("deficit") > 0)
        .join(g, on=list(KEY))
        .join(win, on=[*KEY, "seat"])
        .with_columns((pl.col("rounds") - pl.col("round")).alias("rounds_left"))
    )


def comeback_curve(behind, by):
    """Comeback shares per ``by``, deficit bin and rounds-left bin (``deficits``' frame in):
    ``cases``, ``games``, ``wins``, ``share``, ``share_lo``, ``share_hi`` (game-clustered)."""
    framed = behind.with_columns(
        _binned("deficit", DEFICIT_EDGES).alias("deficit_bin"),
        _binned("rounds_left", ROUNDS_LEFT_EDGES).alias("rounds_left_bin"),
        pl.col("deficit").alias("_d"),
        pl.col("rounds_left").alias("_r"),
    )
    cols = [*by, "rounds_left_bin", "deficit_bin"]
    t = clustered_shares(framed, cols, game=KEY, n_name="cases")
    games = framed.group_by(cols).agg(
        pl.struct(*KEY).n_unique().alias("games"),
        pl.col("_r").min().alias("_rmin"),
        pl.col("_d").min().alias("_dmin"),
    )
    return (
        t.join(games, on=cols)
        .sort([*by, "_rmin", "_dmin"])
        .select(*cols, "cases", "games", "wins", "share", "share_lo", "share_hi")
    )


def kingmaking(behind, per_game_frame, by, out_of_contention=None):
    """Per game of 3+ seats: ``kingmaker_seat`` (a seat out of contention after round R - 1,
    see the module docstring) and ``kingmaker_game`` (that, and the sole leader after round
    R - 1 does not win).  ``out_of_contention`` fixes the threshold in points (default: per
    ``by`` group, the largest deficit an eventual winner overcame with one round left;
    ``threshold`` in the output); a seat that wins is never out of contention."""
    one_left = behind.filter(pl.col("rounds_left") == 1)
    if out_of_contention is None:
        thr = (
            per_game_frame.select(*dict.fromkeys([*by, *KEY]))
            .join(one_left.filter(pl.col("win") > 0).select(*KEY, "deficit"), on=list(KEY), how="left")
            .group_by(by)
            .agg(pl.col("deficit").max().fill_null(0).alias("threshold"))
        )
    else:
        thr = per_game_frame.select(by).unique().with_columns(pl.lit(out_of_contention).alias("threshold"))
    out_seat = one_left.join(per_game_frame.select(*dict.fromkeys([*KEY, *by])), on=list(KEY)).join(
        thr, on=by
    )
    seat_games = (
        # a winner is never out of contention (with the data's threshold none is beyond it)
        out_seat.filter((pl.col("deficit") > pl.col("threshold")) & (pl.col("win") == 0))
        .select(*KEY)
        .unique()
        .with_columns(pl.lit(True).alias("kingmaker_seat"))
    )
    # the sole leader after round R - 1 (step R - 1 of the score path)
    leader_before = (
        one_left.select(*KEY)
        .unique()
        .join(per_game_frame.select(*KEY, "rounds", "winner"), on=list(KEY))
        .join(_leaders_at(behind), on=list(KEY), how="left")
    )
    eligible = per_game_frame.filter((pl.col("players") >= 3) & (pl.col("rounds") >= 2)).select(
        *dict.fromkeys([*KEY, *by]), "winner"
    )
    return (
        eligible.join(seat_games, on=list(KEY), how="left")
        .join(leader_before.select(*KEY, "leader_before"), on=list(KEY), how="left")
        .join(thr, on=by, how="left")
        .with_columns(pl.col("kingmaker_seat").fill_null(False))
        .with_columns(
            (
                pl.col("kingmaker_seat")
                & pl.col("leader_before").is_not_null()
                & (pl.col("leader_before") != pl.col("winner"))
            ).alias("kingmaker_game")
        )
        .select(*KEY, "threshold", "kingmaker_seat", "kingmaker_game")
    )


def _leaders_at(behind):
    """``point, game_id, leader_before``: with one round left, the seat with no deficit when
    it is the only one (``behind`` lists the other seats)."""
    # a seat is missing from ``behind`` exactly when it is at the top; the sole leader is the
    # one seat of the game (with one round left) that is not behind
    one_left = behind.filter(pl.col("rounds_left") == 1)
    return (
        one_left.group_by(KEY)
        .agg(pl.col("seat").alias("_behind"), pl.col("players").first().cast(pl.Int64).alias("_p"))
        .filter(pl.col("_behind").list.len() == pl.col("_p") - 1)
        .with_columns(
            pl.int_ranges(0, pl.col("_p"))
            .list.set_difference(pl.col("_behind"))
            .list.first()
            .alias("leader_before")
        )
        .select(*KEY, "leader_before")
    )


def mean_interval(x, z=Z95):
    """Mean of ``x`` with its 95% t interval (NaNs for no entries; a point for one)."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    if n == 0:
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    if n == 1:
        return m, m, m
    h = t_quantile(0.975, n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return m, m - h, m + h


def share_interval(k, n):
    """Share ``k / n`` of games with its Wilson interval."""
    if n == 0:
        return math.nan, math.nan, math.nan
    lo, hi = wilson(k, n)
    return k / n, float(lo), float(hi)


#: measure name -> (what it is, unit)
MEASURES = {
    "lead_changes": ("lead changes per game", "changes"),
    "no_lead_change": ("games without a lead change", "share"),
    "decided_round": ("round from which the winner leads for good (R + 1 = the final scoring)", "round"),
    "decided_late": ("games decided in the last round or at the final scoring", "share"),
    "decided_at_end": ("games decided by the final scoring alone", "share"),
    "kingmaker_seat": ("games with a seat out of contention before the last round (3+ seats)", "share"),
    "kingmaker_game": ("games where the win changed hands in the last round with such a seat", "share"),
    "out_of_contention": (
        "out of contention: points behind with one round left, beyond any comeback",
        "points",
    ),
    "spread": ("final score, first minus last", "points"),
    "margin": ("final score, first minus second", "points"),
    "rounds": ("rounds per game", "rounds"),
    "rounds_sd": ("standard deviation of rounds per game", "rounds"),
    "turns_per_round": ("turns per seat per round", "turns"),
    "waiting": ("other seats' turns a seat waits through per round", "turns"),
}


def summary(frame, by):
    """Long table per ``by`` group: ``measure, estimate, lo, hi, games, unit`` (``per_game``
    joined with ``kingmaking``'s columns in; ``MEASURES`` says what each measure is)."""
    rows = []
    for key, grp in frame.group_by(by, maintain_order=True):
        key = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        n = grp.height
        decided = grp.filter(pl.col("decided_round").is_not_null())
        km = grp.filter(pl.col("kingmaker_seat").is_not_null())
        per_round = grp["turns"].cast(pl.Float64) / (grp["players"].cast(pl.Float64) * grp["rounds"])
        waits = per_round * (grp["players"].cast(pl.Float64) - 1)
        values = {
            "lead_changes": mean_interval(grp["lead_changes"].to_numpy()) + (n,),
            "no_lead_change": share_interval(int((grp["lead_changes"] == 0).sum()), n) + (n,),
            "decided_round": mean_interval(decided["decided_round"].to_numpy()) + (decided.height,),
            "decided_late": share_interval(int(decided["decided_late"].sum()), decided.height)
            + (decided.height,),
            "decided_at_end": share_interval(int(decided["decided_at_end"].sum()), decided.height)
            + (decided.height,),
            "kingmaker_seat": share_interval(int(km["kingmaker_seat"].sum()), km.height) + (km.height,),
            "kingmaker_game": share_interval(int(km["kingmaker_game"].sum()), km.height) + (km.height,),
            "spread": mean_interval(grp["spread"].to_numpy()) + (n,),
            "margin": mean_interval(grp["margin"].to_numpy()) + (n,),
            "rounds": mean_interval(grp["rounds"].to_numpy()) + (n,),
            "rounds_sd": _sd_interval(grp["rounds"].to_numpy()) + (n,),
            "turns_per_round": mean_interval(per_round.to_numpy()) + (n,),
            "waiting": mean_interval(waits.to_numpy()) + (n,),
        }
        if km.height and "threshold" in km.columns:
            # the definition's value, not an estimate: no interval
            values["out_of_contention"] = (float(km["threshold"].max()), None, None, km.height)
        for name, (est, lo, hi, games) in values.items():
            if games == 0:
                continue
            rows.append(
                {**key, "measure": name, "estimate": est, "lo": lo, "hi": hi}
                | {"games": games, "unit": MEASURES[name][1]}
            )
    return pl.DataFrame(rows).sort(by, maintain_order=True) if rows else None


def _sd_interval(x, z=Z95):
    """Standard deviation with the chi-square interval (normal data; a point when all equal)."""
    from scipy.special import chdtri  # the chi-square quantile from the upper tail

    x = np.asarray(x, dtype=np.float64)
    n = x.size
    if n < 2:
        return math.nan, math.nan, math.nan
    s = float(x.std(ddof=1))
    return s, s * math.sqrt((n - 1) / chdtri(n - 1, 0.025)), s * math.sqrt((n - 1) / chdtri(n - 1, 0.975))


# --- the question ---------------------------------------------------------------------------


def _trajectory(ds):
    return getattr(ds, "trajectory", None) if ds is not None else None


def applies(ds):
    traj = _trajectory(ds)
    return traj is not None and "score" in traj.collect_schema().names()


def _why_not(ds):
    traj = _trajectory(ds)
    if traj is None:
        return "the experience question needs the trajectory table: play with sim run --trajectory"
    if "score" not in traj.collect_schema().names():
        return "the experience question needs a score so far in the trajectory table; this game's has none"
    return None


Q = question(
    "experience", "Experience: lead changes, comebacks, kingmaking, spread and length", applies=applies
)
Q.why_not = _why_not


def _frames(metric, games):
    """The trajectory, games and seats of the metric's dataset, with its grouping columns."""
    ds = metric.context.get("dataset")
    games = _keyed(games)
    traj = _keyed(_trajectory(ds))
    seats = _keyed(ds.seats.select(*KEY, "seat", "score", "win"))
    return traj, games, seats


def _per_game_all(metric, games):
    traj, games, seats = _frames(metric, games)
    pg = per_game(traj, games, seats)
    behind = deficits(traj, games, seats)
    km = kingmaking(behind, pg, metric.by)
    return pg.join(km, on=list(KEY), how="left"), behind, km


@register("experience")
class Tension(Metric):
    """Lead changes, decided round, kingmaking, spread, length and downtime per group."""

    name = "tension"
    title = "Tension: lead changes, when the winner is decided, kingmaking, spread, length, downtime"
    source = "games"
    needs = ("rounds", "winner", "turns")
    note = (
        "lead_changes per game; no_lead_change = share of games without one; decided_round = the "
        "round from which the winner leads for good (R + 1 = only the final scoring gives it the "
        "win); decided_late = share decided in the last round or at the final scoring; "
        "decided_at_end = by the final scoring alone; kingmaker_seat = share of 3+ seat games with a "
        "seat out of contention before the last round; kingmaker_game = and the win changed hands "
        "then; spread = final first minus last, margin = first minus second; turns_per_round per "
        "seat; waiting = the other seats' turns per round. "
        "Definitions in docs/analysis.md (Experience). A game is the unit: means with a t "
        "interval over games, shares of games with Wilson's; lo/hi = 95%. Leader = the seat alone "
        "at the top of the score so far after a round (a tie keeps the last leader), then the winner "
        "after the final scoring. Kingmaking is an association: a seat out of contention was playing "
        "while the win changed hands, not proof that its choices did it. All of it describes play "
        "by these strategies and changes with the players' strength."
    )

    def compute(self, games):
        frame, _, _ = _per_game_all(self, games)
        return summary(frame, self.by)


@register("experience")
class Comeback(Metric):
    """Comeback curve: the win share of a seat behind by d points with r rounds left."""

    name = "comeback"
    title = "Comebacks: win share of a seat behind the top score, by deficit and rounds left"
    source = "games"
    needs = ("rounds", "winner")
    note = (
        "After each round, every seat behind the top score (deficit = points of the trajectory's "
        "score so far); rounds_left 0 = only the end-of-game scoring left; share = "
        "its win share at the end (a shared win counts 1/k); cases = seat-rounds, games = games "
        "they come from; lo/hi = Wilson at the game-clustered effective size (95%)."
    )

    def compute(self, games):
        traj, games, seats = _frames(self, games)
        return comeback_curve(deficits(traj, games, seats), self.by)


def _group_cols(t):
    return [c for c in t.columns if c not in ("measure", "estimate", "lo", "hi", "games", "unit")]


def _where(r, ds, by):
    extra = [f"{k} = {r[k]}" for k in by if k != "players"]
    return ", ".join([f"{r['players']} players", *extra])


def _headlines(ds, results):
    t = results.get("tension")
    if t is None:
        return []
    by = _group_cols(t)
    out = []
    for _, grp in t.group_by(by, maintain_order=True):
        m = {r["measure"]: r for r in grp.iter_rows(named=True)}
        where = _where(m["lead_changes"], ds, by)

        def num(name, f="{:.1f}", m=m):
            r = m[name]
            return f"{f.format(r['estimate'])} [{f.format(r['lo'])}, {f.format(r['hi'])}]"

        def pct(name, m=m):
            r = m[name]
            d = 1 if r["hi"] < 0.1 else 0  # a rare event keeps a decimal
            return f"{100 * r['estimate']:.{d}f}% [{100 * r['lo']:.{d}f}, {100 * r['hi']:.{d}f}]"

        s = (
            f"{where}: {num('lead_changes')} lead changes per game, {pct('no_lead_change')} of games "
            f"without one; the winner leads for good from round {num('decided_round')}"
        )
        if "decided_late" in m:
            s += (
                f", and only from the last round or the final scoring in {pct('decided_late')} "
                f"(by the final scoring alone in {pct('decided_at_end')})"
            )
        s += f"; final spread {num('spread', '{:.0f}')} points, margin {num('margin', '{:.0f}')}"
        out.append(s + " (these depend on the players' strength).")
        if "kingmaker_game" in m:
            out.append(
                f"{where}: in {pct('kingmaker_game')} of games the win changed hands in the last round "
                "while a seat out of contention was playing (more than "
                f"{m['out_of_contention']['estimate']:.0f} points behind with one round left, further than "
                "any winner here came back from): an association, not a cause."
            )
    cb = results.get("comeback")
    if cb is not None:
        out += _comeback_lines(cb, by)
    return out


def _comeback_lines(cb, by):
    """One line per group: the comeback share of the deficit bins at a middle rounds-left bin."""
    out = []
    for key, grp in cb.group_by(by, maintain_order=True):
        key = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        bins = grp["rounds_left_bin"].unique(maintain_order=True).to_list()
        mid = bins[len(bins) // 2]
        cells = grp.filter((pl.col("rounds_left_bin") == mid) & (pl.col("cases") >= 30))
        if not cells.height:
            continue
        parts = [
            f"{r['deficit_bin']} points behind: {100 * r['share']:.0f}% [{100 * r['share_lo']:.0f}, "
            f"{100 * r['share_hi']:.0f}]"
            for r in cells.iter_rows(named=True)
        ]
        out.append(
            f"{_where(key, None, by)}, {mid} rounds left, a seat's chance to still win: "
            + "; ".join(parts)
            + "."
        )
    return out


Q.headlines = _headlines


#: a description (lead changes, late decisions, spread) is known once its 95% interval lies
#: within +-10% of itself: a designer reads one significant digit, not a test against 0
DESCRIBED = 0.10


def _key_numbers(ds, results):
    """For a strength ladder: lead changes, late decisions and the final spread per group."""
    t = results.get("tension")
    if t is None:
        return []
    by = _group_cols(t)
    keep = {"lead_changes": ("changes", False), "decided_late": ("%", True), "spread": ("points", False)}
    rows = []
    for r in t.filter(pl.col("measure").is_in(list(keep))).iter_rows(named=True):
        if r["hi"] - r["lo"] <= 1e-12:  # a constant (Cluedo's final spread: 1 - 0) describes no game
            continue
        unit, is_share = keep[r["measure"]]
        f = 100 if is_share else 1
        rows.append(
            {
                "key": f"{_where(r, ds, by)}, {MEASURES[r['measure']][0]}",
                "estimate": f * r["estimate"],
                "lo": f * r["lo"],
                "hi": f * r["hi"],
                "games": r["games"],
                "unit": unit,
                "zero": False,
                "precision": DESCRIBED,
                "digits": 2 if unit == "changes" else 1,
            }
        )
    return rows


Q.key_numbers = _key_numbers


def _bin_start(label):
    return int(label.split("-")[0].rstrip("+"))


def plots(ds, results):
    """One heat map per group: the comeback share by rounds left and deficit, each cell with
    its 95% interval, coloured about the fair share 1/n."""
    from .. import plots as P

    cb = results.get("comeback")
    if cb is None or not cb.height:
        return []
    by = [c for c in cb.columns if c not in ("rounds_left_bin", "deficit_bin", "cases", "games", "wins")]
    by = [c for c in by if not c.startswith("share")]
    out = []
    for key, grp in cb.filter(pl.col("cases") >= 20).group_by(by, maintain_order=True):
        key = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        cells = grp.with_columns(
            pl.col("rounds_left_bin")
            .map_elements(_bin_start, return_dtype=pl.Int64)
            .alias("rounds left (from)"),
            pl.col("deficit_bin")
            .map_elements(_bin_start, return_dtype=pl.Int64)
            .alias("points behind (from)"),
        )
        where = _where(key, ds, by)
        out.append(
            (
                f"{where}: the chance that a seat behind the top score after a round still wins, by "
                "rounds left (0 = only the final scoring) and points behind (bins start at the number "
                "shown), each cell with its 95% interval (game-clustered); coloured about the fair "
                f"share 1/{key['players']}; cells of at least 20 seat-rounds.",
                P.heatmap(
                    cells,
                    "rounds left (from)",
                    "points behind (from)",
                    "share",
                    title="comeback chance",
                    center=1.0 / key["players"],
                    interval=("share_lo", "share_hi"),
                ),
            )
        )
    return out


Q.plots = plots
