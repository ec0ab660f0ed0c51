"""The house rules the suite checks: the import contracts in ``pyproject.toml`` (``[tool.importlinter]``):
store → capabilities → agent → sessions → tui → serve → cli, each importing only the layers after it,
``locations`` and ``text`` usable by all, no circles between the modules of a package (imports inside
functions count); and modules of about 600 lines at most."""

from __future__ import annotations

from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def test_imports_keep_the_layers_and_have_no_circles(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out


PACKAGE = sorted(ROOT.glob("haiku_tui/**/*.py"))
MODULE_LINES = 620
"""A module holds one thing: past about 600 lines it is split where its parts meet (pure views, dialogs, workers)."""


def test_every_module_stays_small():
    sizes = {str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines()) for path in PACKAGE}
    large = {path: lines for path, lines in sizes.items() if lines > MODULE_LINES}
    assert not large, f"split these modules (over {MODULE_LINES} lines): {large}"
