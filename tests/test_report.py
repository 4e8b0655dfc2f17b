"""Reports: sections present, valid self-contained HTML, Markdown twin, byte-identical
output for the same data (apart from the provenance block), and the CLI commands."""

import json
import shutil
from html.parser import HTMLParser

import pytest
from synthetic_data import bloody_inn_config, bloody_inn_events, bloody_inn_tables, write_run
from typer.testing import CliRunner

from analysis.report import PROVENANCE_END, PROVENANCE_START, report_for_dir, strip_provenance, write_report
from sim.cli import app


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    g, s = bloody_inn_tables(
        1500, 3, seed=4, strategies=("a", "b", "c"), skill={"a": 2.0}, winners_build=3, shared_rate=0.05
    )
    ev = bloody_inn_events(g.head(20), s.head(60))
    return write_run(
        tmp_path_factory.mktemp("r") / "run",
        g,
        s,
        bloody_inn_config(3, games=1500, strategies=("a", "b", "c")),
        events=ev,
    )


class _Checker(HTMLParser):
    """Collects tags, checks nesting of the usual block elements and external references."""

    VOID = {
        "meta",
        "br",
        "hr",
        "img",
        "input",
        "link",
        "col",
        "area",
        "base",
        "source",
        "wbr",
        "path",
        "use",
        "rect",
        "circle",
        "line",
        "stop",
        "polyline",
        "polygon",
        "ellipse",
        "image",
    }

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.tags, self.external, self.errors = [], [], [], []
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if (
                k in ("src", "href", "xlink:href", "data", "action", "poster")
                and v
                and not v.startswith("#")
                and not v.startswith("data:")
            ):
                self.external.append((tag, k, v))
            if k == "style" and v and "url(" in v and "url(#" not in v:
                self.external.append((tag, k, v))
        if tag in ("script", "link", "iframe", "object", "embed"):
            self.external.append((tag, "tag", ""))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if (
                k in ("src", "href", "xlink:href")
                and v
                and not v.startswith("#")
                and not v.startswith("data:")
            ):
                self.external.append((tag, k, v))

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def _parse(text):
    c = _Checker()
    c.feed(text)
    c.close()
    return c


def test_report_renders_with_its_sections(small_run, tmp_path):
    rep = report_for_dir(small_run)
    html_path, md_path = write_report(rep, tmp_path / "out" / "report.html")
    text = html_path.read_text()
    c = _parse(text)
    assert c.errors == [] and c.stack == []
    assert c.external == []
    body = " ".join(c.text)
    for heading in (
        "Answers",
        "First-player advantage and seat balance",
        "Strategy strength",
        "Card ranks and card power",
        "Duration and economy",
        "Provenance",
    ):
        assert heading in body
    # answers come before the tables, provenance last
    assert text.index("Answers") < text.index("Win share by seat</h3>") < text.index("Provenance")
    assert text.count("<svg") >= 4 and "<table>" in text
    assert "Gardens" in body and "first-player advantage" in body
    # provenance lists the data checksum and the config
    assert "data_sha256" in body and "chunk_files" in body and '"players": 3' in body
    md = md_path.read_text()
    assert md.startswith("# Balance report") and "## Answers" in md and "## Provenance" in md
    plots = sorted((tmp_path / "out" / "report_plots").glob("*.svg"))
    assert plots and all(f"report_plots/{p.name}" in md for p in plots)
    # same headline sentences in both
    assert "- 3 players: no detectable first-player advantage" in md


def test_sweep_report_has_deck_heatmaps(small_sweep, tmp_path):
    html_path, _ = write_report(report_for_dir(small_sweep), tmp_path / "r.html")
    text = html_path.read_text()
    assert "Deck size by player count" in text and "not detectably worse" in text
    assert '<th class="t">most even (chance best)</th>' in text  # the answer table is a table
    c = _parse(text)
    assert c.errors == [] and c.external == []


