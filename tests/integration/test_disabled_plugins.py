"""A disabled plugin's features are off, and the messages say it is disabled (not
"not installed"); first-party plugins may be named without their prefix."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from opgraph.plugins.loading import OpgraphPluginManager

_PROBE = textwrap.dedent("""
    import warnings, numpy as np, opgraph, opgraph.tensor as pt
    x = pt.vector("x")
    try:
        opgraph.function([x], x + 1, mode="C")
        print("C-COMPILED")
    except Exception as exc:
        print("C-ERROR", type(exc).__name__, exc)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = opgraph.function([x], x + 1, mode="FAST_RUN")
    assert np.allclose(f(np.ones(2)), 2.0)
    for w in caught:
        print("WARN", w.message)
""")


def test_short_name_disables_the_first_party_plugin():
    pm = OpgraphPluginManager(disabled=["c", "opgraph-dask", "someone-else"])
    assert {"c", "opgraph-c", "opgraph-dask", "someone-else", "opgraph-someone-else"} == (
        pm.disabled
    )


@pytest.mark.parametrize("name", ["c", "opgraph-c"])
def test_disabled_c_plugin_is_off_and_named_in_messages(name):
    env = dict(os.environ, OPGRAPH_DISABLE_PLUGINS=name)
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    error = next(line for line in lines if line.startswith("C-"))
    assert error.startswith("C-ERROR UnknownModeError"), error
    assert "opgraph-c" in error and "disabled" in error
    warns = [line for line in lines if line.startswith("WARN")]
    assert len(warns) == 1, warns
    assert "installed but disabled" in warns[0] and "not installed" not in warns[0]
