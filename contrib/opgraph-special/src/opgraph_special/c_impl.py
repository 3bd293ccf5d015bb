"""C for the special functions, handed to the C linker through ``opgraph_op_impl``.

The C linker asks the hook for each scalar op inside an Elemwise or a fused
Composite it compiles, and expects the template type it defines for scalar
ops (``opgraph_c.codegen.scalar_table.CExpr``: a C expression over the
operands ``{0}``, ``{1}``, with ``{f}`` the float32 suffix and ``{T}`` the
output's C type).  Only functions C99's <math.h> provides accurately are given:
erf, erfc, lgamma, and the x*log(y) forms.  The others (erfcx, erfinv,
digamma, polygamma, betaln, i0, i1, log_ndtr) return None, so the node runs
its SciPy ``perform`` inside the compiled schedule, which gives the same values.
"""

from __future__ import annotations

from typing import Any

from opgraph_special import scalar as s

__all__ = ["C_TEMPLATES", "c_impl_for"]

#: scalar op class -> C expression for float outputs (see the module docstring)
C_TEMPLATES: dict[type, str] = {
    s.Erf: "erf{f}({0})",
    s.Erfc: "erfc{f}({0})",
    s.GammaLn: "lgamma{f}({0})",
    # scipy: 0 where x == 0 unless y is nan
    s.XLogY: "((({0}) == 0 && ({1}) == ({1})) ? ({T})0 : ({0}) * log{f}({1}))",
    s.XLog1pY: "((({0}) == 0 && ({1}) == ({1})) ? ({T})0 : ({0}) * log1p{f}({1}))",
}


def c_impl_for(op: Any) -> Any:
    """The C linker's scalar template for ``op``, or None (then its perform runs)."""
    template = C_TEMPLATES.get(type(op))
    if template is None:
        return None
    try:
        from opgraph_c.codegen.scalar_table import CExpr
    except ImportError:  # the C plugin is not installed: nobody will ask
        return None
    return CExpr(float=template)
