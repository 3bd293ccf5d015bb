"""PyTensor's optional backend linkers (JAX, Numba, PyTorch, MLX) as named placeholders.

opgraph deliberately ships no JAX/Numba/PyTorch/MLX linker (see
docs/migrating.md).  Their PyTensor module paths still import, so code that
only *mentions* a backend (``isinstance(mode.linker, JAXLinker)``) keeps
working; constructing one raises :class:`BackendUnavailableError`, which
names the backend and the plugin distribution that would provide it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from opgraph.link.basic import JITLinker

__all__ = ["BackendUnavailableError", "UnavailableBackendLinker"]


class BackendUnavailableError(ImportError):
    """A PyTensor backend linker that opgraph (or an installed plugin) does not provide."""


class UnavailableBackendLinker(JITLinker):
    """Base of the backend placeholders: any construction raises a clear error."""

    backend: ClassVar[str] = ""
    plugin: ClassVar[str] = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise BackendUnavailableError(
            f"{type(self).__name__}: opgraph has no {self.backend} linker (it needs the "
            f"{self.plugin} backend plugin, which is not installed). opgraph's own "
            "linkers are 'py'/'vm' (opgraph-numpy) and 'c'/'cvm' (opgraph-c); "
            "use mode='FAST_RUN' or Mode(linker='cvm')"
        )
