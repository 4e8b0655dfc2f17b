"""Open a run or a whole sweep as lazy Polars frames.

A run directory holds ``manifest.json``, ``games/*.parquet``, ``seats/*.parquet`` and
optionally ``events/*.parquet``.  A sweep directory holds one run per grid point under
``<out>/<point>/`` and ``<out>/points.parquet`` (``point`` plus one column per swept dotted
key).  Each table is read with one lazy scan over the chunk files the manifests list; the
point a row came from is recovered from its file path and the swept parameters are joined
on it.

Nothing is read before it is verified (:func:`sim.dataset.verify`): every listed chunk file
must be present with its manifest's size, sha256 and row count, else opening fails with one
line naming the file.  Files the manifests do not list are never read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from sim import dataset as _files

from .errors import AnalysisError

# Columns of the games table copied onto every seat row (design.md core columns; the
# game-specific ones are added when present).
_SEAT_KEYS = ("point", "game_id")


@dataclass
class Dataset:
    """A run or a sweep, ready for the metrics.

    Attributes
    ----------
    root : Path
    kind : str
        ``"run"`` or ``"sweep"``.
    game : str
        ``manifest["config"]["game"]``.
    manifests : dict[str, dict]
        Point name -> manifest (a run has one point named ``""``).
    points : pl.DataFrame
        ``point`` plus one column per swept key (a run: just ``point``).
    params : list[str]
        Swept keys that vary over the points, in grid order (``players`` included when swept).
    games, seats : pl.LazyFrame
        ``seats`` carries every games column too (joined on point and game_id) and both
        carry ``point`` and the swept parameters.
    events : pl.LazyFrame | None
    trajectory : pl.LazyFrame | None
        One row per game, round and seat (``--trajectory``), with ``point``.
    """

    root: Path
    kind: str
    game: str
    manifests: dict
    points: pl.DataFrame
    params: list
    games: pl.LazyFrame
    seats: pl.LazyFrame
    events: pl.LazyFrame | None = None
    warnings: list = field(default_factory=list)
    trajectory: pl.LazyFrame | None = None

    @property
    def config(self):
        """The resolved config of the first point (game-level facts shared by all points)."""
        return manifest_config(next(iter(self.manifests.values())))

    @property
    def facts(self):
        """What the dataset says about itself (manifest ``facts``: column meanings, event
        kinds, the game's data as played, the questions that apply), of the first point."""
        return manifest_facts(next(iter(self.manifests.values())))

    def group_params(self, exclude=()):
        """Swept parameters to group by (``players`` is always a games column, so it is
        left out here; callers add it)."""
        return [p for p in self.params if p != "players" and p not in exclude]

    def group_cols(self, columns):
        """``players`` and the swept parameters that are among ``columns``, each once."""
        return [c for c in dict.fromkeys(["players", *self.params]) if c in columns]

    def games_columns(self):
        return self.games.collect_schema().names()

    def seats_columns(self):
        return self.seats.collect_schema().names()


def is_run_dir(path: Path) -> bool:
    return (path / "manifest.json").is_file()


def is_sweep_dir(path: Path) -> bool:
    return (path / "points.parquet").is_file()


def manifest_config(manifest: dict) -> dict:
    """The resolved config a manifest records (``resolved``; ``config`` in older files)."""
    return manifest.get("resolved") or manifest.get("config") or {}


def manifest_facts(manifest: dict) -> dict:
    """A manifest's ``facts``; a dataset written before they were recorded gets them from
    its game's adapter (``sim.registry.dataset_facts``) for its resolved config."""
    if manifest.get("facts"):
        return manifest["facts"]
    config = manifest_config(manifest)
    if not config.get("game"):
        return {}
    from sim import registry
    from sim.errors import SimError

    try:
        return registry.dataset_facts(config)
    except (SimError, KeyError):  # a game not registered here, or a config it cannot read
        return {}


def table_files(run_dir: Path, manifest: dict, table: str):
    """Chunk files of a table, exactly those the manifest lists (finished, hashed chunks);
    call :func:`verified_manifest` first."""
    return [
        str(run_dir / c["files"][table]["path"]) for c in manifest.get("chunks", []) if table in c["files"]
    ]


def read_manifest(path: Path) -> dict:
    try:
        with open(path / "manifest.json", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError) as exc:
        raise AnalysisError(f"{path}/manifest.json: cannot read it ({exc})") from None


def verified_manifest(path: Path) -> dict:
    """The manifest of the run at ``path``, after every chunk file it lists was checked."""
    return _files.verify(path)  # DatasetError: one line naming the file (a SimError)


def open_dataset(path) -> Dataset:
    """Open a run or sweep directory lazily.

    Raises
    ------
    AnalysisError
        when the directory is neither a run nor a sweep, or holds no data.
    """
    root = Path(path)
    if not root.is_dir():
        raise AnalysisError(f"{root}: no such directory (expected a run or sweep output)")
    if is_sweep_dir(root):
        return _open_sweep(root)
    if is_run_dir(root):
        return _open_run(root)
    raise AnalysisError(
        f"{root}: not a dataset (expected manifest.json + games/ for a run, or points.parquet for a sweep)"
    )


def _status_warnings(root, manifests, dirs=None):
    out = []
    for point, man in sorted(manifests.items()):
        where = root / (dirs or {}).get(point, point) if point else root
        status = _files.effective_status(where, man)
        if status is not None and status != "complete":
            said = (
                f" (its manifest says {man.get('status')}, but no process writes it)"
                if status != man.get("status")
                else ""
            )
            out.append(
                f"dataset {where} is {status}{said}, not complete: the numbers cover its "
                f"{man.get('games_done', 0):,} finished games of {man.get('games', 0):,}"
            )
        extra = _files.unlisted_files(where, man)
        if extra:
            out.append(
                f"{where}: {len(extra)} chunk file(s) not in its manifest were ignored ({extra[0]}"
                + (", ..." if len(extra) > 1 else "")
                + ")"
            )
    return out


def _open_run(root: Path) -> Dataset:
    manifest = verified_manifest(root)
    files = {t: table_files(root, manifest, t) for t in ("games", "seats", "events", "trajectory")}
    if not files["games"] or not files["seats"]:
        raise AnalysisError(f"{root}: no finished chunk files yet")
    scan = {t: pl.scan_parquet(f).with_columns(pl.lit("").alias("point")) for t, f in files.items() if f}
    games, seats, events = scan["games"], scan["seats"], scan.get("events")
    points = pl.DataFrame({"point": [""]})
    manifests = {"": manifest}
    ds = _finish(root, "run", manifests, points, [], games, seats, events)
    ds.trajectory = scan.get("trajectory")
    return ds


def _point_expr():
    # <out>/<point>/<table>/part-NNNNN.parquet -> <point>
    return pl.col("_path").str.replace_all("\\\\", "/").str.extract(r"([^/]+)/[^/]+/[^/]+$", 1).alias("point")


def _scan_sweep_table(root: Path, table: str, points, dirs, manifests):
    # an explicit file list (not a glob over */) so stray folders never leak in
    files = [f for p in points for f in table_files(root / dirs[p], manifests[p], table)]
    if not files:
        return None
    lf = pl.scan_parquet(files, include_file_paths="_path").with_columns(_point_expr())
    inverse = {dirs[p]: p for p in points}
    if any(k != v for k, v in inverse.items()):
        lf = lf.with_columns(pl.col("point").replace_strict(inverse, default=None))
    return lf.drop("_path")


def _sweep_manifest(root: Path):
    """``sweep.json`` (or ``{}``) after checking ``points.parquet`` against its sha256."""
    try:
        sweep = json.loads((root / "sweep.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise AnalysisError(f"{root}/sweep.json: cannot read it ({exc})") from None
    digest = sweep.get("points_sha256") if isinstance(sweep, dict) else None
    if digest and _files.sha256_file(root / "points.parquet") != digest:
        raise AnalysisError(
            f"{root}/points.parquet: changed (its sha256 differs from sweep.json's); nothing was read"
        )
    return sweep if isinstance(sweep, dict) else {}


def _open_sweep(root: Path) -> Dataset:
    sweep = _sweep_manifest(root)
    try:
        points = pl.read_parquet(root / "points.parquet")
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise AnalysisError(f"{root}/points.parquet: not a readable Parquet file ({exc})") from None
    if "point" not in points.columns:
        raise AnalysisError(f"{root}/points.parquet: no 'point' column")
    points = points.with_columns(pl.col("point").cast(pl.String))
    dirs = dict(
        zip(
            points["point"].to_list(),
            (points["path"] if "path" in points.columns else points["point"]).to_list(),
        )
    )
    manifests = {}
    present = []
    for name in points["point"].to_list():
        pdir = root / dirs[name]
        if is_run_dir(pdir):
            man = verified_manifest(pdir)
            if table_files(pdir, man, "games"):
                manifests[name] = man
                present.append(name)
        elif sweep.get("status") == "complete":
            raise AnalysisError(
                f"{pdir}/manifest.json: missing, but {root}/sweep.json says the sweep is complete"
            )
    if not present:
        raise AnalysisError(f"{root}: sweep has no finished points yet")
    warnings = []
    missing = sorted(set(points["point"].to_list()) - set(present))
    if missing:
        warnings.append(
            f"{len(missing)} sweep point(s) have no data yet: {', '.join(missing[:5])}"
            + (" ..." if len(missing) > 5 else "")
        )
    points = points.filter(pl.col("point").is_in(present))
    params = [c for c in _grid_keys(root, points) if points[c].n_unique() > 1]
    games = _scan_sweep_table(root, "games", present, dirs, manifests)
    seats = _scan_sweep_table(root, "seats", present, dirs, manifests)
    if seats is None:
        raise AnalysisError(f"{root}: sweep points have games but no seats files")
    events = _scan_sweep_table(root, "events", present, dirs, manifests)
    ds = _finish(root, "sweep", manifests, points, params, games, seats, events)
    ds.trajectory = _scan_sweep_table(root, "trajectory", present, dirs, manifests)
    ds.warnings = warnings + _status_warnings(root, manifests, dirs)
    return ds


_POINT_BOOKKEEPING = ("point", "config_id", "path", "games", "seed")


def _grid_keys(root, points):
    """The swept keys: the grid of ``sweep.json`` when present, else every points column
    that is not bookkeeping."""
    try:
        grid = json.loads((root / "sweep.json").read_text(encoding="utf-8")).get("grid")
    except (OSError, ValueError):
        grid = None
    if isinstance(grid, dict):
        return [k for k in grid if k in points.columns]
    return [c for c in points.columns if c not in _POINT_BOOKKEEPING]


def strategy_labels(seats_cfg):
    """Labels for the lineup entries: the strategy name, plus the parameters that tell two
    entries of the same strategy apart (``greedy(police_risk=3.0)``).

    Returns
    -------
    list of str, or None when every entry is already told apart by its name.
    """
    if not isinstance(seats_cfg, list) or not seats_cfg:
        return None
    names = [str(e.get("strategy", "?")) for e in seats_cfg]
    labels = list(names)
    changed = False
    for name in set(names):
        idx = [i for i, n in enumerate(names) if n == name]
        params = [seats_cfg[i].get("params") or {} for i in idx]
        if len(idx) < 2 or all(p == params[0] for p in params):
            continue
        keys = sorted({k for p in params for k in p if len({repr(q.get(k)) for q in params}) > 1})
        for i, p in zip(idx, params):
            labels[i] = f"{name}(" + ",".join(f"{k}={p.get(k)}" for k in keys) + ")"
            changed = True
    return labels if changed else None


def _relabel(seats, manifests):
    """Give same-named strategies with different parameters distinct labels."""
    rows = []
    for point, man in manifests.items():
        labels = strategy_labels(manifest_config(man).get("seats"))
        if labels:
            rows += [{"point": point, "lineup": i, "_label": lab} for i, lab in enumerate(labels)]
    if not rows or "lineup" not in seats.collect_schema().names():
        return seats
    table = pl.DataFrame(rows, schema={"point": pl.String, "lineup": pl.Int64, "_label": pl.String}).lazy()
    return (
        seats.with_columns(pl.col("lineup").cast(pl.Int64).alias("_lineup"))
        .join(table.rename({"lineup": "_lineup"}), on=["point", "_lineup"], how="left")
        .with_columns(pl.coalesce("_label", "strategy").alias("strategy"))
        .drop("_label", "_lineup")
    )


def _game_of(manifest):
    return manifest.get("game") or manifest_config(manifest).get("game", "")


def _finish(root, kind, manifests, points, params, games, seats, events):
    games_cols = games.collect_schema().names()
    # Swept keys that are also games columns (``players``) are not joined twice.
    join_params = [p for p in params if p not in games_cols]
    pts = points.select(["point", *join_params]).lazy()
    if join_params:
        games = games.join(pts, on="point", how="left")
    # every games column onto the seat rows, so seat metrics can group by players,
    # deck size, truncated, ... without another join
    seat_cols = seats.collect_schema().names()
    extra = [c for c in games.collect_schema().names() if c not in seat_cols or c in _SEAT_KEYS]
    seats = seats.join(games.select(extra), on=list(_SEAT_KEYS), how="left")
    seats = _relabel(seats, manifests)
    if events is not None and "seat" in events.collect_schema().names():
        events = events.join(
            seats.select(["point", "game_id", "seat", "strategy", "players", *join_params]),
            on=["point", "game_id", "seat"],
            how="left",
        )
    game = _game_of(next(iter(manifests.values())))
    if not game:
        raise AnalysisError(f"{root}: manifest names no game")
    games_of_points = {_game_of(m) for m in manifests.values()}
    if len(games_of_points) > 1:
        raise AnalysisError(f"{root}: points of different games {sorted(games_of_points)}")
    return Dataset(
        root=root,
        kind=kind,
        game=game,
        manifests=manifests,
        points=points,
        params=params,
        games=games,
        seats=seats,
        events=events,
        warnings=_status_warnings(root, manifests) if kind == "run" else [],
    )
