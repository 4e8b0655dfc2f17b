"""Report layout a designer reads at a glance: the deck and characters verdicts (their
sizes and sets said with who plays), the seat panels of a deck sweep as a players x deck
grid, heat-map cells with their intervals, the official deck always in a sweep's grid, and
Markdown readable as plain text (padded columns within 100 characters, captions once, long
tables in the appendix)."""

import re
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest

from analysis.report import MD_WIDTH, report_for_dir, write_report
from analysis.verdicts import characters_verdict, deck_verdict, spread_interval
from sim.sweep import load


@pytest.fixture(scope="module")
def sweep_report(small_sweep, tmp_path_factory):
    html, md = write_report(report_for_dir(small_sweep), tmp_path_factory.mktemp("rep") / "report.html")
    return html.read_text(), md.read_text()


def _section(question, tables, scope="every seat plays random"):
    return SimpleNamespace(
        question=question, title=question, dataset="", scope=scope, tables=[(n, "", "", t) for n, t in tables]
    )


def _best(players, best, best_set, official, in_set, p_best=0.3):
    return {
        "players": players,
        "deck_sizes": 3,
        "best": best,
        "p_best": p_best,
        "best_set": best_set,
        "official": official,
        "official_in_set": in_set,
    }


def test_deck_verdict_says_where_the_official_deck_stands_and_who_plays():
    best = pl.DataFrame(
        [
            _best(2, 40, "30, 40, 45", 45, True),
            _best(3, 20, "20", 54, False, p_best=0.8),
            _best(4, 50, "50, 60", None, None),
        ]
    )
    cells = pl.DataFrame(
        {"players": [2, 3, 3], "deck_size": [40, 20, 54], "rounds": [12.0, 4.0, 15.3], "games": [500] * 3}
    )
    v = deck_verdict(_section("deck", [("best_deck", best), ("deck_cells", cells)]))
    s = v.sentence
    assert "every seat plays random" in s and "500 games per cell" in s
    assert "2p: most even 40 cards (12.0 rounds)" in s and "official 45 cards among them" in s
    # 20 cards means 4-round games: the length comes with the recommendation
    assert (
        "3p: most even 20 cards (4.0 rounds)" in s
        and "official 54 cards (15.3 rounds) detectably less even" in s
    )
    assert "4p:" in s and "the official deck is not in the grid" in s
    assert "No single deck" not in s  # 3p's best is clear in 80% of replicates


def test_spread_interval_covers_the_true_spread_of_dependent_shares():
    # four characters in every game, exactly one wins (their shares are negatively dependent)
    rng = np.random.default_rng(7)
    truth = np.array([0.2, 0.25, 0.25, 0.3])
    n, hits = 300, 0
    for _ in range(400):
        wins = np.bincount(rng.choice(4, size=n, p=truth), minlength=4)
        d, lo, hi = spread_interval(wins.tolist(), [n] * 4)
        assert lo <= d <= hi
        hits += lo <= 0.1 <= hi
    assert hits / 400 >= 0.95
    # clearly apart shares give a spread clear of 0; equal ones reach 0
    assert spread_interval([1000, 4000], [10000, 10000])[1] > 0.25
    assert spread_interval([250, 250, 250], [1000] * 3)[1] == 0.0


def test_characters_verdict_states_the_size_not_only_a_p_value():
    t = pl.DataFrame(
        {
            "players": [4] * 3,
            "character": ["green", "plum", "scarlett"],
            "games": [4000] * 3,
            "wins": [1000.0, 600.0, 1400.0],
        }
    ).with_columns((pl.col("wins") / pl.col("games")).alias("share"))
    tests = pl.DataFrame({"players": [4], "p_value": [0.0001]})
    s = characters_verdict(
        _section("characters", [("character_win_share", t), ("character_equality", tests)])
    )
    s = s.sentence
    m = re.search(r"4p: character win shares spread 20\.0 pts \[(\d+\.\d), (\d+\.\d)\]", s)
    assert m and 0 < float(m.group(1)) < 20 < float(m.group(2)), s
    assert "plum 15.0% to scarlett 35.0%" in s and "differ by at least" in s and "p < 0.001" in s


def test_seat_panels_of_a_deck_sweep_form_a_players_by_deck_grid(sweep_report):
    html, _ = sweep_report
    svg = next(s for s in re.findall(r"<svg.*?</svg>", html, re.S) if "2p, deck_size 35" in s)
    titles = {}
    for text in re.findall(r"<text[^>]*>[^<]*</text>", svg):
        m = re.search(r">(\dp, deck_size \d+)<", text)
        if m:
            xy = re.search(r'x="([-\d.]+)" y="([-\d.]+)"', text) or re.search(
                r"translate\(([-\d.]+) ([-\d.]+)\)", text
            )
            titles[m.group(1)] = (float(xy.group(1)), float(xy.group(2)))
    assert set(titles) == {"2p, deck_size 35", "2p, deck_size 54", "3p, deck_size 35", "3p, deck_size 54"}
    # a row per player count, a column per deck size
    assert titles["2p, deck_size 35"][1] == titles["2p, deck_size 54"][1] < titles["3p, deck_size 35"][1]
    assert titles["2p, deck_size 35"][0] == titles["3p, deck_size 35"][0] < titles["2p, deck_size 54"][0]


def test_heat_map_cells_carry_their_intervals(sweep_report):
    html, _ = sweep_report
    svg = next(s for s in re.findall(r"<svg.*?</svg>", html, re.S) if "first-player gap (pts)" in s)
    cells = re.findall(r">\[([+-]\d+\.\d), ([+-]\d+\.\d)\]<", svg)
    assert len(cells) == 4 and all(float(a) <= float(b) for a, b in cells)  # one per cell of the grid
    assert "each cell with its 95% interval" in html


