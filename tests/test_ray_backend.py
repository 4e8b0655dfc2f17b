"""The Ray backend (``--backend ray``) on a real Ray cluster of two node processes.

A head node (``ray start --head`` on 127.0.0.1, 1 CPU) and a second node process
(``ray start --address=...``, 1 CPU) make the cluster; small Bloody Inn sweeps through the real
``sim`` command must give datasets identical to the local backend's — row for row and byte
for byte (chunk sha256) — also when a worker dies mid-task (retried), when a task fails for
good (the run stops, ``--resume`` completes it), when the driver is interrupted, and when the
workers write the chunk files themselves (shared output).

The cluster is stopped in a finalizer by killing exactly its own processes (found by its
unique temp dir and ports), not with ``ray stop --force``, which kills every Ray process on the
machine, including other users' clusters.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[test,ray]'")

from sim import backends, dataset  # noqa: E402
from sim.backends import ray as ray_backend  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LONG3 = ROOT / "configs" / "bloody_inn" / "long-3p.toml"
BIN = Path(sys.executable).parent
SIM = [str(BIN / "sim")] if (BIN / "sim").exists() else [sys.executable, "-m", "sim.cli"]
RAY = str(BIN / "ray")
TIMEOUT = 300  # seconds for any one command; the whole module takes about a minute
SWEEP = """\
base = "{base}"
games = 300
[grid]
players = [2, 3]
"""


# --- the cluster --------------------------------------------------------------------


def _free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def _cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _ppid(pid):
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


class LocalCluster:
    """Two ``ray start`` node processes on 127.0.0.1 with their own temp dir and ports."""

    def __init__(self):
        # Short path: Ray's unix sockets live under it (at most 107 characters).
        self.temp = Path(tempfile.mkdtemp(prefix="bsray-", dir="/tmp"))
        self.ports = _free_ports(17)
        self.port = self.ports[0]
        self.address = f"127.0.0.1:{self.port}"
        # A loopback test cluster: no token authentication, no usage reports.
        self.env = dict(os.environ, RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
        self.env.pop("RAY_ADDRESS", None)

    def _node_args(self, first):
        p = self.ports[first : first + 8]
        # Worker ports below the kernel's ephemeral range (32768+), where the ports above and
        # every outgoing connection live, so a worker never finds its port taken.
        # A hundred per node: every driver (each `sim` call) and every worker of every job holds
        # one while it lives, and ten ran out on CI ("No available ports").
        worker_lo = 20000 + (self.port % 60) * 200 + (0 if first == 1 else 100)
        # A small object store: the test moves kilobytes, and CI machines have little /dev/shm.
        return [
            "--node-ip-address=127.0.0.1",
            "--num-cpus=1",
            "--disable-usage-stats",
            "--object-store-memory=100000000",
            f"--temp-dir={self.temp}",
            f"--dashboard-agent-listen-port={p[0]}",
            f"--dashboard-agent-grpc-port={p[1]}",
            f"--metrics-export-port={p[2]}",
            f"--node-manager-port={p[3]}",
            f"--object-manager-port={p[4]}",
            f"--runtime-env-agent-port={p[5]}",
            f"--min-worker-port={worker_lo}",
            f"--max-worker-port={worker_lo + 99}",
        ]

    def start(self):
        head = [
            RAY,
            "start",
            "--head",
            f"--port={self.port}",
            "--include-dashboard=false",
            f"--ray-client-server-port={self.ports[15]}",
            f"--dashboard-port={self.ports[16]}",
        ] + self._node_args(1)
        node = [RAY, "start", f"--address={self.address}"] + self._node_args(7)
        for cmd in (head, node):
            res = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=TIMEOUT)
            if res.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd[:3])} failed:\n{res.stdout}\n{res.stderr}")

    def pids(self):
        """This cluster's processes: those naming its temp dir or ports, and their children."""
        marks = [str(self.temp)] + [f"={p}" for p in self.ports] + [f":{self.port}"]
        table = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                table[int(entry.name)] = (_ppid(int(entry.name)), _cmdline(int(entry.name)))
        found = {
            pid for pid, (_, cmd) in table.items() if pid != os.getpid() and any(m in cmd for m in marks)
        }
        grew = True
        while grew:
            kids = {pid for pid, (ppid, _) in table.items() if ppid in found} - found
            grew = bool(kids)
            found |= kids
        return found

    def stop(self):
        for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
            pids = self.pids()
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + wait
            while any(_alive(p) for p in pids) and time.monotonic() < deadline:
                time.sleep(0.1)
        shutil.rmtree(self.temp, ignore_errors=True)


