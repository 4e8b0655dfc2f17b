"""The causal-power report: arms in the game's words, the forest plot (one point per arm,
sorted, 0 marked), ``sim power`` writing its report beside the dataset, and the figures'
one colour-blind-safe palette."""

import re
from types import SimpleNamespace

import polars as pl
from typer.testing import CliRunner

from analysis import plots as P
from analysis.questions.power import character_headlines
from analysis.report_power import arm_label, kind_names, title
from sim.cli import app

#: facts as a game's adapter records them (a card table with annex names, restricted play)
FACTS = {
    "annex_bits": ["grocer", "bishop"],
    "cards": [
        {"id": "grocer", "annex": "Grocery", "rank": 1, "colour": "green"},
        {"id": "bishop", "annex": "Bishopric", "rank": 3, "colour": "purple"},
    ],
}


def _points(svg, group):
    """Marker positions (x, y) drawn in the SVG group ``group``."""
    m = re.search(rf'<g id="{group}">(.*?)</g>\s*</g>', svg, re.S)
    return [] if m is None else re.findall(r'<use [^>]*x="([-\d.]+)" y="([-\d.]+)"', m.group(1))


def _tick_labels(svg):
    return re.findall(r"<text[^>]*>([^<]+)</text>", svg)


def test_arms_read_by_annex_name_and_by_the_adapters_words():
    ds = SimpleNamespace(facts=FACTS)
    assert arm_label(ds, "card:bishop") == "Bishopric barred"
    assert arm_label(ds, "card:grocer") == "Grocery barred"
    assert arm_label(ds, "action:kill") == "kill barred"  # no declared name: its own id
    assert arm_label(ds, "baseline") == "baseline (nobody barred)"
    cluedo = SimpleNamespace(
        facts={
            "restricted_play": {
                "title": "Causal power of the modern elements",
                "kinds": {"action": "modern elements"},
                "arms": {"passage": "secret passages (CL-T3)"},
            }
        }
    )
    assert arm_label(cluedo, "action:passage") == "secret passages (CL-T3) barred"
    assert kind_names(cluedo)["action"] == "modern elements"
    assert title(cluedo) == "Causal power of the modern elements"
    assert "annexes" in title(SimpleNamespace(facts={}))  # Bloody Inn keeps its own words


def test_forest_plot_has_one_point_per_arm_sorted_with_zero_marked():
    t = pl.DataFrame(
        {
            "target": ["Bishopric", "Grocery", "Stables", "Altar"],
            "power": [0.05, 0.12, -0.03, 0.30],
            "power_lo": [0.01, 0.08, -0.07, 0.30],
            "power_hi": [0.09, 0.16, 0.01, 0.30],
            "never": [False, False, False, True],
        }
    )
    svg = P.forest(t, "target", flag="never", flag_label="never won")
    drawn = _points(svg, "forest-points-0")
    assert len(drawn) == 3 and len(_points(svg, "forest-flagged-0")) == 1
    # largest on top: SVG y grows downwards, so the y of the points falls as the power rises
    by_x = sorted(drawn, key=lambda p: float(p[0]))
    assert [float(y) for _, y in by_x] == sorted((float(y) for _, y in by_x), reverse=True)
    labels = _tick_labels(svg)
    assert [n for n in labels if n in set(t["target"])] == ["Stables", "Bishopric", "Grocery", "Altar"]
    assert "never won" in labels
    assert 'id="line2d_' in svg and "stroke-dasharray" in svg  # the dashed zero line


def test_figures_use_the_one_palette():
    assert P.POINT == P.PALETTE[0] == "#0072B2"  # Okabe-Ito blue
    assert len(set(P.MARKERS)) == len(P.PALETTE)  # a marker per series as well as a colour
    t = pl.DataFrame(
        {"target": ["a", "b"], "power": [0.1, 0.2], "power_lo": [0.0, 0.1], "power_hi": [0.2, 0.3]}
    )
    svg = P.forest(t, "target").lower()
    assert "#0072b2" in svg and "#2e86c1" not in svg


def test_characters_headline_lists_only_the_sides_that_have_characters():
    rows = [("green", 0.01, -0.02, 0.04), ("plum", -0.19, -0.27, -0.11)]
    t = pl.DataFrame(
        {
            "players": [4, 4],
            "kind": ["character", "character"],
            "target": [r[0] for r in rows],
            "units": [30, 30],
            "share": [0.26, 0.06],
            "power": [r[1] for r in rows],
            "power_lo": [r[2] for r in rows],
            "power_hi": [r[3] for r in rows],
        }
    )
    (line,) = character_headlines({"character_power": t})
    assert "below: plum" in line and "above the fair share" not in line and ": ;" not in line


def test_sim_power_writes_its_report_with_the_forest_plot(tmp_path):
    cfg = tmp_path / "p.toml"
    cfg.write_text(
        'game = "bloody_inn"\nname = "tiny-power"\nplayers = 2\ngames = 40\nseed = 5\n'
        '[[seats]]\nstrategy = "random"\n'
    )
    out = tmp_path / "pw"
    r = CliRunner().invoke(app, ["power", str(cfg), "--cards", "bishop,grocer", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert f"report: {out / 'report.html'}" in r.output
    html, md = (out / "report.html").read_text(), (out / "report.md").read_text()
    assert "<title>Causal power: tiny-power</title>" in html
    # the causal section comes first, its arms named as the lift plot names annexes
    assert md.index("\n## Causal power of annexes") < md.index("\n## Card ranks and card power")
    assert md.index("\n### Causal power of annexes") < md.index("\n### Card ranks and card power")
    verdicts = md[md.index("## Verdicts") : md.index("## Answers")]
    assert "Bishopric" in verdicts and "Grocery" in verdicts and "bishop," not in verdicts
    answers = md[md.index("\n## Answers") : md.index("\n## Causal power of annexes")]
    assert "arm=" not in verdicts + answers and "card:bishop" not in answers
    assert "2 players, Bishopric barred: " in answers  # the seat sentences too
    assert ">2p, Bishopric barred<" in html  # the seat panels' titles
    # the metric tables name the arms too, the id kept in its own column for joins
    seat_table = md[md.index("\n### Win share by seat\n") :]
    seat_table = seat_table[: seat_table.index("\n### ", 1)]
    assert re.search(r"\| 2 +\| Bishopric barred +\|", seat_table), seat_table
    assert "| arm_id" in seat_table and "card:bishop" in seat_table
    svg = next(s for s in re.findall(r"<svg.*?</svg>", html, re.S) if "forest-points-0" in s)
    drawn = _points(svg, "forest-points-0") + _points(svg, "forest-flagged-0")
    assert len(drawn) == 2  # one point per barred annex
    assert {"Bishopric", "Grocery"} <= set(_tick_labels(svg))
    # every duplicate-deal sentence names its arm
    dup = [x for x in re.findall(r"<li>(.*?)</li>", html) if "with duplicate deals the first player" in x]
    assert len(dup) == 3 and all(re.search(r"(Bishopric|Grocery) barred|baseline", x) for x in dup)
