"""What a regular install needs: every package of the source tree is listed in
pyproject.toml (a missing one would not be installed), and the shipped configs are found
through the package from any working directory."""

from __future__ import annotations

from pathlib import Path

import tomllib

from sim import config

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_lists_every_package_and_ships_the_configs():
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("sim", "kernels", "analysis")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert set(tool["packages"]) == found | {"sim.configs"}
    assert tool["package-dir"] == {"sim.configs": "configs"}


def test_shipped_configs_are_found_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (config.data_dir() / "bloody_inn" / "cards.csv").is_file()
    shipped = config.config_path("configs/bloody_inn/long-3p.toml")
    assert shipped.is_file() and shipped.is_absolute()
    assert config.config_path("studies/bloody_inn-quick.toml").is_file()
    # a file of the working directory wins; a name found nowhere is left as given
    (tmp_path / "configs" / "bloody_inn").mkdir(parents=True)
    (tmp_path / "configs" / "bloody_inn" / "long-3p.toml").write_text('game = "bloody_inn"\n')
    assert config.config_path("configs/bloody_inn/long-3p.toml") == Path("configs/bloody_inn/long-3p.toml")
    assert config.config_path("nope.toml") == Path("nope.toml")
