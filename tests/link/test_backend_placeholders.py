"""PyTensor's backend linker paths import, and using one names the missing plugin."""

from __future__ import annotations

import pytest

import opgraph.link
from opgraph.link.backends import BackendUnavailableError, UnavailableBackendLinker
from opgraph.link.basic import Linker
from opgraph.link.mlx import MLXLinker
from opgraph.link.numba import NumbaLinker
from opgraph.link.pytorch import PytorchLinker
from opgraph.link.vm import VMLinker


@pytest.mark.parametrize(
    ("cls", "backend", "plugin"),
    [
        (NumbaLinker, "Numba", "opgraph-numba"),
        (PytorchLinker, "PyTorch", "opgraph-pytorch"),
        (MLXLinker, "MLX", "opgraph-mlx"),
    ],
)
def test_constructing_a_backend_linker_names_the_plugin(cls, backend, plugin) -> None:
    assert issubclass(cls, UnavailableBackendLinker) and issubclass(cls, Linker)
    with pytest.raises(BackendUnavailableError, match=rf"no {backend} linker.*{plugin}"):
        cls()
    with pytest.raises(ImportError):  # what code guarding an optional backend catches
        cls(allow_gc=False)


def test_isinstance_checks_against_a_backend_linker_are_false_for_ours() -> None:
    assert not isinstance(VMLinker(), NumbaLinker)


def test_vm_module_is_reachable_as_an_attribute_of_opgraph_link() -> None:
    assert opgraph.link.vm.VMLinker is VMLinker
