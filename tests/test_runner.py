"""The runner: chunked runs into datasets, resume, overwrite policy (with the fake game)."""

from __future__ import annotations

import json

import fake_adapter
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim import chunks, dataset, registry, runner
from sim.backends import local
from sim.config import config_id
from sim.errors import ConfigError, SimError


@pytest.fixture(autouse=True)
def fake_game(monkeypatch):
    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")


def cfg(**over):
    base = {"game": "fakegame", "players": 3, "games": 2_500, "seed": 5, "rules": {"deck_size": 30}}
    base.update(over)
    return base


def read(out, name="games"):
    return dataset.read_table(out, name)


def test_dataset_layout_manifest_and_columns(tmp_path):
    out = tmp_path / "ds"
    m = runner.run_dataset(cfg(), out, chunk_games=1_000)
    assert m["status"] == "complete"
    assert m["games"] == m["games_done"] == 2_500
    assert [(c["index"], c["start"], c["games"]) for c in m["chunks"]] == [
        (0, 0, 1000),
        (1, 1000, 1000),
        (2, 2000, 500),
    ]
    on_disk = json.loads((out / "manifest.json").read_text())
    assert on_disk == m
    assert on_disk["resolved"]["seed"] == on_disk["seed"] == 5
    assert on_disk["versions"]["pyarrow"] == pa.__version__
    assert "commit" in on_disk["git"]
    for c in m["chunks"]:
        for name in ("games", "seats"):
            f = c["files"][name]
            assert f["sha256"] == dataset.sha256_file(out / f["path"])
            meta = pq.ParquetFile(out / f["path"]).metadata
            assert meta.row_group(0).column(0).compression == "ZSTD"
            assert meta.num_rows == f["rows"]
    assert sorted(p.name for p in (out / "games").iterdir()) == [
        "part-00000.parquet",
        "part-00001.parquet",
        "part-00002.parquet",
    ]
    games, seats = read(out), read(out, "seats")
    assert games.num_rows == 2_500 and seats.num_rows == 7_500
    assert games.column("game_id").to_pylist() == list(range(2_500))
    cid = config_id(m["resolved"])
    assert set(games.column("config_id").to_pylist()) == {cid}
    assert set(seats.column("config_id").to_pylist()) == {cid}
    assert not (out / "events").exists()


def test_same_data_whatever_chunk_size_and_threads(tmp_path):
    a = runner.run_dataset(cfg(), tmp_path / "a", chunk_games=2_500, threads=1)
    b = runner.run_dataset(
        cfg(),
        tmp_path / "b",
        chunk_games=333,
        threads=2 if runner.api.numba.config.NUMBA_NUM_THREADS >= 2 else 1,
    )
    assert len(a["chunks"]) == 1 and len(b["chunks"]) == 8
    for name in ("games", "seats"):
        assert read(tmp_path / "a", name).equals(read(tmp_path / "b", name))


def test_seed_changes_data_and_is_recorded(tmp_path):
    runner.run_dataset(cfg(), tmp_path / "a")
    m = runner.run_dataset(cfg(), tmp_path / "b", seed=6)
    assert m["seed"] == 6
    assert not read(tmp_path / "a", "seats").equals(read(tmp_path / "b", "seats"))


def test_events_table(tmp_path):
    m = runner.run_dataset(cfg(), tmp_path / "e", events=True)
    assert m["tables"] == ["games", "seats", "events"]
    assert m["chunk_games"] == chunks.DEFAULT_CHUNK_GAMES_EVENTS
    ev = read(tmp_path / "e", "events")
    assert ev.num_rows == 3 * 2_500 and ev.schema.names[:2] == ["game_id", "config_id"]


def test_default_out_is_results_config_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my-run.toml").write_text('game = "fakegame"\nplayers = 2\ngames = 10\n')
    runner.run_dataset(tmp_path / "my-run.toml")
    assert (tmp_path / "results" / "my-run" / "manifest.json").is_file()
    runner.run_dataset(cfg(name="named run", games=10))
    assert (tmp_path / "results" / "named-run" / "manifest.json").is_file()


def test_refuses_to_overwrite_complete_dataset(tmp_path):
    out = tmp_path / "ds"
    runner.run_dataset(cfg(), out)
    before = (out / "games" / "part-00000.parquet").stat().st_mtime_ns
    with pytest.raises(SimError, match="already holds a complete dataset.*--resume.*--force"):
        runner.run_dataset(cfg(), out)
    with pytest.raises(SimError, match="complete dataset"):
        runner.run_dataset(cfg(seed=99), out)
    assert (out / "games" / "part-00000.parquet").stat().st_mtime_ns == before
    m = runner.run_dataset(cfg(), out, resume=True)  # complete: kept as it is
    assert m["nothing_to_do"] and m["status"] == "complete"
    assert (out / "games" / "part-00000.parquet").stat().st_mtime_ns == before
    m = runner.run_dataset(cfg(seed=99), out, force=True)
    assert m["seed"] == 99 and m["status"] == "complete"


