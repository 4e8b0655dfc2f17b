"""Documented numbers that need game runs, recorded from a study's datasets and written into
the docs by ``python -m sim.docs``.

A study's answers (the verdicts, the ladder's answer table, the causal-power sentences) are
read from its finished datasets by the report's own code and recorded in a small JSON file
under ``docs/results/`` (checked in; ``results/`` is not)::

    sim study configs/studies/bloody_inn-quick.toml          # plays the games
    python -m sim.docs --record configs/studies/bloody_inn-quick.toml
    python -m sim.docs                                       # rewrites the docs' blocks

The generator of a block renders that file, so no number or interpretation in the block is
typed by hand, and ``python -m sim.docs --check`` names the block when the text and the
recorded results disagree.

Tables that are not a study's (a game's strategy tables) come from a module of the game's
home with ``record()`` (plays the cells, returns the results) and ``render(results)``
(their Markdown), recorded by the block's name::

    python -m sim.docs --record strategy-tables
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

#: docs block name -> (the study it records, the file under docs/results/)
RECORDED = {"quick-study": ("configs/studies/bloody_inn-quick.toml", "bloody_inn-quick.json")}
#: docs block name -> (the module that plays and renders its tables, the file under docs/results/)
TABLES = {"strategy-tables": ("sim.games.bloody_inn.strategy_tables", "bloody_inn-strategies.json")}


def _cell(v) -> str:
    return str(v).replace("|", "\\|").replace("\n", " ")


def _markdown_table(columns, rows) -> list:
    # the label and the sentence columns left, the numbers between them right
    align = ["---:" if 0 < i < len(columns) - 1 else ":---" for i in range(len(columns))]
    out = ["| " + " | ".join(map(_cell, columns)) + " |", "|" + "|".join(align) + "|"]
    return out + ["| " + " | ".join(map(_cell, r)) + " |" for r in rows]


def _commits(report) -> list:
    found = {
        (p.get("git_commit") or "")[:7] + ("+dirty" if p.get("git_dirty") else "")
        for prov in report.provenance
        for p in prov["points"]
    }
    return sorted(c for c in found if c)


def study_results(study_path, out=None) -> dict:
    """The answers of a finished study, as its report gives them.

    Parameters
    ----------
    study_path : path
        The study config.
    out : path, optional
        Where its datasets are (default: the study's ``out``).

    Returns
    -------
    dict
        ``study``, ``title``, ``games``, ``commits``, ``verdicts`` (title, sentence),
        ``ladders`` (caption, columns, rows, summary) and ``power`` (title, sentences).
    """
    from analysis.report import SCOPES
    from analysis.study import load_study, study_report
    from analysis.text import AnswerTable
    from analysis.verdicts import verdict_block

    study = load_study(study_path, out=out)
    report = study_report(study)
    ladders, power = [], []
    for sec in report.sections:
        if sec.question == "ladder":
            tables = [h for h in sec.headlines if isinstance(h, AnswerTable)]
            for t in tables:
                ladders.append(
                    {
                        "caption": t.caption,
                        "columns": t.table.columns,
                        "rows": [[str(v) for v in r] for r in t.table.rows()],
                        "summary": " ".join(h for h in sec.headlines if not isinstance(h, AnswerTable)),
                    }
                )
        elif sec.question == "power":
            sentences = [h for h in sec.headlines if not isinstance(h, AnswerTable)]
            power.append({"title": sec.title, "sentences": sentences})
    games = sum(p.get("games") or 0 for prov in report.provenance for p in prov["points"])
    return {
        "study": str(study_path),
        "title": report.title,
        "games": games,
        "commits": _commits(report),
        "verdicts": [
            {"title": v.title, "sentence": v.sentence} for v in verdict_block(report.sections, SCOPES)
        ],
        "ladders": ladders,
        "power": power,
    }


def record(study_path, root, out=None) -> Path:
    """Write a recorded study's results (or, given a name of :data:`TABLES`, those tables) to
    ``docs/results/`` under ``root``; return the file."""
    if str(study_path) in TABLES:
        module, name = TABLES[str(study_path)]
        results = importlib.import_module(module).record()
        path = Path(root) / "docs" / "results" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
        return path
    name = next((f for s, f in RECORDED.values() if Path(s) == Path(study_path)), None)
    if name is None:
        name = Path(study_path).stem + ".json"
    results = study_results(study_path, out)  # a missing dataset fails before anything is written
    path = Path(root) / "docs" / "results" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    return path


def render(results: dict) -> str:
    """The Markdown of a block: the verdicts, each ladder's answer table, the causal power."""
    commits = ", ".join(f"`{c}`" for c in results["commits"]) or "an unrecorded commit"
    o = [
        f"*Generated by `python -m sim.docs` from `docs/results/` (recorded with `python -m sim.docs "
        f"--record {results['study']}`: {results['games']:,} games, played at {commits}).*",
        "",
        "Verdicts (the report's first block):",
        "",
    ]
    o += [f"- **{v['title']}**: {v['sentence']}" for v in results["verdicts"]]
    for t in results["ladders"]:
        o += ["", f"*{t['caption']}*", ""] + _markdown_table(t["columns"], t["rows"])
        if t["summary"]:
            o += ["", t["summary"]]
    for p in results["power"]:
        o += ["", f"{p['title']}:", ""] + [f"- {s}" for s in p["sentences"]]
    return "\n".join(o) + "\n"


def block(name, root) -> str:
    """A recorded block's text (a note saying how to record it when the file is missing)."""
    if name in TABLES:
        module, file = TABLES[name]
        path = Path(root) / "docs" / "results" / file
        if not path.exists():
            return f"*Not recorded yet: run `python -m sim.docs --record {name}`.*\n"
        return importlib.import_module(module).render(json.loads(path.read_text(encoding="utf-8")))
    study, file = RECORDED[name]
    path = Path(root) / "docs" / "results" / file
    if not path.exists():
        return f"*Not recorded yet: run `sim study {study}`, then `python -m sim.docs --record {study}`.*\n"
    return render(json.loads(path.read_text(encoding="utf-8")))
