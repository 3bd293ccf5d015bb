"""The special functions as scalar ops: the bodies that Elemwise and fusion (Composite) apply.

Each op computes with the SciPy ufunc of the same name (``numpy_fn``), so one
implementation serves single elements (``impl``), whole arrays (Elemwise) and
fused loops (Composite).  Output dtypes are exactly the ones SciPy computes
(:class:`ScipyOut`), so a graph's declared dtypes never disagree with its values.

Derivatives are written once per op, in scalar terms, as ``partials``: one
expression per input.  The shared pullback multiplies them by the cotangent;
the pushforward is the core's generic one built on the pullback.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

import opgraph.scalar as ps
from opgraph.gradient import grad_not_implemented
from opgraph.graph.basic import Variable
from opgraph.scalar.basic import ScalarOp
from opgraph.scalar.gradhelpers import cast_like, const_like, grad_zeros, is_discrete
from opgraph.scalar.type import ScalarType, complex_dtypes, get_scalar_type
from opgraph_special import __all__ as _function_names
from opgraph_special.incomplete_grad import betainc_der_a, betainc_der_b, gammainc_der_k

__all__ = [
    "I0",
    "I1",
    "SPECIAL_OPS",
    "BetaLn",
    "Digamma",
    "Erf",
    "Erfc",
    "Erfcx",
    "Erfinv",
    "GammaLn",
    "LogNdtr",
    "PolyGamma",
    "Polygamma",
    "Psi",
    "ScipyOut",
    "SpecialOp",
    "XLog1pY",
    "XLogY",
    "BetaInc",
    "BetaIncInv",
    "Erfcinv",
    "Gamma",
    "GammaInc",
    "GammaIncC",
    "GammaIncCInv",
    "GammaIncInv",
    "Hyp2F1",
    "Iv",
    "Ive",
    "J0",
    "J1",
    "Jv",
    "Kv",
    "Kve",
    "OwensT",
    "TriGamma",
    "Owens_t",
    "psi",
    "tri_gamma",
    *_function_names,  # one op instance per tensor function, of the same name
]


@functools.cache
def _sc() -> Any:
    """scipy.special, imported on first computation: registering rewrites or
    building ops must not pay SciPy's import time (about 0.2 s)."""
    import scipy.special

    return scipy.special


@attrs.frozen
class ScipyOut:
    """Output dtypes as SciPy resolves them for ``scipy.special.<name>`` (real inputs only).

    An attrs class, so two ops built with the same rule compare equal and merge.
    """

    name: str

    def __call__(self, *types: ScalarType) -> tuple[ScalarType, ...]:
        for t in types:
            if t.dtype in complex_dtypes:
                raise TypeError(f"{self.name} is defined here for real inputs only, got {t.dtype}")
        ufunc = getattr(_sc(), self.name)
        signature = tuple(np.dtype(t.dtype) for t in types) + (None,) * ufunc.nout
        resolved = ufunc.resolve_dtypes(signature)
        return tuple(get_scalar_type(d.name) for d in resolved[ufunc.nin :])


class SpecialOp(ScalarOp):
    """A special function computed by ``scipy.special.<scipy_name>``.

    Subclasses set ``nin``, ``scipy_name`` and ``partials(inputs, output)``.
    """

    scipy_name: str = ""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(ScipyOut(self.scipy_name), name=name or self.scipy_name)

    def numpy_fn(self, *inputs: Any) -> Any:
        return getattr(_sc(), self.scipy_name)(*inputs)

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        """d output / d input_i for each input, as scalar graphs (None: not implemented)."""
        raise NotImplementedError(f"{type(self).__name__} has no derivative")

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        cotangents: Sequence[Variable],
    ) -> list[Variable]:
        (out,), (gz,) = outputs, cotangents
        if all(is_discrete(x) for x in inputs):
            return [grad_zeros(x) for x in inputs]
        partials = self.partials(list(inputs), out)
        return [
            grad_zeros(x) if is_discrete(x)
            else grad_not_implemented(self, i, x) if d is None
            else cast_like(ps.mul(gz, d), x)
            for i, (x, d) in enumerate(zip(inputs, partials))
        ]

    def c_code_cache_version(self) -> tuple:
        return (1, 0)


def _c(value: float, like: Variable) -> Variable:
    return const_like(value, like)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


class Erf(SpecialOp):
    """erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt."""

    nin = 1
    scipy_name = "erf"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        (x,) = inputs
        return [ps.mul(_c(_TWO_OVER_SQRT_PI, output), ps.exp(ps.neg(ps.sqr(x))))]


