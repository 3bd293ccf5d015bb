"""Scalar ops as C expressions: one table entry per scalar op class.

Each :class:`~opgraph.plugins.records.CExpr` (a core record, re-exported
here) is a format string over the operand names (``{0}``,
``{1}``...), with variants by the kind of the output dtype (bool, int, uint,
float).  ``{f}`` becomes ``f`` for float32 (``expf``) and nothing for float64;
``{T}`` is the C type of the output.  Operands are first cast to the output
type (``compute="out"``), to the common type of the inputs (``"common"``, for
comparisons) or left as they are (``"none"``), so the arithmetic happens in
the dtype NumPy computes in.  An op missing here, or a dtype a rule does not
cover, makes the node run its Python ``perform`` instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from opgraph.plugins import (
    CExpr,  # the core record (PyTensor-free: see records.py)
    find_op_impl,
)
from opgraph.scalar import arith, logic, math, structural
from opgraph.scalar import complex as cplx
from opgraph.scalar.type import get_scalar_type
from opgraph_c.codegen.ctypes_ import c_type, kind, supported
from opgraph_c.codegen.runtime_c import SCALAR_SUPPORT

__all__ = ["PERFORM_ONLY", "SCALAR_C", "CExpr", "c_row", "scalar_c_expr"]


def _float(fn: str) -> CExpr:
    return CExpr(float=fn + "{f}({0})")


SCALAR_C: dict[type, CExpr] = {
    # arithmetic
    arith.Add: CExpr("{0} + {1}", bool="{0} | {1}"),
    arith.Mul: CExpr("{0} * {1}", bool="{0} & {1}"),
    arith.Sub: CExpr("{0} - {1}", bool=None),
    arith.TrueDiv: CExpr(float="{0} / {1}"),
    arith.IntDiv: CExpr(int="og_floordiv_i64({0}, {1})", uint="og_floordiv_u64({0}, {1})",
                        float="og_floordiv_f{f}({0}, {1})"),
    arith.Mod: CExpr(int="og_mod_i64({0}, {1})", uint="og_mod_u64({0}, {1})",
                     float="og_mod_f{f}({0}, {1})"),
    arith.Pow: CExpr(float="pow{f}({0}, {1})"),
    arith.Neg: CExpr("-{0}", bool=None),
    arith.Abs: CExpr(int="({0} < 0 ? -{0} : {0})", uint="{0}", bool="{0}", float="fabs{f}({0})"),
    arith.Sign: CExpr(int="(({0} > 0) - ({0} < 0))", uint="({0} > 0)",
                      float="({0} > 0 ? 1 : ({0} < 0 ? -1 : ({0} == 0 ? 0 : {0})))"),
    arith.Sqr: CExpr("{0} * {0}", bool="{0}"),
    arith.Reciprocal: CExpr(float="({T})1 / {0}"),
    arith.Maximum: CExpr("OG_MAX({0}, {1})"),
    arith.Minimum: CExpr("OG_MIN({0}, {1})"),
    arith.Clip: CExpr("OG_MIN(OG_MAX({0}, {1}), {2})"),
    # logic
    logic.EQ: CExpr("{0} == {1}", compute="common"),
    logic.NEQ: CExpr("{0} != {1}", compute="common"),
    logic.LT: CExpr("{0} < {1}", compute="common"),
    logic.LE: CExpr("{0} <= {1}", compute="common"),
    logic.GT: CExpr("{0} > {1}", compute="common"),
    logic.GE: CExpr("{0} >= {1}", compute="common"),
    logic.AND: CExpr(int="{0} & {1}", bool="{0} & {1}"),
    logic.OR: CExpr(int="{0} | {1}", bool="{0} | {1}"),
    logic.XOR: CExpr(int="{0} ^ {1}", bool="{0} ^ {1}"),
    logic.Invert: CExpr(int="~{0}", bool="!{0}"),
    logic.IsNan: CExpr("og_isnan({0})", compute="none"),
    logic.IsInf: CExpr("og_isinf({0})", compute="none"),
    # structural
    structural.Identity: CExpr("{0}"),
    structural.Cast: CExpr("{0}", bool="({0} != 0)", compute="none"),
    structural.Second: CExpr("{1}"),
    structural.Switch: CExpr("({0} ? {1} : {2})", compute=("none", "out", "out")),
    # float math (libm; vectorised through libmvec where glibc has it)
    math.Exp: _float("exp"),
    math.Exp2: _float("exp2"),
    math.Expm1: _float("expm1"),
    math.Log: _float("log"),
    math.Log2: _float("log2"),
    math.Log10: _float("log10"),
    math.Log1p: _float("log1p"),
    math.Sqrt: _float("sqrt"),
    math.Sin: _float("sin"),
    math.Cos: _float("cos"),
    math.Tan: _float("tan"),
    math.ArcSin: _float("asin"),
    math.ArcCos: _float("acos"),
    math.ArcTan: _float("atan"),
    math.Sinh: _float("sinh"),
    math.Cosh: _float("cosh"),
    math.Tanh: _float("tanh"),
    math.ArcSinh: _float("asinh"),
    math.ArcCosh: _float("acosh"),
    math.ArcTanh: _float("atanh"),
    math.ArcTan2: CExpr(float="atan2{f}({0}, {1})"),
    math.Sigmoid: CExpr(float="og_sigmoid{f}({0})"),
    math.Softplus: CExpr(float="og_softplus{f}({0})"),
    math.Floor: CExpr(float="floor{f}({0})", int="{0}", bool="{0}"),
    math.Ceil: CExpr(float="ceil{f}({0})", int="{0}", bool="{0}"),
    math.Trunc: CExpr(float="trunc{f}({0})", int="{0}", bool="{0}"),
    math.RoundHalfToEven: CExpr(float="rint{f}({0})", int="{0}", bool="{0}"),
    math.RoundHalfAwayFromZero: CExpr(
        float="copysign{f}(floor{f}(fabs{f}({0}) + ({T})0.5), {0})", int="{0}", bool="{0}"
    ),
}


PERFORM_ONLY: dict[type, str] = {
    cplx.Real: "complex input: generated C has no complex types",
    cplx.Imag: "complex input: generated C has no complex types",
    cplx.Angle: "complex input: generated C has no complex types",
    cplx.Complex: "complex output: generated C has no complex types",
    cplx.ComplexFromPolar: "complex output: generated C has no complex types",
    math.Log1mexp: "no C yet: its two-branch formula runs in NumPy (perform)",
}
"""Scalar ops that have no C row on purpose, and why: their nodes run ``perform``.

