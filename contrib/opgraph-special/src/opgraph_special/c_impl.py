"""C for the special functions, handed to the C linker through ``opgraph_op_impl``.

The C linker asks the hook for each scalar op inside an Elemwise or a fused
Composite it compiles, and expects the core's record for scalar ops
(``opgraph.plugins.CExpr``: a C expression over the
operands ``{0}``, ``{1}``, with ``{f}`` the float32 suffix and ``{T}`` the
output's C type, plus ``support``: helper C functions the module defines once).
erf, erfc, lgamma and the x*log(y) forms are C99 <math.h> calls; erfcx,
erfinv, digamma, polygamma, betaln, i0, i1 and log_ndtr call the helpers of
:mod:`opgraph_special.c_support` (double precision; float32 results rounded).
"""

from __future__ import annotations

from typing import Any

from opgraph.plugins import CExpr
from opgraph_special import scalar as s
from opgraph_special.c_support import support_for

__all__ = ["C_TEMPLATES", "HELPERS", "PERFORM_ONLY", "c_impl_for"]

#: scalar op class -> C expression for float outputs (see the module docstring)
C_TEMPLATES: dict[type, str] = {
    s.Erf: "erf{f}({0})",
    s.Erfc: "erfc{f}({0})",
    s.GammaLn: "lgamma{f}({0})",
    # scipy: 0 where x == 0 unless y is nan
    s.XLogY: "((({0}) == 0 && ({1}) == ({1})) ? ({T})0 : ({0}) * log{f}({1}))",
    s.XLog1pY: "((({0}) == 0 && ({1}) == ({1})) ? ({T})0 : ({0}) * log1p{f}({1}))",
    s.Gamma: "tgamma{f}({0})",
    s.J0: "({T})j0((double)({0}))",
    s.J1: "({T})j1((double)({0}))",
}

#: scalar op class -> (helper name in c_support, operand compute modes)
HELPERS: dict[type, tuple[str, str | tuple[str, ...]]] = {
    s.Erfcx: ("erfcx", "out"),
    s.LogNdtr: ("log_ndtr", "out"),
    s.Erfinv: ("erfinv", "out"),
    s.Digamma: ("digamma", "out"),
    s.Polygamma: ("polygamma", ("none", "out")),  # n stays an integer
    s.BetaLn: ("betaln", "out"),
    s.I0: ("i0", "out"),
    s.I1: ("i1", "out"),
}


#: scalar op classes with no C here: the C linker runs their perform (SciPy) in its schedule
PERFORM_ONLY: frozenset[type] = frozenset({
    s.Erfcinv, s.Jv, s.Iv, s.Ive, s.Kv, s.Kve, s.GammaInc, s.GammaIncC, s.GammaIncInv,
    s.GammaIncCInv, s.BetaInc, s.BetaIncInv, s.Hyp2F1, s.OwensT,
})


def c_impl_for(op: Any) -> Any:
    """The C linker's scalar template for ``op``, or None (then its perform runs)."""
    template = C_TEMPLATES.get(type(op))
    if template is not None:
        return CExpr(float=template)
    helper = HELPERS.get(type(op))
    if helper is None:
        return None
    name, compute = helper

    args = ", ".join(f"(double)({{{i}}})" for i in range(op.nin))
    return CExpr(float=f"({{T}})ogsp_{name}({args})", compute=compute,
                 support=support_for(name))