class Erfc(SpecialOp):
    """erfc(x) = 1 - erf(x), without the cancellation for large x."""

    nin = 1
    scipy_name = "erfc"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        (x,) = inputs
        return [ps.mul(_c(-_TWO_OVER_SQRT_PI, output), ps.exp(ps.neg(ps.sqr(x))))]


class Erfcx(SpecialOp):
    """erfcx(x) = exp(x^2) * erfc(x): finite where erfc underflows."""

    nin = 1
    scipy_name = "erfcx"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        (x,) = inputs
        two_x_out = ps.mul(_c(2.0, output), x, output)
        return [ps.sub(two_x_out, _c(_TWO_OVER_SQRT_PI, output))]


class Erfinv(SpecialOp):
    """The inverse of erf on (-1, 1)."""

    nin = 1
    scipy_name = "erfinv"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        return [ps.mul(_c(_SQRT_PI_OVER_TWO, output), ps.exp(ps.sqr(output)))]


class GammaLn(SpecialOp):
    """log|Gamma(x)|."""

    nin = 1
    scipy_name = "gammaln"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        (x,) = inputs
        return [digamma(x)]


class Digamma(SpecialOp):
    """psi(x) = d/dx log Gamma(x)."""

    nin = 1
    scipy_name = "digamma"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        (x,) = inputs
        return [polygamma(ps.constant(1, dtype="int64"), x)]


class Polygamma(ScalarOp):
    """polygamma(n, x): the n-th derivative of digamma (n a non-negative integer).

    Needed for the derivatives of digamma (n=1) and of itself (n+1).
    """

    nin = 2
    integer_inputs = (0,)  # polygamma(1, x): the order stays an integer beside float x

    def __init__(self, name: str | None = None) -> None:
        super().__init__(_polygamma_out, name=name or "polygamma")

    def make_node(self, n: Any, x: Any) -> Any:
        node = super().make_node(n, x)
        if node.inputs[0].type.dtype not in ("int8", "int16", "int32", "int64", "uint8",
                                             "uint16", "uint32"):
            raise TypeError(
                f"polygamma: n must be an integer scalar, got dtype {node.inputs[0].type.dtype}"
            )
        return node

    def numpy_fn(self, n: Any, x: Any) -> Any:
        (out,) = _polygamma_out(get_scalar_type(np.asarray(n).dtype.name),
                                get_scalar_type(np.asarray(x).dtype.name))
        return np.asarray(_sc().polygamma(n, x)).astype(out.dtype)

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        cotangents: Sequence[Variable],
    ) -> list[Variable]:
        (n, x), (gz,) = inputs, cotangents
        next_n = ps.add(n, ps.constant(1, dtype=n.type.dtype))  # n stays an integer
        gx = grad_zeros(x) if is_discrete(x) else cast_like(ps.mul(gz, polygamma(next_n, x)), x)
        return [grad_zeros(n), gx]


def _polygamma_out(n: ScalarType, x: ScalarType) -> tuple[ScalarType]:
    return ScipyOut("digamma")(x)


class TriGamma(SpecialOp):
    """trigamma(x) = polygamma(1, x), the derivative of digamma (PyTensor's ``TriGamma``)."""

    nin = 1
    scipy_name = "digamma"  # the output dtype rule (polygamma's is digamma's)

    def __init__(self, name: str | None = None) -> None:
        super().__init__(name=name or "tri_gamma")

    def numpy_fn(self, x: Any) -> Any:
        (out,) = ScipyOut("digamma")(get_scalar_type(np.asarray(x).dtype.name))
        return np.asarray(_sc().polygamma(1, x)).astype(out.dtype)

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        (x,) = inputs
        return [polygamma(ps.constant(2, dtype="int64"), x)]


Psi = Digamma
"""PyTensor's name for the digamma op class."""
PolyGamma = Polygamma
"""PyTensor's name for the polygamma op class."""


class BetaLn(SpecialOp):
    """log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b), computed accurately."""

    nin = 2
    scipy_name = "betaln"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        a, b = inputs
        psi_ab = digamma(ps.add(a, b))
        return [ps.sub(digamma(a), psi_ab), ps.sub(digamma(b), psi_ab)]


class XLogY(SpecialOp):
    """x * log(y), defined as 0 where x == 0 (so 0 * log(0) = 0)."""

    nin = 2
    scipy_name = "xlogy"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        x, y = inputs
        return [ps.log(y), ps.true_div(x, y)]


class XLog1pY(SpecialOp):
    """x * log1p(y), defined as 0 where x == 0."""

    nin = 2
    scipy_name = "xlog1py"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        x, y = inputs
        return [ps.log1p(y), ps.true_div(x, ps.add(y, const_like(1, y)))]


class I0(SpecialOp):
    """Modified Bessel function of the first kind, order 0."""

    nin = 1
    scipy_name = "i0"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        (x,) = inputs
        return [i1(x)]