An elementwise op must be in :data:`SCALAR_C`, answer the ``opgraph_op_impl``
hook with a :class:`CExpr`, or be listed here (tests/test_elemwise_contract.py)."""


def c_row(op: object) -> CExpr | None:
    """The C expression record of scalar op ``op`` (table or plugin hook), or None."""
    return _lookup(op)


def _lookup(op: object) -> CExpr | None:
    for cls in type(op).__mro__:
        rule = SCALAR_C.get(cls)
        if rule is not None:
            return rule
    found = find_op_impl(op, "c")
    return found if isinstance(found, CExpr) else None


def _common(dtypes: Sequence[str]) -> str:
    return np.result_type(*dtypes).name


def scalar_c_expr(
    op: object, in_dtypes: Sequence[str], out_dtype: str, args: Sequence[str],
    ctx: object | None = None,
) -> str | None:
    """A C expression computing ``op`` on ``args``, or None when there is no C for it.

    Variadic ops (add, mul with more than two inputs) are folded left with the
    intermediate dtypes NumPy would use, so overflow happens where it does in NumPy.
    A rule's support code, headers and libraries are handed to ``ctx.require``
    (the node being emitted carries them into the module).
    """
    if not supported(out_dtype) or not all(supported(d) for d in in_dtypes):
        return None
    rule = _lookup(op)
    if rule is None:
        return None
    if ctx is not None and (rule.support or rule.headers or rule.libraries or rule.lib_dirs):
        ctx.require(rule)
    if len(args) == 1 and isinstance(op, arith.Add | arith.Mul):  # add(x): x, cast
        return args[0] if in_dtypes[0] == out_dtype else f"(({c_type(out_dtype)}){args[0]})"
    if len(args) > 2 and isinstance(op, arith.Add | arith.Mul):
        acc, acc_dtype = args[0], in_dtypes[0]
        for arg, dtype in zip(args[1:], in_dtypes[1:]):
            step_dtype = op.output_types([get_scalar_type(acc_dtype), get_scalar_type(dtype)])
            step_out = step_dtype[0].dtype
            expr = _apply(rule, [acc_dtype, dtype], step_out, [acc, arg])
            if expr is None:
                return None
            acc, acc_dtype = f"(({c_type(step_out)})({expr}))", step_out
        return acc if acc_dtype == out_dtype else f"(({c_type(out_dtype)}){acc})"
    return _apply(rule, in_dtypes, out_dtype, args)


def _apply(
    rule: CExpr, in_dtypes: Sequence[str], out_dtype: str, args: Sequence[str]
) -> str | None:
    out_kind = kind(out_dtype)
    template = rule.template(out_kind)
    if template is None:
        return None
    compute = rule.compute
    modes = compute if isinstance(compute, tuple) else (compute,) * len(args)
    common = _common(in_dtypes) if "common" in modes else None
    cast_args = []
    for arg, dtype, mode in zip(args, in_dtypes, modes):
        target = {"out": out_dtype, "common": common, "none": dtype}[mode]
        if target == dtype:
            cast_args.append(arg)
        elif target == "bool":
            cast_args.append(f"((npy_bool)({arg} != 0))")
        else:
            cast_args.append(f"(({c_type(target)}){arg})")
    suffix = "f" if out_dtype == "float32" else ""
    if "{f}" in template and out_kind != "float":
        return None
    return "(" + template.format(*cast_args, f=suffix, T=c_type(out_dtype)) + ")"


#: The helpers the expressions above use (``runtime/scalar_ops.h``), in every module.
SUPPORT_CODE = SCALAR_SUPPORT
