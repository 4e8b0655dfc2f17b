"""Fixtures shared by the report tests."""

import pytest
from synthetic_data import bloody_inn_config, bloody_inn_tables, write_sweep


@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory):
    pts = []
    for p in (2, 3):
        for d in (35, 54):
            g, s = bloody_inn_tables(400, p, seed=p * 100 + d, deck_size=d)
            pts.append(
                (
                    f"p{p}_d{d}",
                    {"players": p, "rules.deck_size": d},
                    g,
                    s,
                    bloody_inn_config(p, games=400, deck_size=d),
                )
            )
    return write_sweep(tmp_path_factory.mktemp("s") / "sweep", pts)
