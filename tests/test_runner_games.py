"""Every registered game through the runner: a small dataset per game, the core columns of
design.md, and the same rows whatever the chunk size (the runner adds nothing game-specific)."""

from __future__ import annotations

import polars as pl
import pytest

from sim import dataset, registry, runner

GAMES = registry.game_names()


@pytest.mark.parametrize("game", GAMES)
def test_every_game_writes_a_valid_dataset(tmp_path, game):
    adapter = registry.get_adapter(game)
    cfg = {"game": game, "players": max(adapter.min_players, 2), "games": 60, "seed": 3}
    a = runner.run_dataset(cfg, tmp_path / "a", chunk_games=60)
    b = runner.run_dataset(cfg, tmp_path / "b", chunk_games=25)
    assert a["status"] == b["status"] == "complete" and len(b["chunks"]) == 3
    for name, core in dataset.CORE_COLUMNS.items():
        ta, tb = dataset.read_table(tmp_path / "a", name), dataset.read_table(tmp_path / "b", name)
        assert ta.schema.names[: len(core)] == [c for c, _ in core]
        assert ta.equals(tb), name
    g = pl.read_parquet(tmp_path / "a" / "games" / "*.parquet")
    assert g["game_id"].to_list() == list(range(60))
    assert g["config_id"].unique().to_list() == [a["config_id"]]
    s = pl.read_parquet(tmp_path / "a" / "seats" / "*.parquet")
    assert s.height == 60 * cfg["players"]
