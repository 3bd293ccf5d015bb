"""autocast_float / autocast_float_as: the dtype of Python float constants."""

from __future__ import annotations

import pytest

import opgraph.scalar as ps
import opgraph.tensor as pt


def test_autocast_float_as_nests_and_restores():
    orig = ps.autocast_float.dtypes
    with ps.autocast_float_as("float32"):
        assert ps.autocast_float.dtypes == ("float32",)
        assert ps.constant(1.1).dtype == "float32"
        assert pt.constant(1.1).dtype == "float32"
        with ps.autocast_float_as("float64"):
            assert ps.constant(1.5).dtype == "float64"
        assert ps.autocast_float.dtypes == ("float32",)
    assert ps.autocast_float.dtypes == orig


def test_autocast_float_as_rejects_non_float():
    with pytest.raises(ValueError, match="dtypes"), ps.autocast_float_as("int32"):
        pass
