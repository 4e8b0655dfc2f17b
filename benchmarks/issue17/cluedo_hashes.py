"""Hash the games, seats and events rows of every shipped Cluedo run config (as ``row_hashes.py``
does for Bloody Inn), to show that a change to the shared compile settings keeps Cluedo's games.

Usage::

    PYTHONPATH=. python benchmarks/issue17/cluedo_hashes.py OUT.json [--games N]   # default 300
    python benchmarks/issue17/row_hashes.py --compare A.json B.json
"""

import json
import sys
from pathlib import Path

import tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))
from row_hashes import table_hash  # noqa: E402

from sim import api  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def main(argv):
    games = int(argv[argv.index("--games") + 1]) if "--games" in argv else 300
    out = {}
    for f in sorted((ROOT / "configs/cluedo").glob("*.toml")):
        cfg = tomllib.loads(f.read_text())
        if cfg.get("game") != "cluedo" or "seats" not in cfg:
            continue  # studies and sweeps are not run configs
        r = api.simulate(str(f), games=games, events=True)
        out[str(f.relative_to(ROOT))] = {k: table_hash(getattr(r, k)) for k in ("games", "seats", "events")}
        print(f.name, out[str(f.relative_to(ROOT))]["games"][0][:12], flush=True)
    Path(argv[1]).write_text(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv)
