"""The plugin's entry point: PyTensor's module paths and the rewrite hook."""

from __future__ import annotations

import importlib
import warnings

import opgraph_linalg
import pytest
from opgraph_linalg import constructors, plugin

import opgraph.tensor as pt


def test_public_modules_are_the_plugins_modules():
    import opgraph.tensor.linalg as face
    from opgraph.tensor.linalg.decomposition.cholesky import Cholesky
    from opgraph.tensor.linalg.solvers.general import Solve

    with pytest.warns(DeprecationWarning, match="opgraph.tensor.slinalg is deprecated"):
        from opgraph.tensor.slinalg import solve_triangular

    assert face.cholesky is opgraph_linalg.cholesky
    assert Cholesky is opgraph_linalg.Cholesky and Solve is opgraph_linalg.Solve
    assert solve_triangular is opgraph_linalg.solve_triangular
    assert set(opgraph_linalg.__all__) <= set(dir(face))


def test_lu_solve_is_where_pytensor_puts_it():
    """PyTensor 3.0.7 places ``lu_solve`` in ``solvers.general`` (its JAX tests import it
    from there)."""
    from opgraph.tensor.linalg.solvers.general import lu_solve

    assert lu_solve is opgraph_linalg.lu_solve


def test_hook_records_name_real_modules():
    for record in plugin.opgraph_public_modules():
        module = importlib.import_module(record.target)
        assert record.module.startswith("opgraph.tensor")
        assert module.__all__
        assert all(hasattr(module, name) for name in record.names)


def test_tensor_names_resolve_to_the_plugin():
    for name in plugin._TENSOR_NAMES:
        assert getattr(pt, name) is getattr(constructors, name)


def test_unknown_name():
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        opgraph_linalg.nope  # noqa: B018


@pytest.mark.parametrize("path", ["opgraph.tensor.nlinalg", "opgraph.tensor.slinalg"])
def test_old_paths_forward_with_a_deprecation_warning(path):
    module = importlib.import_module(path)
    with pytest.warns(DeprecationWarning, match=path):
        assert module.det is opgraph_linalg.det
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        module.nope  # noqa: B018


def test_linalg_trace_is_deprecated_but_tensor_trace_is_not():
    x = pt.dmatrix("x")
    with pytest.warns(FutureWarning, match=r"Use opgraph\.tensor\.trace instead"):
        opgraph_linalg.trace(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pt.trace(x)
