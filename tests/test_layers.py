"""The house rules the suite checks: the import contracts in ``pyproject.toml`` (``[tool.importlinter]``):
store → capabilities → agent → sessions → tui → serve → cli, each importing only the layers after it,
``locations`` and ``text`` usable by all, no circles between the modules of a package (imports inside
functions count, and so do imports made for annotations only, under ``TYPE_CHECKING``); and modules of about
600 lines at most."""

from __future__ import annotations

import tomllib
from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def test_imports_keep_the_layers_and_have_no_circles(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out


def _circle_contract(config: dict) -> dict:
    return next(c for c in config["contracts"] if c["type"] == "acyclic_siblings")


def test_the_circle_check_counts_imports_for_annotations_only(tmp_path, monkeypatch, capsys):
    """The circle contract covers the store and the main screen's modules with nothing ignored, and, configured as
    it is, fails a loop closed by an import under ``TYPE_CHECKING`` (as ``self: MainScreen`` in a mixin was)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    contract = _circle_contract(config)
    assert {"haiku_tui.store", "haiku_tui.tui.main"} <= set(contract["ancestors"])
    assert not contract.get("ignore_imports") and not config.get("exclude_type_checking_imports")

    package = tmp_path / "loop" / "part"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "screen.py").write_text("from loop.part.mixin import Mixin\n\nclass Screen(Mixin): ...\n")
    (package / "mixin.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from loop.part.screen import Screen\n\n"
        "class Mixin:\n    def act(self: 'Screen') -> None: ...\n"
    )
    trial = {k: v for k, v in config.items() if k != "contracts"} | {
        "root_package": "loop",
        "contracts": [{**contract, "ancestors": ["loop.part"]}],
    }
    lines = ["[tool.importlinter]", *(f"{k} = {_toml(v)}" for k, v in trial.items() if k != "contracts")]
    for c in trial["contracts"]:
        lines += ["[[tool.importlinter.contracts]]", *(f"{k} = {_toml(v)}" for k, v in c.items())]
    (tmp_path / "trial.toml").write_text("\n".join(lines) + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    lint = {"config_filename": str(tmp_path / "trial.toml"), "no_cache": True, "no_logo": True}
    assert lint_imports(**lint) != 0, capsys.readouterr().out
    (package / "mixin.py").write_text("class Mixin:\n    def act(self) -> None: ...\n")  # the loop opened
    assert lint_imports(**lint) == 0, capsys.readouterr().out


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return '"' + str(value).replace('"', '\\"') + '"'


PACKAGE = sorted(ROOT.glob("haiku_tui/**/*.py"))
MODULE_LINES = 620
"""A module holds one thing: past about 600 lines it is split where its parts meet (pure views, dialogs, workers)."""


def test_every_module_stays_small():
    sizes = {str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines()) for path in PACKAGE}
    large = {path: lines for path, lines in sizes.items() if lines > MODULE_LINES}
    assert not large, f"split these modules (over {MODULE_LINES} lines): {large}"
