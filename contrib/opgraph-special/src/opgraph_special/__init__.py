"""opgraph-special: special functions for opgraph graphs, written on the public API only.

>>> import opgraph.tensor as pt
>>> import opgraph_special as special
>>> x = pt.dvector("x")
>>> y = special.erf(x) + special.gammaln(x)

The tensor functions (``erf``, ``erfc``, ``erfcx``, ``erfinv``, ``gammaln``,
``digamma``, ``polygamma``, ``betaln``, ``xlogy``, ``xlog1py``, ``i0``,
``i1``, ``log_ndtr``) are loaded on first use, so that the plugin entry point
(:mod:`opgraph_special.plugin`, imported whenever opgraph starts) does not
import SciPy; their scalar ops are in :mod:`opgraph_special.scalar`.
"""

from __future__ import annotations

from opgraph.graph.utils import lazy_exports

__version__ = "0.1.0"
# The public functions: the one list of their names (.tensor and .scalar export it too).
__all__ = [
    "betainc",
    "betaincinv",
    "betaln",
    "digamma",
    "erf",
    "erfc",
    "erfcinv",
    "erfcx",
    "erfinv",
    "gamma",
    "gammainc",
    "gammaincc",
    "gammainccinv",
    "gammaincinv",
    "gammaln",
    "hyp2f1",
    "i0",
    "i1",
    "iv",
    "ive",
    "j0",
    "j1",
    "jv",
    "kv",
    "kve",
    "log_ndtr",
    "owens_t",
    "polygamma",
    "xlog1py",
    "xlogy",
]


_LAZY = dict.fromkeys(__all__, "opgraph_special.tensor")

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