def test_refuses_files_without_manifest_and_resume_with_force(tmp_path):
    out = tmp_path / "ds"
    (out / "games").mkdir(parents=True)
    (out / "games" / "part-00000.parquet").write_bytes(b"junk")
    with pytest.raises(SimError, match="without a manifest"):
        runner.run_dataset(cfg(), out)
    with pytest.raises(SimError, match="exclude each other"):
        runner.run_dataset(cfg(), out, resume=True, force=True)
    (tmp_path / "file").write_text("x")
    with pytest.raises(SimError, match="exists and is a file, not a folder"):
        runner.run_dataset(cfg(), tmp_path / "file")


class _Interrupt:
    """Wrap the fake adapter so the run is 'killed' (Ctrl-C) when a given chunk starts."""

    def __init__(self, at_start):
        self.at_start = at_start

    def __call__(self, resolved, start, count, *, events):
        if start == self.at_start:
            raise KeyboardInterrupt
        return fake_adapter.ADAPTER.__class__.simulate_chunk(
            fake_adapter.ADAPTER, resolved, start, count, events=events
        )


def test_interrupt_then_resume_is_identical_to_uninterrupted(tmp_path, monkeypatch):
    full = tmp_path / "full"
    runner.run_dataset(cfg(), full, chunk_games=400, events=True)
    out = tmp_path / "cut"
    monkeypatch.setattr(fake_adapter.ADAPTER, "simulate_chunk", _Interrupt(1_200))
    with pytest.raises(runner.RunInterrupted, match="1,200 of 2,500 games are kept.*--resume"):
        runner.run_dataset(cfg(), out, chunk_games=400, events=True)
    m = dataset.read_manifest(out)
    assert m["status"] == "interrupted" and m["games_done"] == 1_200
    assert m["sessions"][-1]["interrupted"] is True
    with pytest.raises(SimError, match="unfinished dataset \\(1,200 of 2,500 games\\)"):
        runner.run_dataset(cfg(), out, chunk_games=400, events=True)
    monkeypatch.undo()
    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")
    # a half-written chunk file left by a kill is cleaned up
    (out / "games" / ".part-00003.parquet.tmp").write_bytes(b"partial")
    m = runner.run_dataset(cfg(), out, resume=True, events=True)
    assert m["status"] == "complete" and m["sessions"][-1]["games_played"] == 1_300
    assert not list((out / "games").glob(".*"))
    for name in ("games", "seats", "events"):
        assert read(out, name).equals(read(full, name))
    fm = dataset.read_manifest(full)
    assert [c["files"] for c in m["chunks"]] == [c["files"] for c in fm["chunks"]]


def test_resume_replays_a_damaged_chunk(tmp_path):
    out = tmp_path / "ds"
    m0 = runner.run_dataset(cfg(), out, chunk_games=1_000)
    m0 = dataset.read_manifest(out)
    m0["status"] = "running"
    dataset.write_manifest(out, m0)
    victim = out / "seats" / "part-00001.parquet"
    victim.write_bytes(b"corrupted")
    m = runner.run_dataset(cfg(), out, resume=True)
    assert m["sessions"][-1]["games_played"] == 1_000
    assert dataset.sha256_file(victim) == m0["chunks"][1]["files"]["seats"]["sha256"]


def test_resume_refuses_a_different_config_or_layout(tmp_path, monkeypatch):
    out = tmp_path / "ds"
    monkeypatch.setattr(fake_adapter.ADAPTER, "simulate_chunk", _Interrupt(1_000))
    with pytest.raises(KeyboardInterrupt):
        runner.run_dataset(cfg(), out, chunk_games=500)
    with pytest.raises(SimError, match="different config \\(first difference: rules.deck_size\\)"):
        runner.run_dataset(cfg(rules={"deck_size": 31}), out, resume=True, chunk_games=500)
    with pytest.raises(SimError, match="first difference: seed"):
        runner.run_dataset(cfg(), out, resume=True, seed=1)
    with pytest.raises(SimError, match="chunks of 500 games"):
        runner.run_dataset(cfg(), out, resume=True, chunk_games=1_000)
    with pytest.raises(SimError, match="events"):
        runner.run_dataset(cfg(), out, resume=True, events=True)


def test_resume_of_nothing_is_a_fresh_run(tmp_path):
    m = runner.run_dataset(cfg(), tmp_path / "new", resume=True)
    assert m["status"] == "complete" and m["games_done"] == 2_500


