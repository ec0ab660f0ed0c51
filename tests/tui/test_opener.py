"""Opening a citation's source: the editor at the line, a PDF viewer at the page."""

from __future__ import annotations

from haiku_tui.store.locate import SourceLocation
from haiku_tui.tui.opener import open_command


def test_terminal_editors_open_at_the_line():
    where = SourceLocation("/docs/notes.md", line=42)
    assert open_command(where, {"EDITOR": "nvim"}) == (["nvim", "+42", "/docs/notes.md"], True)
    assert open_command(where, {"VISUAL": "emacs -nw", "EDITOR": "vi"}) == (
        ["emacs", "-nw", "+42", "/docs/notes.md"],
        True,
    )


def test_gui_editors_take_path_colon_line():
    where = SourceLocation("/docs/notes.md", line=7)
    assert open_command(where, {"EDITOR": "code --wait"}) == (["code", "--wait", "-g", "/docs/notes.md:7"], False)


def test_no_editor_uses_the_system_opener(monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)
    argv, in_terminal = open_command(SourceLocation("/docs/paper.pdf", page=3), {"EDITOR": "vim"})
    assert argv[-1] == "/docs/paper.pdf" and argv[0] in ("xdg-open", "open") and not in_terminal
    argv, _ = open_command(SourceLocation("/docs/a.md", line=1), {})
    assert argv[0] in ("xdg-open", "open")


def test_pdf_viewers_open_at_the_page(monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: "/usr/bin/zathura" if name == "zathura" else None)
    assert open_command(SourceLocation("/p.pdf", page=5), {}) == (["zathura", "--page=5", "/p.pdf"], False)
