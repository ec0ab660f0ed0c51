"""One module per family of file formats; each turns decoded text or raw bytes into a
:class:`~haiku_tui.store.document.ParsedDocument`. Imported lazily by ``store.parsing``."""
