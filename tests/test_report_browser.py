"""Reports in a real browser (headless Chromium, 1400 px wide): each shipped report kind
loads without console errors, every figure renders, and no table or SVG sticks out of its
container (measured in the DOM).  CI installs Chromium (.ci/run); a missing browser fails."""

import html as html_lib
import json
import re
import shutil
import subprocess

import pytest
from synthetic_data import bloody_inn_config, bloody_inn_events, bloody_inn_tables, write_run

from analysis.report import report_for_dir, write_report

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]

# Runs once the page has laid out; writes its findings into the DOM for --dump-dom.
_CHECK = """<script>
const _errors = [];
window.addEventListener('error', e => _errors.push(String(e.message)));
const _log = console.error; console.error = (...a) => { _errors.push(a.join(' ')); _log(...a); };
window.addEventListener('load', () => {
  const over = [];
  for (const e of document.querySelectorAll('table, svg')) {
    if (e.closest('details:not([open])') || (e.tagName === 'svg' && e.parentElement.closest('svg'))) continue;
    const box = e.closest('.scroll') || e.parentElement;
    const r = e.getBoundingClientRect(), c = box.getBoundingClientRect();
    const scrolls = box.classList.contains('scroll');
    if (!scrolls && r.right > c.right + 1) over.push(e.tagName + ' in ' + box.tagName);
    if (scrolls && c.right > document.documentElement.clientWidth + 1) over.push('scroll box');
  }
  const svgs = [...document.querySelectorAll('figure svg')];
  const empty = svgs.filter(s => { const r = s.getBoundingClientRect(); return !(r.width > 50 && r.height > 50); }).length;
  document.body.setAttribute('data-check', JSON.stringify({errors: _errors, over: over.slice(0, 5),
    figures: svgs.length, empty: empty,
    scroll: document.documentElement.scrollWidth, page: document.documentElement.clientWidth}));
});
</script>"""


def browser():
    b = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    assert b, "no Chromium on PATH: apt-get install -y chromium (.ci/run does it)"
    return b


def _run(args, tmp_path):
    cmd = [browser(), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def check_page(html_path, tmp_path):
    """The page's findings (console errors, overflowing elements, figures) and a screenshot."""
    probe = tmp_path / "probe.html"
    probe.write_text(html_path.read_text().replace("<head>", "<head>" + _CHECK, 1))
    res = _run(["--virtual-time-budget=5000", "--dump-dom", probe.as_uri()], tmp_path)
    m = re.search(r'data-check="([^"]*)"', res.stdout)
    assert m, f"the page did not run its check (browser exit {res.returncode}): {res.stderr[-500:]}"
    shot = tmp_path / "screenshot.png"
    _run([f"--screenshot={shot}", html_path.as_uri()], tmp_path)
    assert shot.is_file() and shot.stat().st_size > 5000, "no screenshot"
    return json.loads(html_lib.unescape(m.group(1)))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    g, s = bloody_inn_tables(1500, 3, seed=4, strategies=("a", "b", "c"), skill={"a": 2.0}, winners_build=3)
    ev = bloody_inn_events(g.head(20), s.head(60))
    cfg = bloody_inn_config(3, games=1500, strategies=("a", "b", "c"))
    return write_run(tmp_path_factory.mktemp("r") / "run", g, s, cfg, events=ev)


@pytest.fixture(scope="module")
def power_report(tmp_path_factory):
    """The report a real (tiny) ``sim power`` run writes beside its dataset."""
    from typer.testing import CliRunner

    from sim.cli import app

    root = tmp_path_factory.mktemp("p")
    (root / "p.toml").write_text('game = "bloody_inn"\nplayers = 2\ngames = 40\nseed = 5\n')
    res = CliRunner().invoke(
        app, ["power", str(root / "p.toml"), "--cards", "bishop,grocer", "--out", str(root / "pw")]
    )
    assert res.exit_code == 0, res.output
    return root / "pw" / "report.html"


@pytest.mark.parametrize("kind", ["run", "sweep", "power"])
def test_report_loads_without_errors_or_overflow(kind, run_dir, small_sweep, power_report, tmp_path):
    if kind == "power":
        html_path = power_report
    else:
        data = run_dir if kind == "run" else small_sweep
        html_path, _ = write_report(report_for_dir(data), tmp_path / "report.html")
    text = html_path.read_text()
    assert text.index('id="verdicts"') < text.index('id="answers"'), "the verdict block comes first"
    c = check_page(html_path, tmp_path)
    assert c["errors"] == [], c
    assert c["figures"] == text.count("<figure>") >= 3 and c["empty"] == 0, c
    assert c["over"] == [] and c["scroll"] <= c["page"], c


def test_overflow_check_can_fail(tmp_path):
    # a fixed-width table outside any scroll box must be caught
    page = tmp_path / "wide.html"
    page.write_text(
        '<!DOCTYPE html><html><head></head><body><div style="width:300px">'
        '<table style="width:2000px"><tr><td>x</td></tr></table></div></body></html>'
    )
    c = check_page(page, tmp_path)
    assert c["over"] == ["TABLE in DIV"]
