"""The plugin declares linker "dask" and mode DASK, and the mode resolves to the linker."""

from __future__ import annotations

import warnings

from opgraph_dask.linker import DaskLinker
from opgraph_dask.table import chunked_ops

from opgraph.compile.mode import available_modes, get_mode
from opgraph.plugins.manager import linker_records, mode_records


def test_records_are_declared():
    linker = linker_records(None)["dask"]
    assert linker.backend == "dask"
    assert linker.load() is DaskLinker
    mode = mode_records(None)["DASK"]
    assert mode.linkers == ("dask",)
    assert "inplace" in mode.exclude and "fast_run" in mode.include
    assert "DASK" in available_modes()


def test_mode_uses_the_dask_linker():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mode = get_mode("DASK")
    assert isinstance(mode.linker, DaskLinker)
    assert mode.linker.options == {"chunks": "auto", "lazy": False}


def test_chunked_ops_lists_the_families():
    names = set(chunked_ops())
    for expected in ("Elemwise", "CAReduce", "Dot", "MatMul", "DimShuffle", "Subtensor",
                     "AdvancedSubtensor1", "Reshape", "Join", "Alloc", "Argmax", "Argmin",
                     "CumOp"):
        assert expected in names
