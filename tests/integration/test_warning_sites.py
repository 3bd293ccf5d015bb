"""NumPy warnings raised inside compiled elementwise code name the node and the
user's line that built it (not ``<elemwise thunk 1->1>``)."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import Mode, get_mode
from opgraph.config import config


def _line_of(marker: str) -> int:
    source, start = inspect.getsourcelines(_build)
    return start + next(i for i, text in enumerate(source) if marker in text)


def _build():
    x = pt.vector("x")
    y = pt.log(x)  # MARK-log
    return x, y * 2.0  # MARK-mul


@pytest.mark.parametrize("rewritten", [False, True])
def test_invalid_value_warning_names_node_and_user_line(rewritten):
    mode = Mode(linker="py", optimizer=get_mode("FAST_RUN").optimizer) if rewritten else (
        "FAST_COMPILE")
    x, out = _build()
    f = opgraph.function([x], out, mode=mode)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = f(np.array([-1.0, 1.0]))
    assert np.isnan(result[0]) and result[1] == 0.0
    runtime = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert runtime, [str(w.message) for w in caught]
    site = runtime[0].filename
    if rewritten:
        # log and the product are fused into one Composite node, which replaced the product
        assert "Composite{(log(i0) * 2.0)}(x)" in site
        assert f"{__file__}:{_line_of('MARK-mul')}" in site
    else:
        assert "Log(x)" in site
        assert f"{__file__}:{_line_of('MARK-log')}" in site


def test_without_traces_the_warning_still_names_the_node():
    old = config.traceback__limit
    config.traceback__limit = 0
    try:
        x, out = _build()
    finally:
        config.traceback__limit = old
    f = opgraph.function([x], out, mode="FAST_COMPILE")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(np.array([-1.0]))
    site = next(w for w in caught if issubclass(w.category, RuntimeWarning)).filename
    assert "Log(x)" in site and "built at" not in site
