"""Dataset files: crash-safe chunk writing, core-column contract, readers (PyArrow, Polars)."""

from __future__ import annotations

import io

import fake_adapter
import polars as pl
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

from sim import api, chunks, dataset, registry, runner
from sim.progress import Progress


@pytest.fixture(autouse=True)
def fake_game(monkeypatch):
    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")


CFG = {"game": "fakegame", "players": 4, "games": 3_000, "seed": 1}


def _tables(start, count):
    return chunks.play_chunk_to_tables(api.resolve(CFG), start, count)


def test_write_chunk_files_renames_and_hashes(tmp_path):
    for name in ("games", "seats"):
        (tmp_path / name).mkdir()
    entry = dataset.write_chunk_files(tmp_path, 7, 700, 100, _tables(700, 100))
    assert entry["index"] == 7 and entry["start"] == 700 and entry["games"] == 100
    assert entry["files"]["games"]["path"] == "games/part-00007.parquet"
    assert entry["files"]["seats"]["rows"] == 400
    assert not list(tmp_path.rglob(".*.tmp"))
    assert dataset.chunk_intact(tmp_path, entry)
    (tmp_path / "games" / "part-00007.parquet").write_bytes(b"x")
    assert not dataset.chunk_intact(tmp_path, entry)


def test_chunk_files_delta_encode_the_game_ids_and_keep_their_range(tmp_path):
    for name in ("games", "seats"):
        (tmp_path / name).mkdir()
    tables = _tables(700, 100)
    entry = dataset.write_chunk_files(tmp_path, 7, 700, 100, tables)
    for name in ("games", "seats"):
        path = tmp_path / entry["files"][name]["path"]
        rg = pq.ParquetFile(path).metadata.row_group(0)
        cols = {rg.column(i).path_in_schema: rg.column(i) for i in range(rg.num_columns)}
        gid = cols["game_id"]
        assert "DELTA_BINARY_PACKED" in gid.encodings and "RLE_DICTIONARY" not in gid.encodings
        # the file's game range is in its statistics (a reader filtering by game skips files)
        assert (gid.statistics.min, gid.statistics.max) == (700, 799)
        assert "RLE_DICTIONARY" in cols["config_id"].encodings
        assert cols["config_id"].statistics is None
        assert gid.compression == "ZSTD"
        # both readers give back the table as written
        assert pq.read_table(path).equals(tables[name].combine_chunks())
        assert pl.read_parquet(path).equals(pl.from_arrow(tables[name]))


def test_core_column_contract_is_enforced(tmp_path):
    t = _tables(0, 10)
    bad = t["games"].drop_columns(["rounds"])
    with pytest.raises(RuntimeError, match="column 3 should be 'rounds'"):
        dataset.check_core_columns("games", bad)
    wrong = t["seats"].set_column(4, "score", t["seats"].column("score").cast(pa.int64()))
    with pytest.raises(RuntimeError, match="seats.score should be int16"):
        dataset.check_core_columns("seats", wrong)
    dataset.check_core_columns(
        "seats", t["seats"].set_column(3, "strategy", t["seats"].column("strategy").dictionary_encode())
    )


def test_manifest_rejects_foreign_json(tmp_path):
    (tmp_path / "manifest.json").write_text('{"hello": 1}')
    with pytest.raises(dataset.SimError, match="not a boardsim-dataset manifest"):
        dataset.read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(dataset.SimError, match="unreadable manifest"):
        dataset.read_manifest(tmp_path)


def test_datasets_open_in_pyarrow_and_polars(tmp_path):
    out = tmp_path / "ds"
    runner.run_dataset(CFG, out, chunk_games=1_000)
    # a stray temporary file (as a killed run leaves) must not be picked up by readers
    (out / "games" / ".part-00009.parquet.tmp").write_bytes(b"partial")
    ref = dataset.read_table(out, "games")

    t = pq.read_table(out / "games")
    assert t.num_rows == 3_000
    assert t.sort_by("game_id").select(ref.schema.names).equals(ref)
    d = pads.dataset(out / "seats", format="parquet")
    assert d.count_rows() == 12_000

    g = pl.read_parquet(out / "games" / "*.parquet")
    assert g.height == 3_000 and g["game_id"].to_list() == list(range(3_000))
    s = pl.scan_parquet(out / "seats" / "*.parquet")
    wins = s.group_by("seat").agg(pl.col("win").sum()).collect()
    assert abs(wins["win"].sum() - 3_000) < 1e-3  # one win shared per game
    assert g.schema["config_id"] == pl.String and g.schema["winner"] == pl.Int8


def test_progress_bar_draws_after_delay_and_only_when_enabled():
    buf = io.StringIO()
    bar = Progress(enabled=True, stream=buf, delay=0.0, interval=0.0)
    bar.expect(1_000)
    bar.skip(200)
    bar.advance(300)
    bar.close()
    text = buf.getvalue()
    assert "50.0%" in text and "games/s" in text and "ETA" in text and text.endswith("\n")
    quiet = io.StringIO()
    bar = Progress(enabled=True, stream=quiet, delay=60.0)
    bar.expect(10)
    bar.advance(10)
    bar.close()
    assert quiet.getvalue() == ""
    off = io.StringIO()
    bar = Progress(enabled=False, stream=off, delay=0.0)
    bar.expect(5)
    bar.advance(5)
    bar.close()
    assert off.getvalue() == "" and bar.played == 5
