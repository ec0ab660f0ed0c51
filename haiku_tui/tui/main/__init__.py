"""Widgets and modals of the main screen: conversation, live evidence, policy log, status bar."""
