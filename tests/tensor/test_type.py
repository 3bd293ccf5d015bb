"""TensorType: construction, filter semantics, narrowing, comparisons, constructors."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph.tensor as pt
from opgraph.config import change_flags
from opgraph.tensor.type import TensorType
from opgraph.tensor.variable import TensorConstant, TensorVariable


def test_fields_and_derived_attributes():
    t = TensorType("float32", (None, 1, 3))
    assert t.dtype == "float32"
    assert t.shape == (None, 1, 3)
    assert t.ndim == 3
    assert t.broadcastable == (False, True, False)
    assert t.numpy_dtype == np.dtype("float32")


def test_dtype_normalization_and_floatx():
    assert TensorType(np.float64, ()).dtype == "float64"
    assert TensorType(np.dtype("int8"), ()).dtype == "int8"
    with change_flags(floatX="float32"):
        assert TensorType("floatX", ()).dtype == "float32"
        assert pt.matrix().dtype == "float32"
    assert pt.matrix().dtype == "float64"


def test_broadcastable_keyword_maps_to_shape():
    with pytest.warns(DeprecationWarning, match="broadcastable"):
        assert TensorType("float64", broadcastable=(True, False)).shape == (1, None)
    with pytest.raises(TypeError, match=r"either shape= or broadcastable="):
        TensorType("float64", shape=(1,), broadcastable=(True,))


def test_bad_shape_entries_are_type_and_value_errors():
    for bad in [("1", "2"), (-1,), (1.5,)]:
        with pytest.raises(ValueError, match="must be a boolean, integer or None"):
            TensorType("float64", shape=bad)
        with pytest.raises(TypeError, match="shape entry 0"):
            TensorType("float64", shape=bad)
    t = TensorType("float64", shape=np.array([3], dtype=np.int32))
    assert t.shape == (3,) and type(t.shape[0]) is int


@pytest.mark.parametrize("bad", ["object", "str", "datetime64"])
def test_unsupported_dtype_rejected(bad):
    with pytest.raises(TypeError, match="dtype"):
        TensorType(bad, ())


@pytest.mark.parametrize("shape", [(-1,), (1.5,)])
def test_bad_shape_entries_rejected(shape):
    with pytest.raises(TypeError, match="shape entry 0"):
        TensorType("float64", shape)


def test_bool_shape_entries_are_broadcastable_flags():
    # PyTensor's reading (PyMC writes TensorType(dtype, (False,))): True is length 1.
    assert TensorType("float64", (False,)).shape == (None,)
    assert TensorType("float64", (True, None, False)).shape == (1, None, None)


def test_equality_and_hash_by_parameters():
    a, b = TensorType("float64", (None, 3)), TensorType("float64", [None, 3])
    assert a == b and hash(a) == hash(b)
    assert a != TensorType("float64", (None, None))
    assert a != TensorType("float32", (None, 3))
    assert pt.dmatrix == TensorType("float64", (None, None))


def test_str_and_repr():
    assert str(pt.dmatrix) == "Matrix(float64, shape=(?, ?))"
    assert str(pt.irow) == "Matrix(int32, shape=(1, ?))"
    assert str(pt.fvector) == "Vector(float32, shape=(?,))"
    assert str(TensorType("int8", (2, None, 3))) == "Tensor3(int8, shape=(2, ?, 3))"
    assert repr(TensorType("float64", (None, 3))) == "TensorType(float64, shape=(None, 3))"


def test_clone():
    t = TensorType("float64", (None, 3))
    assert t.clone(dtype="int32") == TensorType("int32", (None, 3))
    assert t.clone(shape=(2, 3)).shape == (2, 3)
    with pytest.warns(DeprecationWarning, match="broadcastable"):
        assert t.clone(broadcastable=(True, False)).shape == (1, None)


# ----------------------------------------------------------------------------- filter


def test_filter_strict_accepts_exact_ndarray_only():
    t = pt.fmatrix
    a = np.ones((2, 2), dtype="float32")
    assert t.filter(a, strict=True) is a
    with pytest.raises(TypeError, match=r"strict.*float32.*float64"):
        t.filter(np.ones((2, 2)), strict=True)
    with pytest.raises(TypeError, match=r"strict.*list"):
        t.filter([[1.0]], strict=True)


def test_filter_safe_upcast_and_refused_downcast():
    t = pt.dvector
    out = t.filter(np.arange(3, dtype="int32"))
    assert out.dtype == np.float64
    with pytest.raises(TypeError, match=r"float32.*dtype float64.*loss of precision"):
        pt.fvector.filter(np.ones(3))
    out = pt.fvector.filter(np.ones(3) / 3, allow_downcast=True)
    assert out.dtype == np.float32


def test_filter_lists_converted_when_exact():
    out = pt.fvector.filter([1, 2, 0.5])
    assert out.dtype == np.float32 and out.tolist() == [1, 2, 0.5]
    with pytest.raises(TypeError, match="accurately"):
        pt.fvector.filter([0.1])
    with pytest.raises(TypeError, match="accurately"):
        pt.ivector.filter([1.5])


def test_filter_python_float_floatx_rule():
    # A Python float becomes floatX when allow_downcast is None (PyTensor's rule) ...
    with change_flags(floatX="float32"):
        assert pt.fscalar.filter(0.1).dtype == np.float32
        with pytest.raises(TypeError):
            pt.fscalar.filter(0.1, allow_downcast=False)
    # ... but not when float32 is not floatX.
    with pytest.raises(TypeError):
        pt.fscalar.filter(0.1)
    assert pt.fscalar.filter(0.5).dtype == np.float32  # exactly representable


def test_filter_wrong_ndim_and_static_shape():
    with pytest.raises(TypeError, match=r"expected 2, got 1"):
        pt.dmatrix.filter(np.ones(3))
    t = TensorType("float64", (None, 3))
    with pytest.raises(TypeError, match=r"\(None, 3\).*\(2, 4\)"):
        t.filter(np.ones((2, 4)))
    assert t.filter(np.ones((5, 3))).shape == (5, 3)


@pytest.mark.parametrize("bad", ["abc", object(), None, {"a": 1}])
def test_filter_non_numeric_rejected(bad):
    with pytest.raises(TypeError, match="float64"):
        pt.dvector.filter(bad)


def test_filter_rejects_variables():
    with pytest.raises(TypeError, match="symbolic Variable"):
        pt.dvector.filter(pt.dvector("v"))


def test_filter_integer_overflow_rejected():
    with pytest.raises(TypeError):
        pt.bscalar.filter(300)
    assert pt.bscalar.filter(100) == 100


# ----------------------------------------------------------------------------- relations


def test_is_super():
    general = TensorType("float64", (None, None))
    specific = TensorType("float64", (2, None))
    assert general.is_super(specific)
    assert not specific.is_super(general)
    assert not general.is_super(TensorType("float32", (2, None)))
    assert not general.is_super(TensorType("float64", (None,)))


def test_convert_variable():
    general = TensorType("float64", (None, None))
    specific = TensorType("float64", (2, None))
    v = specific("v")
    assert general.convert_variable(v) is v
    g = general("g")
    narrowed = specific.convert_variable(g)
    assert narrowed is not None and narrowed.type == specific
    assert narrowed.owner is not None and narrowed.owner.inputs[0] is g
    assert TensorType("float32", (2, None)).convert_variable(g) is None
    assert TensorType("float64", (3, None)).convert_variable(v) is None


def test_values_eq_and_approx():
    a = np.array([1.0, np.nan, np.inf])
    assert TensorType.values_eq(a, a.copy())
    assert not TensorType.values_eq(a, a.astype("float32"))
    assert TensorType.values_eq(a, a.astype("float32"), force_same_dtype=False)
    f32 = pt.fvector
    assert f32.values_eq_approx(np.float32([1.0]), np.float32([1.0 + 5e-6]))
    assert not pt.dvector.values_eq_approx(np.array([1.0]), np.array([1.0 + 5e-5]))
    assert pt.dvector.values_eq_approx(np.array([1.0]), np.array([1.0 + 5e-6]))
    assert not pt.dvector.values_eq_approx(np.array([np.inf]), np.array([-np.inf]))
    assert not pt.dvector.values_eq_approx(np.array([np.nan]), np.array([1.0]))
    assert pt.dvector.values_eq_approx(
        np.array([np.nan, 1.0]), np.array([1.0, 1.0]), allow_remove_nan=True
    )
    assert not pt.dvector.values_eq_approx(np.ones(2), np.ones(3))


# ----------------------------------------------------------------------------- constructors


@pytest.mark.parametrize(
    "fn, shape",
    [
        (pt.scalar, ()),
        (pt.vector, (None,)),
        (pt.matrix, (None, None)),
        (pt.row, (1, None)),
        (pt.col, (None, 1)),
        (pt.tensor3, (None,) * 3),
        (pt.tensor4, (None,) * 4),
        (pt.tensor5, (None,) * 5),
    ],
)
def test_generic_constructors(fn, shape):
    v = fn("v")
    assert isinstance(v, TensorVariable)
    assert v.name == "v" and v.type.shape == shape and v.dtype == "float64"
    assert fn(dtype="int16").dtype == "int16"


@pytest.mark.parametrize(
    "prefix, dtype",
    [("b", "int8"), ("w", "int16"), ("i", "int32"), ("l", "int64"), ("f", "float32"),
     ("d", "float64"), ("c", "complex64"), ("z", "complex128")],
)
def test_prefixed_constructors(prefix, dtype):
    for kind, ndim in [("scalar", 0), ("vector", 1), ("matrix", 2), ("row", 2), ("col", 2),
                       ("tensor3", 3), ("tensor4", 4), ("tensor5", 5)]:
        t = getattr(pt, prefix + kind)
        assert isinstance(t, TensorType)
        v = t("x")
        assert v.dtype == dtype and v.ndim == ndim and v.name == "x"


def test_tutorial_irow_and_type_identity():
    x = pt.ivector()
    assert x.type == pt.ivector
    assert str(pt.irow()) == "<Matrix(int32, shape=(1, ?))>"


def test_plurals():
    x, y, z = pt.scalars("xyz")
    assert [v.name for v in (x, y, z)] == ["x", "y", "z"]
    a, b = pt.dmatrices("a", "b")
    assert a.type == pt.dmatrix and b.name == "b"
    vs = pt.fvectors(3)
    assert len(vs) == 3 and all(v.type == pt.fvector for v in vs)
    single = pt.iscalars("k")
    assert single.name == "k" and single.type == pt.iscalar
    assert pt.matrices(2)[0].ndim == 2


def test_tensor_constructor():
    x = pt.tensor("float32", shape=(None, 3), name="x")
    assert x.type == TensorType("float32", (None, 3)) and x.name == "x"
    with pytest.warns(DeprecationWarning, match="broadcastable"):
        y = pt.tensor(dtype="int8", broadcastable=(True, False))
    assert y.type.shape == (1, None)
    z = pt.tensor("z", shape=(2,))
    assert z.name == "z" and z.dtype == "float64"
    assert pt.tensor(shape=(None,) * 4).ndim == 4
    with pytest.raises(TypeError, match="shape="):
        pt.tensor("float64")


def test_constant_is_tensor_constant():
    c = pt.constant(np.arange(3))
    assert isinstance(c, TensorConstant)
    assert c.type.shape == (3,)


def test_values_eq_approx_helpers_ignore_what_they_name():
    from opgraph.tensor.type import (
        values_eq_approx_always_true,
        values_eq_approx_remove_inf,
        values_eq_approx_remove_inf_nan,
        values_eq_approx_remove_nan,
    )

    a = np.array([1.0, np.nan, np.inf])
    b = np.array([1.0, 2.0, 3.0])
    assert values_eq_approx_always_true(a, b)
    assert not values_eq_approx_remove_nan(a, b)
    assert not values_eq_approx_remove_inf(a, b)
    assert values_eq_approx_remove_inf_nan(a, b)
    assert values_eq_approx_remove_nan(a[:2], b[:2])
    assert values_eq_approx_remove_inf(a[[0, 2]], b[[0, 2]])


def test_filter_allow_downcast_wraps_out_of_range_python_ints() -> None:
    assert TensorType("int16", (None,)).filter([2**20], allow_downcast=True).tolist() == [0]
    assert TensorType("int8", (None,)).filter([312], allow_downcast=True).tolist() == [56]


def test_filter_refuses_out_of_range_ints_with_an_overflow_error() -> None:
    with pytest.raises(OverflowError, match=r"cannot store \[312\] accurately") as info:
        TensorType("int8", (None,)).filter([312])
    assert isinstance(info.value, TypeError)  # still the TypeError of a bad value


def test_filter_refuses_non_numeric_data_as_type_and_value_error() -> None:
    with pytest.raises(ValueError, match="expected numeric data") as info:
        TensorType("float64", (None,)).filter("adsf")
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("helper, ndims", [(pt.vector, 1), (pt.matrix, 2), (pt.tensor3, 3)])
def test_fixed_rank_constructors_check_their_shape(helper, ndims):
    assert helper(shape=tuple(range(ndims))).type.shape == tuple(range(ndims))
    with pytest.raises(TypeError, match="Shape must be a tuple"):
        helper(shape=[None] * ndims)
    with pytest.raises(ValueError, match=f"Shape must be a tuple of length {ndims}"):
        helper(shape=(None,) * (ndims + 1))
    with pytest.raises(TypeError, match="Shape entries must be None or integer"):
        helper(shape=(1.0,) * ndims)


def test_row_and_col_keep_their_length_one_dimension():
    assert pt.row(shape=(1, 5)).type.shape == (1, 5)
    with pytest.raises(ValueError, match="first dimension of a `row` must have shape 1, got 2"):
        pt.row(shape=(2, 5))
    with pytest.raises(ValueError, match="second dimension of a `col` must have shape 1, got 5"):
        pt.col(shape=(2, 5))


def test_predefined_types_take_a_more_precise_shape():
    assert pt.fmatrix(shape=(1, None)).type == pt.frow
    assert pt.drow(shape=(1, 5)).type == pt.dmatrix(shape=(1, 5)).type
    for bad in [lambda: pt.fmatrix(shape=(None, None, None)),
                lambda: pt.fmatrix(shape=(3, 5)).type(shape=(4, 5)),
                lambda: pt.drow(shape=(None, None))]:
        with pytest.raises(ValueError):
            bad()


def test_convert_variable_merges_what_both_types_know():
    one = TensorType("float64", shape=(1, None, 3))
    other = TensorType("float64", shape=(None, 5, 3))
    assert one.convert_variable(other()).type == TensorType("float64", shape=(1, 5, 3))
    assert other.convert_variable(one()).type == TensorType("float64", shape=(1, 5, 3))
    assert TensorType("float64", shape=(2, None, 3)).convert_variable(one()) is None
    assert TensorType("float32", shape=(1, None, 3)).convert_variable(other()) is None


def test_filter_keeps_ndarray_subclasses_and_refuses_unaligned_arrays():
    class Tagged(np.ndarray):
        pass

    vec = TensorType("float64", shape=(None,))
    value = np.array([1.0, 2.0]).view(Tagged)
    assert vec.filter(value) is value
    raw = np.zeros(17, dtype=np.uint8)[1:].view(np.float64)  # data at an odd address
    assert not raw.flags.aligned
    with pytest.raises(TypeError, match="not aligned"):
        vec.filter(raw)
    np.testing.assert_array_equal(vec.filter(np.array(raw)), np.zeros(2))
