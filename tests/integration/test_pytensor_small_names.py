"""Small PyTensor names: collect_new_shareds, as_list_or_tuple, scalar_elemwise,
NanGuardMode's flatten, the lazy SciPy modules at PyTensor's paths."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import opgraph
import opgraph.tensor as pt
from opgraph.compile.sharedvalue import collect_new_shareds, shared
from opgraph.gradient import as_list_or_tuple
from opgraph.tensor.elemwise import Elemwise, scalar_elemwise


def test_collect_new_shareds_sees_what_the_block_creates():
    before = shared(np.zeros(2))
    with collect_new_shareds() as outer:
        a = shared(np.ones(2))
        with collect_new_shareds() as inner:
            b = shared(3.0)
        c = shared(np.random.default_rng(0))
    assert outer == [a, c] and inner == [b] and before not in outer


def test_as_list_or_tuple():
    assert as_list_or_tuple(True, False, 1) == [1]
    assert as_list_or_tuple(False, True, [1, 2]) == (1, 2)
    assert as_list_or_tuple(False, False, [7]) == 7 and as_list_or_tuple(False, False, 7) == 7
    with pytest.raises(ValueError, match="both"):
        as_list_or_tuple(True, True, 1)
    with pytest.raises(ValueError, match="one-element"):
        as_list_or_tuple(False, False, [1, 2])


def test_scalar_elemwise_builds_the_elemwise_of_the_named_scalar_op():
    @scalar_elemwise
    def exp(x):
        """e to the x"""

    assert isinstance(exp, Elemwise) and exp.__doc__ == "e to the x"
    x = pt.vector("x")
    np.testing.assert_allclose(opgraph.function([x], exp(x))([0.0, 1.0]), [1.0, np.e])
    renamed = scalar_elemwise(symbolname="log")(lambda x: None)
    assert isinstance(renamed, Elemwise)
    with pytest.raises(AttributeError, match="no op named"):
        scalar_elemwise(lambda x: None)
    with pytest.raises(ValueError, match="in-place"):
        scalar_elemwise(symbolname="exp_inplace")(lambda x: None)


def test_nanguardmode_flatten_and_lazy_scipy_modules():
    ng = importlib.import_module("opgraph.compile.debug.nanguardmode")
    assert ng.flatten([1, (2, [3]), 4]) == [1, 2, 3, 4]
    assert ng.flatten({"a": [1, 2], "b": 3}.values()) == [1, 2, 3]
    assert ng.flatten(5) == [5]
    import scipy.signal
    import scipy.special

    psm = importlib.import_module("opgraph.scalar.math")
    assert psm.special.gamma(5.0) == scipy.special.gamma(5.0)
    conv = importlib.import_module("opgraph.tensor.signal.conv")
    np.testing.assert_allclose(conv.scipy_signal.convolve([1.0, 2.0], [1.0, 1.0]),
                               scipy.signal.convolve([1.0, 2.0], [1.0, 1.0]))