class I1(SpecialOp):
    """Modified Bessel function of the first kind, order 1."""

    nin = 1
    scipy_name = "i1"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        # I1'(x) = I0(x) - I1(x) / x, whose limit at 0 is 1/2.  The division
        # uses a safe denominator so neither branch of the switch divides by 0.
        (x,) = inputs
        at_zero = ps.eq(x, const_like(0, x))
        safe_x = ps.switch(at_zero, const_like(1, x), x)
        general = ps.sub(i0(x), ps.true_div(output, safe_x))
        return [ps.switch(at_zero, _c(0.5, output), general)]


class LogNdtr(SpecialOp):
    """log of the standard normal CDF, accurate far into the left tail."""

    nin = 1
    scipy_name = "log_ndtr"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable]:
        # pdf(x) / cdf(x) = exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi): no 0/0 in the tail.
        (x,) = inputs
        exponent = ps.sub(ps.mul(_c(-0.5, x), ps.sqr(x)), output)
        return [ps.mul(_c(_INV_SQRT_2PI, output), ps.exp(exponent))]


class Gamma(SpecialOp):
    """The gamma function."""

    nin = 1
    scipy_name = "gamma"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        (x,) = inputs
        return [ps.mul(output, digamma(x))]


class Erfcinv(SpecialOp):
    """The inverse of erfc on (0, 2)."""

    nin = 1
    scipy_name = "erfcinv"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        return [ps.mul(_c(-_SQRT_PI_OVER_TWO, output), ps.exp(ps.sqr(output)))]


class J0(SpecialOp):
    """Bessel function of the first kind, order 0."""

    nin = 1
    scipy_name = "j0"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        (x,) = inputs
        return [ps.neg(j1(x))]


class J1(SpecialOp):
    """Bessel function of the first kind, order 1."""

    nin = 1
    scipy_name = "j1"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        (x,) = inputs
        two = const_like(2, x)
        return [ps.mul(_c(0.5, output), ps.sub(j0(x), jv(two, x)))]


def _order_shift(v: Variable, k: int) -> Variable:
    return ps.add(v, const_like(k, v))


class Jv(SpecialOp):
    """Bessel function of the first kind of real order v (gradient in x only)."""

    nin = 2
    scipy_name = "jv"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        v, x = inputs
        half = _c(0.5, output)
        return [None, ps.mul(half, ps.sub(jv(_order_shift(v, -1), x), jv(_order_shift(v, 1), x)))]


class Iv(SpecialOp):
    """Modified Bessel function of the first kind of real order v (gradient in x only)."""

    nin = 2
    scipy_name = "iv"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        v, x = inputs
        half = _c(0.5, output)
        return [None, ps.mul(half, ps.add(iv(_order_shift(v, -1), x), iv(_order_shift(v, 1), x)))]


class Ive(SpecialOp):
    """Exponentially scaled iv: iv(v, x) * exp(-|x|) (gradient in x only)."""

    nin = 2
    scipy_name = "ive"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        v, x = inputs
        half = _c(0.5, output)
        mean = ps.mul(half, ps.add(ive(_order_shift(v, -1), x), ive(_order_shift(v, 1), x)))
        return [None, ps.sub(mean, ps.mul(ps.sign(x), output))]


class Kv(SpecialOp):
    """Modified Bessel function of the second kind of real order v (gradient in x only)."""

    nin = 2
    scipy_name = "kv"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        v, x = inputs
        half = _c(-0.5, output)
        return [None, ps.mul(half, ps.add(kv(_order_shift(v, -1), x), kv(_order_shift(v, 1), x)))]


class Kve(SpecialOp):
    """Exponentially scaled kv: kv(v, x) * exp(x) (gradient in x only)."""

    nin = 2
    scipy_name = "kve"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        v, x = inputs
        half = _c(-0.5, output)
        mean = ps.mul(half, ps.add(kve(_order_shift(v, -1), x), kve(_order_shift(v, 1), x)))
        return [None, ps.add(mean, output)]


def _gamma_density(k: Variable, x: Variable, like: Variable) -> Variable:
    """exp(-x) x^(k-1) / Gamma(k), computed in logs."""
    one = const_like(1, like)
    log_density = ps.sub(ps.sub(ps.mul(ps.sub(k, one), ps.log(x)), x), gammaln(k))
    return ps.exp(log_density)


class GammaInc(SpecialOp):
    """Regularised lower incomplete gamma P(k, x)."""

    nin = 2
    scipy_name = "gammainc"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        k, x = inputs
        return [gammainc_der_k(k, x), _gamma_density(k, x, output)]


