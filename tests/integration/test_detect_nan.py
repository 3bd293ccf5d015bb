"""``MonitorMode(post_func=detect_nan)`` reports the node that makes a NaN."""

from __future__ import annotations

import numpy as np

import opgraph
import opgraph.tensor as pt
from opgraph.compile.debug.monitormode import MonitorMode, detect_nan


def test_detect_nan_reports_the_node(capsys):
    x = pt.vector("x")
    f = opgraph.function([x], pt.log(x) * 2, mode=MonitorMode(post_func=detect_nan))
    f(np.array([1.0, 2.0]))
    assert "NaN detected" not in capsys.readouterr().out
    with np.errstate(invalid="ignore"):
        f(np.array([-1.0, 2.0]))
    out = capsys.readouterr().out
    assert out.count("*** NaN detected ***") == 1 and "log" in out and "Inputs : " in out