@pytest.mark.parametrize(
    "kw, key",
    [
        ({"chunk_games": 0}, "chunk-games"),
        ({"chunk_games": 2.5}, "chunk-games"),
        ({"threads": 0}, "threads"),
        ({"backend": "nope"}, "backend"),
    ],
)
def test_bad_options_name_the_option(tmp_path, kw, key):
    with pytest.raises(ConfigError) as err:
        runner.run_dataset(cfg(), tmp_path / "x", **kw)
    assert err.value.key == key
    assert not (tmp_path / "x" / "manifest.json").exists()


def test_plan_chunks_covers_every_game_once():
    for total, k in [(1, 1), (10, 3), (100_000, 100_000), (250_001, 100_000)]:
        plan = chunks.plan_chunks(total, k)
        ids = [g for _, s, c in plan for g in range(s, s + c)] if total < 1000 else None
        if ids is not None:
            assert ids == list(range(total))
        assert sum(c for _, _, c in plan) == total
        assert [i for i, _, _ in plan] == list(range(len(plan)))


def test_progress_counts_games(tmp_path):
    from sim.progress import Progress

    bar = Progress(enabled=False)
    runner.run_dataset(cfg(), tmp_path / "p", chunk_games=1_000, progress=bar)
    assert (bar.total, bar.done, bar.played) == (2_500, 2_500, 2_500)


def test_resume_with_other_code_warns(tmp_path, monkeypatch, capsys):
    out = tmp_path / "ds"
    monkeypatch.setattr(fake_adapter.ADAPTER, "simulate_chunk", _Interrupt(1_000))
    with pytest.raises(KeyboardInterrupt):
        runner.run_dataset(cfg(), out, chunk_games=500)
    monkeypatch.undo()
    monkeypatch.setitem(registry._ADAPTERS, fake_adapter.NAME, "fake_adapter")
    m = dataset.read_manifest(out)
    m["git"]["commit"] = "0" * 40
    dataset.write_manifest(out, m)
    capsys.readouterr()
    runner.run_dataset(cfg(), out, resume=True)
    err = capsys.readouterr().err
    if dataset.git_state()["commit"] is None:
        assert err == ""
    else:
        assert err.startswith("warning: ") and "000000000000" in err and "--force" in err


def test_progress_slices_give_the_same_files(tmp_path, monkeypatch):
    """With a visible bar a chunk is played in slices; the files must not change."""
    import io

    from sim.progress import Progress

    monkeypatch.setattr(local, "MIN_SLICE_GAMES", 300)
    calls = []
    real = chunks.play_chunk_to_tables
    monkeypatch.setattr(
        chunks, "play_chunk_to_tables", lambda r, s, c, e=False: calls.append(c) or real(r, s, c, e)
    )
    bar = Progress(enabled=True, stream=io.StringIO(), delay=0.0)
    a = runner.run_dataset(cfg(), tmp_path / "a", chunk_games=1_000, progress=bar, events=True)
    assert len(calls) > 3 and max(calls) <= 1_000 and sum(calls) == 2_500
    assert bar.played == 2_500 and "games/s" in bar.stream.getvalue()
    b = runner.run_dataset(cfg(), tmp_path / "b", chunk_games=1_000, events=True)
    assert [c["files"] for c in a["chunks"]] == [c["files"] for c in b["chunks"]]


def test_next_chunk_plays_while_the_last_is_written(tmp_path, monkeypatch):
    """The local backend writes chunk k while chunk k+1 plays: each chunk's write
    waits until the next chunk has started playing in another thread, which a serial
    runner never does (the wait would time out).  The files are those of a serial run."""
    import threading

    plan = chunks.plan_chunks(2_500, 400)
    started = {start: threading.Event() for _, start, _ in plan}
    players = {}
    real_play, real_write = chunks.play_chunk_to_tables, dataset.write_chunk_files

    def play(resolved, start, count, events=False):
        players[start] = threading.get_ident()
        started[start].set()
        return real_play(resolved, start, count, events)

    def write(out, index, start, count, tables):
        if start + count < 2_500:
            assert started[start + count].wait(60), (
                f"chunk {index + 1} did not play while {index} was written"
            )
        return real_write(out, index, start, count, tables)

    monkeypatch.setattr(chunks, "play_chunk_to_tables", play)
    monkeypatch.setattr(dataset, "write_chunk_files", write)
    m = runner.run_dataset(cfg(), tmp_path / "a", chunk_games=400, events=True)
    assert m["status"] == "complete" and len(m["chunks"]) == len(plan)
    assert threading.get_ident() not in players.values()  # played off the writing thread
    resolved = runner.api.resolve(cfg())
    for name in ("games", "seats", "events"):
        (tmp_path / "b" / name).mkdir(parents=True)
    serial = [real_write(tmp_path / "b", i, s, c, real_play(resolved, s, c, True)) for i, s, c in plan]
    assert [c["files"] for c in m["chunks"]] == [e["files"] for e in serial]
