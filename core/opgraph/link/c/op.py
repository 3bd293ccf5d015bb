"""``COp``: an Op that may carry C code (PyTensor's ``pytensor.link.c.op``).

The C protocol (``c_code``, ``c_support_code``, ``c_headers``,
``c_code_cache_version``, ...) is read by the ``opgraph-c`` plugin when a C
linker compiles the node; without that plugin the Op runs its ``perform``.
The defaults below say "no C here", so a subclass implements only what it
needs.
"""

from __future__ import annotations

from typing import Any

from opgraph.graph.op import Op

__all__ = ["COp", "ExternalCOp", "OpenMPOp"]


class COp(Op):
    """An Op whose ``c_code`` the C linker uses; ``perform`` stays the reference."""

    def c_code(self, node: Any, name: str, inputs: list[str], outputs: list[str],
               sub: dict[str, Any]) -> str:
        raise NotImplementedError(f"{type(self).__name__} has no C implementation")

    def c_code_cache_version(self) -> tuple:
        return ()

    def c_support_code(self, **kwargs: Any) -> str:
        return ""

    def c_headers(self, **kwargs: Any) -> list[str]:
        return []

    def c_libraries(self, **kwargs: Any) -> list[str]:
        return []

    def c_lib_dirs(self, **kwargs: Any) -> list[str]:
        return []

    def c_compile_args(self, **kwargs: Any) -> list[str]:
        return []


class ExternalCOp(COp):
    """A COp whose C lives in external files: not supported, say so when used."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            "ExternalCOp (C code read from files) is not supported by opgraph: "
            "implement c_code() on a COp subclass instead"
        )


class OpenMPOp(COp):
    """A COp that may use OpenMP; ``openmp`` is kept as a parameter."""

    def __init__(self, openmp: bool | None = None) -> None:
        self.openmp = bool(openmp)
