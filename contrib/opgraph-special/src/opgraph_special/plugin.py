"""Entry point ``special`` (group ``opgraph.plugins``): cheap, imports only the core.

The rewrite and the C table are imported when a hook actually needs them, so
installing this package costs nothing to programs that never use it.
"""

from __future__ import annotations

from typing import Any

from opgraph.plugins import OpImpl, PublicModule, hookimpl
from opgraph_special import __all__ as _function_names

_EXTRA_NAMES = ("psi", "tri_gamma", "gammau", "gammal", "chi2sf", "kn")

_OWN_MODULE = "opgraph_special."

#: the scalar Op classes and instances PyTensor has in ``scalar`` and ``scalar.math``
_SCALAR_NAMES = (
    "BetaInc", "BetaIncInv", "Erf", "Erfc", "Erfcinv", "Erfcx", "Erfinv", "Gamma", "GammaInc",
    "GammaIncC", "GammaIncCInv", "GammaIncInv", "GammaLn", "Hyp2F1", "I0", "I1", "Ive", "J0",
    "J1", "Jv", "Kve", "Owens_t", "PolyGamma", "Psi", "TriGamma", "betainc", "betaincinv",
    "betaln", "erf", "erfc", "erfcinv", "erfcx", "erfinv", "gamma", "gammainc", "gammaincc",
    "gammainccinv", "gammaincinv", "gammaln", "hyp2f1", "i0", "i1", "ive", "j0", "j1", "jv",
    "kve", "owens_t", "polygamma", "psi", "tri_gamma",
)

#: the non-regularised incomplete gamma Ops (opgraph_special.incomplete)
_INCOMPLETE = ("GammaL", "GammaU", "gammal", "gammau")


@hookimpl
def opgraph_register_rewrites(db: Any) -> None:
    """Add the log(erfc(x)) stabilisation to the ``stabilize`` phase."""
    from opgraph_special.rewrites import register_rewrites

    register_rewrites(db)


@hookimpl
def opgraph_op_impl(op: Any, backend: str) -> OpImpl | None:
    """C for this package's scalar ops, for the C linker's Elemwise and fusion loops."""
    if backend != "c" or not type(op).__module__.startswith(_OWN_MODULE):
        return None
    from opgraph_special.c_impl import c_impl_for

    impl = c_impl_for(op)
    return None if impl is None else OpImpl("c", impl)


@hookimpl
def opgraph_public_modules() -> list[PublicModule]:
    """``pt.erf``, ``pt.gammaln``...: this package's functions under PyTensor's names."""
    return [PublicModule("opgraph.tensor", "opgraph_special.tensor",
                         names=(*_function_names, *_EXTRA_NAMES)),
            PublicModule("opgraph.scalar", "opgraph_special.scalar", names=_SCALAR_NAMES),
            PublicModule("opgraph.scalar.math", "opgraph_special.scalar", names=_SCALAR_NAMES),
            PublicModule("opgraph.scalar", "opgraph_special.incomplete", names=_INCOMPLETE),
            PublicModule("opgraph.scalar.math", "opgraph_special.incomplete", names=_INCOMPLETE)]
