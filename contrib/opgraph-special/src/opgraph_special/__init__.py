"""opgraph-special: special functions for opgraph graphs, written on the public API only.

>>> import opgraph.tensor as pt
>>> import opgraph_special as ops
>>> x = pt.dvector("x")
>>> y = ops.erf(x) + ops.gammaln(x)

The tensor functions (``erf``, ``erfc``, ``erfcx``, ``erfinv``, ``gammaln``,
``digamma``, ``polygamma``, ``betaln``, ``xlogy``, ``xlog1py``, ``i0``,
``i1``, ``log_ndtr``) live here; their scalar ops are in
:mod:`opgraph_special.scalar`.
"""

from opgraph_special.tensor import *  # noqa: F403
from opgraph_special.tensor import __all__ as _tensor_all

__version__ = "0.1.0"
__all__ = list(_tensor_all)
