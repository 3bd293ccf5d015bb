"""Mode names PyMC passes (``compile(backend=...)``) resolve under the compatibility layer."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.compile.function import function
from opgraph.compile.mode import Mode, get_mode
from opgraph.plugins import make_plugin_manager


def test_numba_names_fast_run_here() -> None:
    for name in ("NUMBA", "numba"):
        mode = get_mode(name)
        assert isinstance(mode, Mode) and mode.name == "NUMBA"
        assert tuple(mode.optimizer.include) == ("fast_run",)
    x = pt.dvector("x")
    f = function([x], pt.exp(x).sum(), mode="numba")
    np.testing.assert_allclose(f(np.array([0.0, 1.0])), 1 + np.e)


def test_without_the_layer_numba_still_names_the_missing_plugin() -> None:
    from opgraph.compile.mode import BackendNotInstalledError

    pm = make_plugin_manager(plugins=[], disabled=(), strict=False)
    with pytest.raises(BackendNotInstalledError, match="opgraph-numba"):
        get_mode("NUMBA", pm=pm)
