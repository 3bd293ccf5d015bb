"""Integration tests: every plugin installed, graphs compiled by mode name."""
