"""Tensor functions: each special scalar op applied elementwise (with broadcasting).

``opgraph_special.erf(x)`` builds an ``Elemwise(erf)`` node, which prints as
``Erf`` and takes part in Elemwise fusion like any built-in function.
"""

from __future__ import annotations

from opgraph.tensor.elemwise import Elemwise
from opgraph_special import __all__ as _function_names
from opgraph_special import scalar as _s

# One scalar op per public function: the package's list of names is the only one.
__all__ = list(_function_names)

erf = Elemwise(_s.erf)
erfc = Elemwise(_s.erfc)
erfcx = Elemwise(_s.erfcx)
erfinv = Elemwise(_s.erfinv)
gammaln = Elemwise(_s.gammaln)
digamma = Elemwise(_s.digamma)
polygamma = Elemwise(_s.polygamma)
betaln = Elemwise(_s.betaln)
xlogy = Elemwise(_s.xlogy)
xlog1py = Elemwise(_s.xlog1py)
i0 = Elemwise(_s.i0)
i1 = Elemwise(_s.i1)
log_ndtr = Elemwise(_s.log_ndtr)

psi = digamma  # PyTensor's other name for digamma
