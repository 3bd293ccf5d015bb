"""opgraph-numpy: the Python linkers ("py", "vm") and the FAST_COMPILE mode.

Importing this package is cheap; the linkers are in ``opgraph_numpy.linker``
and ``opgraph_numpy.vm`` and are loaded when a mode first uses them.
"""

__version__ = "0.1.0"
