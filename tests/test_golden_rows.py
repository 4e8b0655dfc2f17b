"""Golden rows: every shipped config still plays the rows recorded in ``tests/golden/rows.json``.

The digests guard against change only (the rules tests and the referees say whether the rows
are right).  After an intended change of the rows, regenerate them with
``PYTHONPATH=. python tests/golden_rows.py`` and say in the commit why they changed.
"""

import json

import golden_rows
import pytest

GOLDEN = json.loads(golden_rows.GOLDEN.read_text())
CASES = golden_rows.cases()


def _plays():
    """One (first label, resolved config) per distinct play key, in the cases' order."""
    seen = {}
    for label, resolved in CASES.items():
        seen.setdefault(golden_rows.play_key(resolved), (label, resolved))
    return list(seen.values())


PLAYS = _plays()


def test_every_case_has_a_golden_digest():
    """A new shipped config (or a config whose resolved form changed) needs its digest."""
    now = {label: golden_rows.play_key(r) for label, r in CASES.items()}
    missing = sorted(set(now) - set(GOLDEN["cases"]))
    changed = sorted(k for k in set(now) & set(GOLDEN["cases"]) if now[k] != GOLDEN["cases"][k])
    gone = sorted(set(GOLDEN["cases"]) - set(now))
    assert not (missing or changed or gone), {"missing": missing, "changed": changed, "gone": gone}


def test_the_cases_cover_every_kind_of_shipped_config():
    labels = list(CASES)
    for kind in (
        "configs/bloody_inn/",
        "configs/cluedo/",
        "/power/",
        "sweeps/",
        "configs/meta/",
        "configs/studies/",
    ):
        assert any(kind in lab for lab in labels), kind
    assert any(":card:" in lab for lab in labels) and any(":action:" in lab for lab in labels)
    assert any(lab.startswith("configs/studies/") and "~" in lab for lab in labels)  # a study's meta entry


@pytest.mark.parametrize("label, resolved", PLAYS, ids=[label for label, _ in PLAYS])
def test_rows_are_the_golden_rows(label, resolved):
    key = golden_rows.play_key(resolved)
    assert key in GOLDEN["rows"], f"{label}: no golden digest (regenerate: python tests/golden_rows.py)"
    assert golden_rows.play(resolved) == GOLDEN["rows"][key], label
