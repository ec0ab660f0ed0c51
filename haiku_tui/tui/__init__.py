"""The Textual app: screens, widgets and styles (nothing imports this package)."""