def _alive(pid):
    """Running (a zombie waiting for its parent to reap it counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.fixture(scope="module")
def cluster(request):
    c = LocalCluster()
    request.addfinalizer(c.stop)
    c.start()
    return c


# --- helpers ------------------------------------------------------------------------


def sim(*args, cwd, env=None, timeout=TIMEOUT):
    res = subprocess.run(
        SIM + [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )
    return res.returncode, res.stdout, res.stderr


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("raysweep")
    (d / "sweep.toml").write_text(SWEEP.format(base=LONG3.as_posix()))
    return d


@pytest.fixture(scope="module")
def local_sweep(work):
    code, out, err = sim("sweep", "sweep.toml", "--out", "local", "--chunk-games", 100, "--json", cwd=work)
    assert code == 0, err
    return work / "local"


def point_dirs(out):
    return sorted(p for p in Path(out).iterdir() if p.is_dir())


def assert_same_sweep(a, b):
    """Same points, same rows, same chunk files (sha256) in every point's dataset."""
    points = [pq.read_table(Path(d) / "points.parquet") for d in (a, b)]
    assert points[0].equals(points[1])
    pa_, pb = point_dirs(a), point_dirs(b)
    assert [p.name for p in pa_] == [p.name for p in pb] and len(pa_) == 2
    for x, y in zip(pa_, pb):
        assert_same_dataset(x, y)


def assert_same_dataset(x, y):
    mx, my = dataset.read_manifest(x), dataset.read_manifest(y)
    assert mx["status"] == my["status"] == "complete"
    assert mx["config_id"] == my["config_id"]
    for name in ("games", "seats"):
        tx, ty = dataset.read_table(x, name), dataset.read_table(y, name)
        assert tx.num_rows > 0 and tx.equals(ty), f"{x.name}: {name} rows differ"
    files = lambda m: [
        (
            c["index"],
            c["start"],
            c["games"],  # noqa: E731
            {t: f["sha256"] for t, f in c["files"].items()},
        )
        for c in m["chunks"]
    ]
    assert files(mx) == files(my)


def ray_env(cluster, **extra):
    env = dict(cluster.env)
    env.update({k: str(v) for k, v in extra.items()})
    return env


# --- tests on the cluster -----------------------------------------------------------


def test_sweep_on_two_nodes_is_identical_to_local_despite_a_lost_worker(cluster, work, local_sweep):
    crash = work / "crash-retry"
    crash.mkdir()
    # Tasks of 50 games: every chunk of 100 games is played as two Ray tasks and joined.
    # Each task holds its CPU for a second, so both 1-CPU nodes must take tasks (a
    # millisecond task would let Ray reuse the first node's worker for all of them).
    env = ray_env(
        cluster, BOARDSIM_RAY_TASK_GAMES=50, BOARDSIM_RAY_CRASH_ONCE=crash, BOARDSIM_RAY_TASK_MIN_SECONDS=1.0
    )
    code, out, err = sim(
        "sweep",
        "sweep.toml",
        "--out",
        "ray",
        "--chunk-games",
        100,
        "--backend",
        "ray",
        "--address",
        cluster.address,
        "--json",
        cwd=work,
        env=env,
    )
    assert code == 0, err
    assert json.loads(out)["games"] == 600
    assert (crash / "crashed").is_file(), "the injected worker crash did not happen"
    assert_same_sweep(local_sweep, work / "ray")
    sessions = [dataset.read_manifest(p)["sessions"][-1] for p in point_dirs(work / "ray")]
    for s in sessions:
        info = s["ray"]
        assert s["backend"] == "ray" and info["nodes"] == 2 and info["cpus"] == 2
        assert info["tasks"] == 6 and info["mode"] == "arrow to driver"
        assert sum(w["tasks"] for w in info["workers"].values()) == 6
        assert all(w["threads"] == 1 for w in info["workers"].values())
    used = set().union(*(s["ray"]["workers"] for s in sessions))
    assert len(used) == 2, f"tasks ran on {used}, expected both nodes"


