"""Tensor functions: each special scalar op applied elementwise (with broadcasting).

``opgraph_special.erf(x)`` builds an ``Elemwise(erf)`` node, which prints as
``Erf`` and takes part in Elemwise fusion like any built-in function.
"""

from __future__ import annotations

from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.math_docs import attach_docs as _attach_docs
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
gamma = Elemwise(_s.gamma)
erfcinv = Elemwise(_s.erfcinv)
j0 = Elemwise(_s.j0)
j1 = Elemwise(_s.j1)
jv = Elemwise(_s.jv)
iv = Elemwise(_s.iv)
ive = Elemwise(_s.ive)
kv = Elemwise(_s.kv)
kve = Elemwise(_s.kve)
gammainc = Elemwise(_s.gammainc)
gammaincc = Elemwise(_s.gammaincc)
gammaincinv = Elemwise(_s.gammaincinv)
gammainccinv = Elemwise(_s.gammainccinv)
betainc = Elemwise(_s.betainc)
betaincinv = Elemwise(_s.betaincinv)
hyp2f1 = Elemwise(_s.hyp2f1)
owens_t = Elemwise(_s.owens_t)

# Each function's docstring is its scalar op's (which says what it computes).
_attach_docs(globals(), {name: type(globals()[name].scalar_op).__doc__ for name in __all__})

# PyTensor's other names and compositions (not in the package list: no scalar op of their own).
psi = digamma


def tri_gamma(x):
    """The trigamma function, polygamma(1, x)."""
    return polygamma(1, x)


def gammau(k, x):
    """The upper incomplete gamma function Gamma(k, x) = gammaincc(k, x) * gamma(k)."""
    return gammaincc(k, x) * gamma(k)


def gammal(k, x):
    """The lower incomplete gamma function gamma(k, x) = gammainc(k, x) * gamma(k)."""
    return gammainc(k, x) * gamma(k)


def chi2sf(x, k):
    """The chi-squared survival function with k degrees of freedom."""
    return gammaincc(k / 2.0, x / 2.0)


def kn(n, x):
    """Modified Bessel function of the second kind of integer order n."""
    return kv(n, x)


EXTRA_NAMES = ("psi", "tri_gamma", "gammau", "gammal", "chi2sf", "kn")
"""Names this module adds to the package list (aliases and compositions)."""