def test_markdown_reads_as_plain_text(sweep_report):
    _, md = sweep_report
    body = md[: md.index("<!-- provenance:start -->")]
    tables = re.findall(r"(?:^\|.*\|\n)+", body, re.M)
    assert tables
    for t in tables:
        lines = t.splitlines()
        assert len({len(x) for x in lines}) == 1, t  # padded: every row as wide as the header
        assert len(lines[0]) <= MD_WIDTH or lines[0].count("|") <= 3, t
    assert max(len(x) for x in body.splitlines() if not x.startswith("![")) <= MD_WIDTH
    # each figure's caption once (the image's alt text is its section and number)
    for cap in re.findall(r"^\*(Each seat's win share[^*]*)\*$", body, re.M | re.S):
        assert body.count(cap.split("\n")[0]) == 1
    assert body.index("## Verdicts") < body.index("## Answers")
    long = re.findall(r"^(\d+) rows: table (A\d+) in the appendix\.$", body, re.M)
    assert long and all(int(n) > 30 for n, _ in long)
    for _, ref in long:
        assert f"### {ref}. " in body[body.index("## Appendix") :]


def test_a_sweep_grid_holds_the_official_deck(tmp_path):
    (tmp_path / "base.toml").write_text(
        'game = "bloody_inn"\nplayers = 3\ngames = 10\nseed = 1\n[rules]\nlength = "long"\n'
    )
    (tmp_path / "s.toml").write_text(
        'base = "base.toml"\n[grid]\nplayers = [2, 3]\n"rules.deck_size" = [45, 60, "default"]\n'
    )
    sw = load(tmp_path / "s.toml")
    got = [(p.values["players"], p.values["rules.deck_size"]) for p in sw.points]
    # BI-S2 long: 45 cards at 2 players (already in the grid: played once), 54 at 3
    assert got == [(2, 45), (2, 60), (3, 45), (3, 60), (3, 54)]
    assert [p.resolved["rules"]["deck_size"] for p in sw.points] == [v for _, v in got]
    assert sw.points[-1].name == "p005_players=3_rules.deck_size=54"


def test_characters_get_a_forest_plot_one_point_each():
    from analysis.questions.characters import plots

    t = pl.DataFrame(
        {
            "players": [4] * 3,
            "character": ["green", "plum", "scarlett"],
            "games": [4000] * 3,
            "wins": [1000.0, 600.0, 1400.0],
            "share": [0.25, 0.15, 0.35],
            "share_lo": [0.24, 0.14, 0.34],
            "share_hi": [0.26, 0.16, 0.36],
            "fair": [0.25] * 3,
            "gap": [0.0, -0.10, 0.10],
        }
    )
    ((caption, svg),) = plots(None, {"character_win_share": t})
    block = re.search(r'<g id="forest-points-0">(.*?)</g>\s*</g>', svg, re.S).group(1)
    assert len(re.findall(r"<use ", block)) == 3 and "fair share 1/n" in caption
    labels = [x for x in re.findall(r">([a-z]+)</text>", svg) if x in ("green", "plum", "scarlett")]
    assert labels == ["plum", "green", "scarlett"]  # sorted, largest on top


def test_rounds_are_bars_one_panel_per_player_count(sweep_report):
    html, _ = sweep_report
    svg = next(s for s in re.findall(r"<figure>(<svg.*?</svg>)\s*<figcaption>Rounds per game", html, re.S))
    assert ">2 players<" in svg and ">3 players<" in svg
    assert len(re.findall(r'<g id="patch_\d+">', svg)) > 4  # bars (patches), not a step line


def test_imbalance_heat_map_cells_carry_intervals_for_the_true_imbalance(sweep_report):
    html, _ = sweep_report
    svg = next(s for s in re.findall(r"<svg.*?</svg>", html, re.S) if "imbalance (pts)" in s)
    values = [float(v) for v in re.findall(r">(\d+\.\d)<", svg)]
    cells = [(float(a), float(b)) for a, b in re.findall(r">\[(\d+\.\d), (\d+\.\d)\]<", svg)]
    assert len(cells) == 4 and "*" not in "".join(re.findall(r">([^<]*)</text>", svg))
    # each cell's interval (printed under its number) holds its imbalance; an unsigned size
    assert len(values) == 4 and all(lo <= v <= hi for v, (lo, hi) in zip(values, cells))


def test_characters_verdict_of_a_power_run_names_each_arm():
    # a power run's tables carry the arm's name in ``arm`` and its id in ``arm_id``
    rows = [("Bishopric barred", "card:bishop", w) for w in (1000.0, 600.0)]
    rows += [("baseline (nobody barred)", "baseline", w) for w in (800.0, 800.0)]
    t = pl.DataFrame(
        {
            "players": [3] * 4,
            "arm": [r[0] for r in rows],
            "character": ["green", "plum"] * 2,
            "games": [4000] * 4,
            "wins": [r[2] for r in rows],
            "arm_id": [r[1] for r in rows],
        }
    ).with_columns((pl.col("wins") / pl.col("games")).alias("share"))
    s = characters_verdict(_section("characters", [("character_win_share", t)])).sentence
    assert "3p, Bishopric barred: character win shares spread 10.0 pts" in s, s
    assert "3p, baseline (nobody barred): character win shares spread 0.0 pts" in s, s
    assert "arm=" not in s and "arm_id" not in s and "card:bishop" not in s