def test_same_data_same_bytes_apart_from_provenance(small_run, tmp_path):
    a = tmp_path / "a" / "run"
    b = tmp_path / "b" / "run"
    shutil.copytree(small_run, a)
    shutil.copytree(small_run, b)
    ha, ma = write_report(report_for_dir(a), tmp_path / "ra" / "report.html")
    hb, mb = write_report(report_for_dir(b), tmp_path / "rb" / "report.html")
    ta, tb = ha.read_text(), hb.read_text()
    assert ta != tb  # provenance names different paths
    assert PROVENANCE_START in ta and PROVENANCE_END in ta
    assert strip_provenance(ta) == strip_provenance(tb)
    assert strip_provenance(ma.read_text()) == strip_provenance(mb.read_text())
    # the same directory twice (the provenance holds the current git commit, which may move)
    hc, _ = write_report(report_for_dir(a), tmp_path / "rc" / "report.html")
    assert strip_provenance(hc.read_text()) == strip_provenance(ta)
    plots = list((tmp_path / "ra" / "report_plots").glob("*.svg"))
    assert plots
    for p in plots:
        assert p.read_bytes() == (tmp_path / "rb" / "report_plots" / p.name).read_bytes()


def test_cli_analyse_json_csv_and_text(small_run):
    runner = CliRunner()
    res = runner.invoke(app, ["analyse", str(small_run), "--question", "seats", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    rows = data["questions"]["seats"]["tables"]["seat_win_share"]["rows"]
    assert [r["seat"] for r in rows] == [0, 1, 2]
    assert sum(r["games"] for r in rows) == 4500
    res = runner.invoke(app, ["analyse", str(small_run), "-q", "cards", "--csv"])
    assert res.exit_code == 0 and "# cards/annex_lift\nannex,card,rank" in res.stdout
    res = runner.invoke(app, ["analyse", str(small_run), "-q", "strategies"])
    assert res.exit_code == 0 and "Bradley-Terry" in res.stdout


def test_cli_errors_are_one_line(tmp_path, small_run):
    runner = CliRunner()
    res = runner.invoke(app, ["analyse", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "no such directory" in res.output
    assert "Traceback" not in res.output
    res = runner.invoke(app, ["analyse", str(small_run), "-q", "colour"])
    assert res.exit_code == 2 and "--question = 'colour' is invalid" in res.output


def test_cli_report(small_run, tmp_path):
    out = tmp_path / "rep" / "x.html"
    res = CliRunner().invoke(app, ["report", str(small_run), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert out.is_file() and out.with_suffix(".md").is_file()


# --- a real browser --------------------------------------------------------------------

_BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)

# Runs in the page once it has laid out: every figure must have a size, and nothing may
# stick out of the page (a wide table scrolls inside its own box, which is allowed).
_CHECK = """<script>
window.addEventListener('load', () => {
  const page = document.documentElement.clientWidth;
  const svgs = [...document.querySelectorAll('figure svg')];
  const empty = svgs.filter(s => { const r = s.getBoundingClientRect(); return !(r.width > 50 && r.height > 50); }).length;
  const over = [...document.body.querySelectorAll('*')].filter(e => {
    if (e.closest('.scroll') || e.closest('details:not([open])')) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.right > page + 1;
  }).map(e => e.tagName + '.' + (e.className && e.className.baseVal === undefined ? e.className : '')).slice(0, 5);
  document.body.setAttribute('data-check', JSON.stringify({
    figures: svgs.length, empty: empty, over: over,
    scroll: document.documentElement.scrollWidth, page: page}));
});
</script>"""


def _browser_check(html_path, tmp_path):
    import subprocess

    probe = tmp_path / "probe.html"
    probe.write_text(html_path.read_text().replace("</body>", _CHECK + "</body>"))
    profile = tmp_path / "profile"
    res = subprocess.run(
        [
            _BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--window-size=1280,900",
            "--virtual-time-budget=5000",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    import html as html_lib
    import re

    m = re.search(r'data-check="([^"]*)"', res.stdout)
    assert m, f"the page did not run its check (browser exit {res.returncode}): {res.stderr[-500:]}"
    return json.loads(html_lib.unescape(m.group(1)))


def test_reports_render_in_a_browser_without_overflow(small_run, small_sweep, tmp_path):
    assert _BROWSER, "no Chromium on PATH: apt-get install -y chromium (.ci/run does it)"
    for name, data in (("run", small_run), ("sweep", small_sweep)):
        html_path, md_path = write_report(report_for_dir(data), tmp_path / name / "report.html")
        c = _browser_check(html_path, tmp_path / name)
        expected = html_path.read_text().count("<figure>")
        assert c["figures"] == expected and expected >= 3, c
        assert c["empty"] == 0, f"{name}: {c['empty']} figures did not render"
        assert c["over"] == [] and c["scroll"] <= c["page"], f"{name}: overflows the page: {c}"
