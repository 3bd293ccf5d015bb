"""Every test compiles into a per-run cache directory (never the user's).

Under pytest-xdist the workers of one run share it (the cache is safe for
concurrent processes, which test_cache_faults checks), so the precompiled
header and the modules several test files build are compiled once, not once
per worker.  Tests of the cache itself use their own directories.
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _compiledir(tmp_path_factory: pytest.TempPathFactory) -> None:
    from opgraph.config import config

    if os.environ.get("PYTEST_XDIST_WORKER"):
        # the workers' base temp dirs (popen-gw0, ...) share this run's parent directory
        path = tmp_path_factory.getbasetemp().parent / "opgraph-c-cache"
        path.mkdir(exist_ok=True)
    else:
        path = tmp_path_factory.mktemp("opgraph-c-cache")
    old = config.compiledir
    config.compiledir = str(path)
    yield
    config.compiledir = old
