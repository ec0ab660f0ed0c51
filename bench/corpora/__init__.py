"""Corpora the benchmarks build knowledge bases from, written from text installed with Python and haiku-tui
(no network)."""
