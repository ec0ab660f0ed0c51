"""The import contracts in ``pyproject.toml`` (``[tool.importlinter]``): store → capabilities → agent → sessions
→ tui → serve → cli, each importing only the layers after it, ``locations`` and ``text`` usable by all, and no
circles between the modules of a package. Imports inside functions count."""

from __future__ import annotations

from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def test_imports_keep_the_layers_and_have_no_circles(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out
