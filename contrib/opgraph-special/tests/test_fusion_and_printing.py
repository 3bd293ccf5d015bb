"""The scalar ops work inside Composite (the unit of Elemwise fusion) and print by name."""

from __future__ import annotations

import numpy as np
import opgraph_special as special
import scipy.special as sc
from conftest import compile_py
from opgraph_special import scalar as s

import opgraph.scalar as ps
import opgraph.tensor as pt
from opgraph.scalar import Composite
from opgraph.tensor.elemwise import Elemwise


def test_composite_of_special_ops_matches_scipy(rng: np.random.Generator) -> None:
    a, b = ps.float64("a"), ps.float64("b")
    body = ps.add(s.gammaln(a), s.xlogy(b, s.erfc(a)))
    fused = Elemwise(Composite([a, b], [body]))
    x, y = pt.dvector("x"), pt.dvector("y")
    fn = compile_py([x, y], fused(x, y))
    u, v = rng.uniform(0.2, 3, 20), rng.uniform(-1, 1, 20)
    np.testing.assert_allclose(fn(u, v), sc.gammaln(u) + sc.xlogy(v, sc.erfc(u)), rtol=1e-12)


def test_composite_gradient_uses_the_special_pullbacks() -> None:
    from opgraph.gradient import verify_grad

    a = ps.float64("a")
    fused = Elemwise(Composite([a], [ps.mul(s.erf(a), s.i0(a))]))
    verify_grad(fused, [np.array([-1.0, 0.3, 2.0])], mode="FAST_COMPILE")


def test_equal_ops_compare_equal_so_merge_can_share_them() -> None:
    assert s.Erf() == s.erf and hash(s.Erf()) == hash(s.erf)
    assert s.Erf() != s.erfc
    assert Elemwise(s.Erf()) == special.erf


def test_nodes_print_as_the_function_name() -> None:
    x = pt.dvector("x")
    assert str(special.erf(x).owner.op) == "Erf"
    assert str(special.xlog1py(x, x).owner.op) == "XLog1pY"
    assert str(special.log_ndtr(x).owner.op) == "log_ndtr"  # name differs from the class
