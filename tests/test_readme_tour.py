"""The README's tour, run top to bottom in one temp folder, so a line that cannot follow the one
before it fails here (as a newcomer following the README would).

Every line of the ``## A tour`` code block is run as written, ``.venv/bin/sim`` standing for this
environment's ``sim``, with the games made small on commands that play them (``--games`` for
``run``, ``power``, ``meta`` and ``bench``, ``--max-games`` for ``sweep`` and ``study``); other commands run
unchanged. A new tour line is simply run: nothing here names one.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SIM = (
    [str(Path(sys.executable).with_name("sim"))]
    if Path(sys.executable).with_name("sim").exists()
    else [sys.executable, "-m", "sim.cli"]
)
#: (option, games) per command that plays games (enough for every analysis to have rows)
SMALL = {
    "run": ("--games", "300"),
    "power": ("--games", "200"),
    "meta": ("--games", "100"),
    "bench": ("--games", "200"),
    "sweep": ("--max-games", "300"),
    "study": ("--max-games", "300"),
}


def tour_lines(text=None):
    """The commands of the README's ``## A tour`` bash block, comments stripped, in order."""
    text = README.read_text(encoding="utf-8") if text is None else text
    section = text.split("## A tour", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    lines = []
    for raw in block.splitlines():
        cmd = raw.split("  #", 1)[0].split(" # ", 1)[0].strip()
        if cmd:
            lines.append(shlex.split(cmd))
    return lines


def with_small_games(argv):
    """``argv`` with its games set small when its command plays games."""
    argv = list(argv)
    command = argv[1] if len(argv) > 1 else ""
    if command not in SMALL:
        return argv
    option, games = SMALL[command]
    if option in argv:
        argv[argv.index(option) + 1] = games
    else:
        argv += [option, games]
    return argv


def test_tour_parses_into_sim_commands():
    lines = tour_lines()
    assert len(lines) >= 10
    assert all(argv[0].endswith("/sim") for argv in lines), [a for a in lines if not a[0].endswith("/sim")]


def test_each_dataset_line_writes_its_own_out():
    outs = [argv[argv.index("--out") + 1] for argv in tour_lines() if "--out" in argv]
    assert len(outs) == len(set(outs)), outs


def test_the_tour_runs_in_order(tmp_path):
    (tmp_path / "configs").symlink_to(ROOT / "configs")
    for argv in tour_lines():
        argv = SIM + with_small_games(argv)[1:]
        res = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=3600)
        assert res.returncode == 0, f"{shlex.join(argv[len(SIM) - 1 :])} failed:\n{res.stderr[-2000:]}"
