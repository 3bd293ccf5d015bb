"""PyTensor's ``pytensor.link.c.basic`` path, served by this plugin.

``CLinker`` (the whole graph as one C module), ``OpWiseCLinker`` (a C thunk per
node: this plugin's "cvm" linker) and ``DualLinker`` (the Python linker and the
C linker on the same graph, outputs compared on every call).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Variable
from opgraph.link.basic import Linker, LinkerResult, StorageCell
from opgraph.plugins import linker_records, load_target
from opgraph_c.cvm import CVMLinker
from opgraph_c.linker import CLinker

__all__ = ["CLinker", "DualLinker", "OpWiseCLinker"]


class OpWiseCLinker(CVMLinker):
    """PyTensor's name for per-node C thunks driven by a Python loop (the "cvm" linker)."""


def _same(a: Any, b: Any) -> bool:
    """Equal values (NaNs in the same places), with float tolerance."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.allclose(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


class DualLinker(Linker):
    """Run the graph with the Python linker ("py") and the C linker and compare the outputs.

    ``checker(py_value, c_value)`` returns False (or raises) when two outputs
    disagree; by default values must be equal up to float tolerance. A
    disagreement raises AssertionError naming the output. The Python results
    are the ones returned.
    """

    name = "dual"

    def __init__(self, checker: Callable[[Any, Any], Any] | None = None, *,
                 allow_gc: bool = True, **options: Any) -> None:
        if checker is not None and not callable(checker):
            raise TypeError(f"DualLinker: checker must be callable, got {checker!r}")
        super().__init__(allow_gc=allow_gc, checker=checker, **options)

    def make_thunk(
        self,
        input_storage: Sequence[StorageCell] | None = None,
        output_storage: Sequence[StorageCell] | None = None,
        storage_map: dict[Variable, StorageCell] | None = None,
    ) -> LinkerResult:
        fgraph = self._require_fgraph()
        py_cls = load_target(linker_records()["py"].target)
        ref = py_cls().accept(fgraph, self.no_recycling).make_thunk(
            input_storage, output_storage, storage_map
        )
        other = CLinker().accept(fgraph, self.no_recycling).make_thunk()
        check = self.options.get("checker") or _same
        names = [str(v) for v in fgraph.outputs]

        def run() -> None:
            cells = zip(fgraph.inputs, ref.input_storage, other.input_storage, strict=True)
            for var, mine, theirs in cells:
                mine[0] = var.type.filter(mine[0])
                theirs[0] = np.copy(mine[0]) if isinstance(mine[0], np.ndarray) else mine[0]
            ref.fn()
            other.fn()
            for name, a, b in zip(names, ref.output_storage, other.output_storage, strict=True):
                if check(a[0], b[0]) is False:
                    raise AssertionError(
                        f"DualLinker: output {name} differs between the Python linker "
                        f"({a[0]!r}) and the C linker ({b[0]!r})"
                    )

        return LinkerResult(run, ref.input_storage, ref.output_storage, ref.thunks, ref.order)