class GammaIncC(SpecialOp):
    """Regularised upper incomplete gamma Q(k, x) = 1 - P(k, x)."""

    nin = 2
    scipy_name = "gammaincc"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        k, x = inputs
        return [ps.neg(gammainc_der_k(k, x)), ps.neg(_gamma_density(k, x, output))]


class GammaIncInv(SpecialOp):
    """The x with P(k, x) = y (gradient in y only)."""

    nin = 2
    scipy_name = "gammaincinv"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        k, _y = inputs
        return [None, ps.true_div(const_like(1, output), _gamma_density(k, output, output))]


class GammaIncCInv(SpecialOp):
    """The x with Q(k, x) = y (gradient in y only)."""

    nin = 2
    scipy_name = "gammainccinv"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        k, _y = inputs
        return [None, ps.true_div(const_like(-1, output), _gamma_density(k, output, output))]


class BetaInc(SpecialOp):
    """Regularised incomplete beta I_x(a, b)."""

    nin = 3
    scipy_name = "betainc"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        a, b, x = inputs
        one = const_like(1, output)
        log_density = ps.sub(
            ps.add(ps.mul(ps.sub(a, one), ps.log(x)), ps.mul(ps.sub(b, one), ps.log1p(ps.neg(x)))),
            betaln(a, b),
        )
        return [betainc_der_a(a, b, x), betainc_der_b(a, b, x), ps.exp(log_density)]


class BetaIncInv(SpecialOp):
    """The x with I_x(a, b) = y (gradient in y only)."""

    nin = 3
    scipy_name = "betaincinv"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        a, b, _y = inputs
        one = const_like(1, output)
        log_density = ps.sub(
            ps.add(ps.mul(ps.sub(a, one), ps.log(output)),
                   ps.mul(ps.sub(b, one), ps.log1p(ps.neg(output)))),
            betaln(a, b),
        )
        return [None, None, ps.exp(ps.neg(log_density))]


class Hyp2F1(SpecialOp):
    """Gauss's hypergeometric function 2F1(a, b; c; z) (gradient in z only)."""

    nin = 4
    scipy_name = "hyp2f1"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        a, b, c, z = inputs
        one = const_like(1, output)
        up = hyp2f1(ps.add(a, one), ps.add(b, one), ps.add(c, one), z)
        return [None, None, None, ps.mul(ps.true_div(ps.mul(a, b), c), up)]


class OwensT(SpecialOp):
    """Owen's T function T(h, a)."""

    nin = 2
    scipy_name = "owens_t"

    def partials(self, inputs: Sequence[Variable], output: Variable) -> list[Variable | None]:
        h, a = inputs
        half = _c(0.5, output)
        h2 = ps.sqr(h)
        one_a2 = ps.add(const_like(1, output), ps.sqr(a))
        dh = ps.mul(
            _c(-0.5 * _INV_SQRT_2PI, output),
            ps.mul(ps.exp(ps.mul(ps.neg(half), h2)), erf(ps.mul(_c(1 / math.sqrt(2.0), output),
                                                               ps.mul(a, h)))),
        )
        da = ps.true_div(ps.exp(ps.mul(ps.neg(half), ps.mul(h2, one_a2))),
                         ps.mul(_c(2 * math.pi, output), one_a2))
        return [dh, da]


erf = Erf()
erfc = Erfc()
erfcx = Erfcx()
erfinv = Erfinv()
gammaln = GammaLn()
digamma = Digamma()
polygamma = Polygamma()
betaln = BetaLn()
xlogy = XLogY()
xlog1py = XLog1pY()
i0 = I0()
i1 = I1()
log_ndtr = LogNdtr()
gamma = Gamma()
erfcinv = Erfcinv()
j0 = J0()
j1 = J1()
jv = Jv()
iv = Iv()
ive = Ive()
kv = Kv()
kve = Kve()
gammainc = GammaInc()
gammaincc = GammaIncC()
gammaincinv = GammaIncInv()
gammainccinv = GammaIncCInv()
betainc = BetaInc()
betaincinv = BetaIncInv()
hyp2f1 = Hyp2F1()
owens_t = OwensT()
# PyTensor's other spellings at ``pytensor.scalar.math``
Owens_t = OwensT
psi = digamma
tri_gamma = TriGamma()

#: every scalar op of this package, by name (tests, C table and docs iterate over it)
SPECIAL_OPS: dict[str, ScalarOp] = {
    op.name: op
    for op in (erf, erfc, erfcx, erfinv, gammaln, digamma, polygamma, betaln, xlogy, xlog1py,
               i0, i1, log_ndtr, gamma, erfcinv, j0, j1, jv, iv, ive, kv, kve, gammainc,
               gammaincc, gammaincinv, gammainccinv, betainc, betaincinv, hyp2f1, owens_t)
}
