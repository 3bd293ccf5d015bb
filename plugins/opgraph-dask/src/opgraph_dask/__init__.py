"""opgraph's Dask backend: the ``"dask"`` linker and the ``DASK`` mode.

The entry module (:mod:`opgraph_dask.plugin`) only declares records; the
linker itself (and dask) is imported when a DASK function is first compiled.
"""

from opgraph_dask.options import dask_options

__all__ = ["dask_options"]
