"""Tuning and diagnosis tools (they vary the product's constants on the tuning questions), and the README
screenshots."""
