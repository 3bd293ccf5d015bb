"""``opgraph demo`` exits 0 with every plugin, and with only the core and opgraph-numpy."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import entry_points

import pytest


def _demo(disabled: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("OPGRAPH_STRICT_PLUGINS", None)
    env["OPGRAPH_DISABLE_PLUGINS"] = ",".join(disabled)
    return subprocess.run(
        [sys.executable, "-m", "opgraph.cli", "demo", "--budget", "0.002"],
        capture_output=True, text=True, env=env, timeout=600,
    )


def _installed_plugins() -> list[str]:
    return sorted(ep.name for ep in entry_points(group="opgraph.plugins"))


def test_demo_with_every_plugin() -> None:
    result = _demo([])
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "== Plugins in use" in out and "== Compile time and time per call" in out
    assert "before rewriting" in out and "after rewriting" in out
    assert "agree on all" in out
    if "opgraph-ofg" in _installed_plugins():
        for name in ("OpFromGraph: basic", "OpFromGraph: shared variable",
                     "OpFromGraph: per-input pullback override"):
            assert name in out
    assert "FAILED" not in out and "DISAGREES" not in out


def test_demo_with_only_the_core_and_numpy_plugin() -> None:
    others = [p for p in _installed_plugins() if p != "opgraph-numpy"]
    if "opgraph-numpy" not in _installed_plugins():
        pytest.fail("the integration session must install opgraph-numpy")
    result = _demo(others)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    skipped = out.split("== Skipped", 1)[1]
    for dist in ("opgraph-rewrites", "opgraph-ofg", "opgraph-c", "opgraph-special"):
        assert f"plugin {dist} is" in skipped, f"demo does not say it skipped {dist}:\n{out}"
    assert "OpFromGraph: basic" not in out.split("== Skipped", 1)[0]
    assert "FAST_COMPILE" in out and "agree on all" in out