def test_a_task_failing_for_good_stops_the_sweep_and_resume_completes_it(cluster, work, local_sweep):
    crash = work / "crash-fail"
    crash.mkdir()
    env = ray_env(cluster, BOARDSIM_RAY_MAX_RETRIES=0, BOARDSIM_RAY_CRASH_ONCE=crash)
    args = [
        "sweep",
        "sweep.toml",
        "--out",
        "failed",
        "--chunk-games",
        100,
        "--backend",
        "ray",
        "--address",
        cluster.address,
    ]
    code, out, err = sim(*args, cwd=work, env=env)
    assert code == 2, (out, err)
    # One error line (Ray may add its own "(raylet) A worker died" message around it).
    lines = [ln for ln in err.splitlines() if ln.startswith("error: ")]
    assert len(lines) == 1 and "WorkerCrashedError" in lines[0] and "--resume" in lines[0]
    assert "Traceback" not in err
    first = point_dirs(work / "failed")[0]
    assert dataset.read_manifest(first)["status"] == "interrupted"  # stopped, its chunks kept
    code, out, err = sim(*args, "--resume", cwd=work, env=ray_env(cluster))
    assert code == 0, err
    assert_same_sweep(local_sweep, work / "failed")


def test_an_interrupted_driver_resumes(cluster, work, local_sweep):
    args = [
        "sweep",
        "sweep.toml",
        "--out",
        "interrupted",
        "--chunk-games",
        100,
        "--backend",
        "ray",
        "--address",
        cluster.address,
    ]
    proc = subprocess.Popen(
        SIM + [str(a) for a in args],
        cwd=work,
        env=ray_env(cluster),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = work / "interrupted" / "p000_players=2" / "manifest.json"
    deadline = time.monotonic() + TIMEOUT
    while not first.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    # The driver has opened the first point and is connecting to the cluster: Ctrl-C.
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 130, (out, err)
    assert "--resume" in err and "Traceback" not in err
    assert json.loads((work / "interrupted" / "sweep.json").read_text())["status"] == "interrupted"
    code, out, err = sim(*args, "--resume", cwd=work, env=ray_env(cluster))
    assert code == 0, err
    assert_same_sweep(local_sweep, work / "interrupted")


def test_workers_writing_to_a_shared_output_give_the_same_dataset(cluster, work, local_sweep):
    env = ray_env(cluster, BOARDSIM_RAY_SHARED_OUTPUT=1)
    code, out, err = sim(
        "sweep",
        "sweep.toml",
        "--out",
        "shared",
        "--chunk-games",
        100,
        "--backend",
        "ray",
        "--address",
        cluster.address,
        cwd=work,
        env=env,
    )
    assert code == 0, err
    assert_same_sweep(local_sweep, work / "shared")
    for p in point_dirs(work / "shared"):
        info = dataset.read_manifest(p)["sessions"][-1]["ray"]
        assert info["mode"] == "shared output" and info["tasks"] == 3


STUDY = """\
title = "ray study"
[[data]]
name = "sweep"
sweep = "sweep.toml"
questions = ["seats"]
[[data]]
name = "run"
run = "{run}"
games = 400
questions = ["seats", "duration"]
"""


def test_a_study_on_the_cluster_gives_the_local_datasets(cluster, work):
    (work / "study.toml").write_text(STUDY.format(run=LONG3.as_posix()))
    code, out, err = sim("study", "study.toml", "-o", "study-local", cwd=work)
    assert code == 0, err
    code, out, err = sim(
        "study",
        "study.toml",
        "-o",
        "study-ray",
        "--backend",
        "ray",
        "--address",
        cluster.address,
        cwd=work,
        env=ray_env(cluster),
    )
    assert code == 0, err
    assert_same_sweep(work / "study-local" / "sweep", work / "study-ray" / "sweep")
    assert_same_dataset(work / "study-local" / "run", work / "study-ray" / "run")
    for d in [work / "study-ray" / "run", *point_dirs(work / "study-ray" / "sweep")]:
        assert dataset.read_manifest(d)["sessions"][-1]["backend"] == "ray"
    assert (work / "study-ray" / "report.html").is_file()


@pytest.mark.parametrize(
    "config",
    [LONG3, ROOT / "configs" / "cluedo" / "three-player.toml"],
    ids=["bloody_inn", "cluedo"],
)
def test_trajectories_on_the_cluster_are_the_local_ones(cluster, work, config):
    """The trajectory table (``--trajectory``) played as Ray tasks of 50 games is the local
    backend's, row for row and chunk file for chunk file, like the games and seats."""
    out = {}
    for backend in ("local", "ray"):
        d = work / f"traj-{config.parent.name}-{backend}"
        args = ["run", config, "--games", 200, "--chunk-games", 100, "--trajectory", "--out", d]
        env = None
        if backend == "ray":
            args += ["--backend", "ray", "--address", cluster.address]
            env = ray_env(cluster, BOARDSIM_RAY_TASK_GAMES=50)
        code, _, err = sim(*args, cwd=work, env=env)
        assert code == 0, err
        out[backend] = d
    assert_same_dataset(out["local"], out["ray"])
    tl, tr = (dataset.read_table(out[b], "trajectory") for b in ("local", "ray"))
    assert tl.num_rows > 0 and tl.equals(tr)
    assert dataset.read_manifest(out["ray"])["sessions"][-1]["backend"] == "ray"


def test_a_study_checks_its_backend_before_running(tmp_path):
    (tmp_path / "sweep.toml").write_text(SWEEP.format(base=LONG3.as_posix()))
    (tmp_path / "study.toml").write_text(STUDY.format(run=LONG3.as_posix()))
    code, out, err = sim("study", "study.toml", "-o", "s", "--backend", "nope", cwd=tmp_path)
    assert code == 2 and "'ray'" in err.strip().splitlines()[-1]
    code, out, err = sim("study", "study.toml", "-o", "s", "--address", "127.0.0.1:1", cwd=tmp_path)
    assert code == 2 and err.strip().splitlines()[-1].startswith("error: --address")
    assert not (tmp_path / "s").exists()


# --- without a cluster --------------------------------------------------------------


def test_task_plan_covers_every_game_once_in_order():
    pending = [(0, 0, 100), (1, 100, 100), (3, 300, 37)]
    for slots, task_games in [(1, None), (2, None), (64, None), (2, 30), (2, 1), (2, 1000)]:
        tasks = ray_backend.plan_tasks(pending, slots, task_games)
        games = [g for _, _, start, n in tasks for g in range(start, start + n)]
        assert games == list(range(0, 200)) + list(range(300, 337))
        for index, _, start, n in tasks:
            _, cs, cn = pending[[p[0] for p in pending].index(index)]
            assert cs <= start and start + n <= cs + cn and n >= 1
            if task_games is not None:
                assert n <= task_games
        parts = [p for i, p, _, _ in tasks if i == 1]
        assert parts == list(range(len(parts)))
    # enough chunks for every slot: no splitting; few chunks: split, but not below the minimum
    assert len(ray_backend.plan_tasks([(i, i * 10, 10) for i in range(8)], 4)) == 8
    big = ray_backend.plan_tasks([(0, 0, 100_000)], 8)
    assert len(big) == 16 and {n for *_, n in big} == {6_250}
    small = ray_backend.plan_tasks([(0, 0, 3_000)], 8)
    assert len(small) == 2


def test_address_needs_the_ray_backend(tmp_path):
    code, out, err = sim("run", LONG3, "--games", 10, "--address", "127.0.0.1:1", cwd=tmp_path)
    assert code == 2 and err.strip().splitlines()[-1].startswith("error: --address")
    assert "'ray'" in err and not (tmp_path / "results").exists()


def test_unknown_backend_lists_ray():
    from sim.errors import ConfigError

    with pytest.raises(ConfigError) as exc:
        backends.get_backend("cloud")
    assert "'local' | 'ray'" in str(exc.value)


def test_an_address_where_nothing_listens_is_one_line_before_any_output(tmp_path):
    (port,) = _free_ports(1)
    code, out, err = sim(
        "run",
        LONG3,
        "--games",
        10,
        "--out",
        "x",
        "--backend",
        "ray",
        "--address",
        f"127.0.0.1:{port}",
        cwd=tmp_path,
        timeout=120,
    )
    assert code == 2 and "Traceback" not in err
    (line,) = [ln for ln in err.splitlines() if ln.startswith("error: ")]
    assert f"127.0.0.1:{port}" in line and "cannot connect" in line
    assert not (tmp_path / "x").exists()
