"""Entry point module of opgraph-dask: declares records only (imports the core only)."""

from __future__ import annotations

from opgraph.plugins import LinkerRecord, ModeRecord, hookimpl


@hookimpl
def opgraph_linkers() -> list[LinkerRecord]:
    return [
        LinkerRecord(
            "dask",
            "opgraph_dask.linker:DaskLinker",
            description="Dask: the whole graph as one chunked dask graph (threads or a cluster)",
            backend="dask",
        ),
    ]


@hookimpl
def opgraph_modes() -> list[ModeRecord]:
    return [
        ModeRecord(
            "DASK",
            linkers=("dask",),
            include=("fast_run",),
            # chunks are shared by dask tasks: a kernel must never write into its input;
            # "blas" turns chunked sums into Gemv/dot, which dask would run on one chunk
            exclude=("inplace", "blas"),
            description="FAST_RUN rewrites (no in-place ones), run as a chunked dask graph",
        ),
    ]
