"""Every test compiles into a per-session cache directory (never the user's)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def _compiledir(tmp_path_factory: pytest.TempPathFactory) -> None:
    from opgraph.config import config

    path = tmp_path_factory.mktemp("opgraph-c-cache")
    old = config.compiledir
    config.compiledir = str(path)
    yield
    config.compiledir = old
