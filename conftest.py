"""Settings every test directory shares (core, plugins, contrib): hypothesis profiles
and the opt-in ``slow`` tests.  docs/testing.md says how to use them.

* ``OPGRAPH_HYPOTHESIS_PROFILE=ci`` (set by every nox session) runs each property
  test on fewer, derandomized examples with no deadline, so CI is quick and
  reproducible; the default ``dev`` profile keeps hypothesis's example count and
  random search, without the deadline and slow-generation check a loaded machine breaks.
  ``pytest --hypothesis-profile=thorough`` runs 1000 examples per test.
* A test marked ``@pytest.mark.slow`` (minutes, or gigabytes of data) runs only
  with ``--run-slow`` or ``OPGRAPH_RUN_SLOW=1``; ``nox -s slow`` runs them all.
"""

from __future__ import annotations

import os

import pytest

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # a package's tests may run where hypothesis is not installed
    settings = None

if settings is not None:
    settings.register_profile(
        "ci",
        max_examples=25,
        derandomize=True,
        deadline=None,
        database=None,
        print_blob=True,
        suppress_health_check=(HealthCheck.too_slow,),
    )
    # A loaded machine makes generation look slow: neither a deadline nor that check fails.
    settings.register_profile("dev", deadline=None, suppress_health_check=(HealthCheck.too_slow,))
    settings.register_profile("thorough", max_examples=1000, deadline=None)
    settings.load_profile(os.environ.get("OPGRAPH_HYPOTHESIS_PROFILE", "dev"))

RUN_SLOW_ENV = "OPGRAPH_RUN_SLOW"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", default=False,
                     help=f"also run the tests marked slow (or set {RUN_SLOW_ENV}=1)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: minutes or gigabytes; runs only with --run-slow (nox -s slow)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow") or os.environ.get(RUN_SLOW_ENV, "") not in ("", "0"):
        return
    skip = pytest.mark.skip(reason="slow: opt in with --run-slow or `nox -s slow`")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
