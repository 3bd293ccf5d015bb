"""opgraph-numpy: the Python linkers ("py", "vm"), which FAST_COMPILE runs on.

Importing this package is cheap; the linkers are in ``opgraph_numpy.linker``
and ``opgraph_numpy.vm`` and are loaded when a mode first uses them.
``make_node_thunk`` (one node's Python thunk) is public here for the backends
that run nodes without code of their own (opgraph-c, opgraph-dask): other
packages import only this top level.
"""

from opgraph_numpy.thunks import make_node_thunk

__version__ = "0.1.0"
__all__ = ["make_node_thunk"]
