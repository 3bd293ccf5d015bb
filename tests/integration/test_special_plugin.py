"""opgraph-special with every plugin installed: its rewrite runs in FAST_RUN, its C is used."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special as sc

import opgraph.tensor as pt
from opgraph.compile.function import function

special = pytest.importorskip("opgraph_special", reason="contrib/opgraph-special not installed")


def test_fast_run_stabilises_log_erfc() -> None:
    x = pt.dvector("x")
    fn = function([x], pt.log(special.erfc(x)), mode="FAST_RUN")
    values = np.array([-30.0, 0.0, 3.0, 40.0, 1e4])
    expected = math.log(2.0) + sc.log_ndtr(-values * math.sqrt(2.0))
    np.testing.assert_allclose(fn(values), expected, rtol=1e-12)


def test_fused_special_functions_agree_across_modes() -> None:
    x = pt.dvector("x")
    out = special.erf(x) * special.gammaln(x + 1.0) + special.xlogy(x, x)
    values = np.linspace(0.1, 4.0, 17)
    expected = sc.erf(values) * sc.gammaln(values + 1.0) + sc.xlogy(values, values)
    for mode in ("FAST_COMPILE", "FAST_RUN"):
        np.testing.assert_allclose(function([x], out, mode=mode)(values), expected, rtol=1e-12)


def test_c_hook_supplies_a_template_when_the_c_plugin_is_installed() -> None:
    pytest.importorskip("opgraph_c", reason="opgraph-c not installed")
    from opgraph_c.codegen.scalar_table import scalar_c_expr
    from opgraph_special import scalar as s

    from opgraph.plugins import call_hook_safely

    assert call_hook_safely(None, "opgraph_op_impl", op=s.erf, backend="c") is not None
    assert scalar_c_expr(s.erf, ["float64"], "float64", ["a"]) == "(erf(a))"
    assert scalar_c_expr(s.erf, ["float32"], "float32", ["a"]) == "(erff(a))"
    # functions libm lacks get C helpers carried as the template's support code
    assert "ogsp_digamma" in scalar_c_expr(s.digamma, ["float64"], "float64", ["a"])
