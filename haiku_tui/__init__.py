"""haiku-tui: a keyboard-driven terminal workbench for grounded conversations with your documents."""

__version__ = "0.1.0"
