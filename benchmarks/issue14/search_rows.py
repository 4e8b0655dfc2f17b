"""Hash the rows of the hash set's ``search`` configs without their ``config_id`` column.

``benchmarks/issue17/row_hashes.py`` hashes every column, ``config_id`` included, and a new
search parameter changes the resolved config (so the id) of every config with a search seat
while its rows stay the same.  Run this on both commits (the tree on ``PYTHONPATH``) and
compare the two files::

    PYTHONPATH=. python benchmarks/issue14/search_rows.py OUT.json
    python benchmarks/issue17/row_hashes.py --compare A.json B.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "issue17"))

from row_hashes import configs, table_hash  # noqa: E402


def main(argv):
    from sim import api

    res = {}
    for name, cfg, games in configs(2000):
        if "search" not in name:
            continue
        r = api.simulate(cfg, games=games, events=True)
        res[name] = {
            t: list(table_hash(getattr(r, t).drop_columns(["config_id"])))
            for t in ("games", "seats", "events")
        }
        print(name, res[name]["seats"][0][:12], file=sys.stderr, flush=True)
    Path(argv[0]).write_text(json.dumps(res, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
