"""The distributions: one RandomVariable per family, plus helper constructors.

Each draws with the NumPy Generator method of the same name where NumPy has
one, else with ``scipy.stats`` (``ScipyRandomVariable``), so a graph and
NumPy/SciPy seeded with the same generator give the same numbers.  SciPy is
loaded on the first such draw, never at import: the core needs only NumPy.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Variable
from opgraph.tensor.random.op import RandomVariable, default_rng
from opgraph.tensor.random.type import RNG_METHODS
from opgraph.tensor.random.utils import DISTRIBUTIONS
from opgraph.tensor.shape import shape_tuple
from opgraph.tensor.variable import as_tensor_variable, constant

__all__ = [
    "BernoulliRV", "BetaBinomialRV", "BetaRV", "BinomialRV", "CategoricalRV", "CauchyRV",
    "ChiSquareRV", "ChoiceWithoutReplacement", "DirichletRV", "ExponentialRV", "GammaRV",
    "GenGammaRV", "GeometricRV", "GumbelRV", "HalfCauchyRV", "HalfNormalRV",
    "HyperGeometricRV", "IntegersRV", "InvGammaRV", "LaplaceRV", "LogNormalRV", "LogisticRV",
    "MultinomialRV", "MvNormalRV", "NegBinomialRV", "NormalRV", "ParetoRV", "PermutationRV",
    "PoissonRV", "RayleighRV", "ScipyRandomVariable", "StudentTRV", "TriangularRV",
    "TruncExponentialRV", "UniformRV", "VonMisesRV", "WaldRV", "WeibullRV",
    "bernoulli", "beta", "betabinom", "binomial", "broadcast_shapes", "categorical",
    "cauchy", "chisquare", "choice", "default_rng", "dirichlet", "exponential", "gamma",
    "gengamma", "geometric", "gumbel", "halfcauchy", "halfnormal", "hypergeometric",
    "integers", "invgamma", "laplace", "logistic", "lognormal", "multinomial",
    "multivariate_normal", "nbinom", "negative_binomial", "normal", "pareto", "permutation",
    "poisson", "rayleigh", "standard_normal", "t", "triangular", "truncexpon", "uniform",
    "vonmises", "wald", "weibull",
]

broadcast_shapes = np.broadcast_shapes


def scipy_distribution(name: str) -> Any:
    """``scipy.stats.<name>``, loaded on first draw (SciPy is optional for the core)."""
    try:
        stats = importlib.import_module("scipy.stats")
    except ImportError:
        raise ImportError(
            f"drawing from the {name!r} distribution needs SciPy (scipy.stats); "
            "install it with 'pip install scipy'"
        ) from None
    return getattr(stats, name)


class ScipyRandomVariable(RandomVariable):
    """A RandomVariable drawn with ``scipy.stats.<scipy_name>.rvs``."""

    scipy_name: str = ""

    def rng_fn_scipy(self, rng: np.random.Generator, *args: Any, **kwargs: Any) -> Any:
        return scipy_distribution(self.scipy_name).rvs(*args, random_state=rng, **kwargs)

    def rng_fn(self, rng: np.random.Generator, *args: Any, **kwargs: Any) -> Any:
        *params, size = args if "size" not in kwargs else (*args, kwargs.pop("size"))
        draw = self.rng_fn_scipy(rng, *params, size=size, **kwargs)
        if size is None:
            shape = np.broadcast_shapes(*(np.shape(p) for p in params))
            draw = np.broadcast_to(draw, shape)
        return np.array(draw)


# -- continuous, drawn with NumPy -----------------------------------------------------
class UniformRV(RandomVariable):
    """``uniform(low=0, high=1)`` on ``[low, high)``."""

    name, signature, dtype = "uniform", "(),()->()", "floatX"

    def __call__(self, low: Any = 0.0, high: Any = 1.0, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(low, high, size=size, **kw)

    def rng_fn(self, rng: np.random.Generator, low: Any, high: Any, size: Any) -> Any:
        """NumPy's draws; where a bound is NaN or infinite, ``low + (high - low) * u`` (the
        same formula and stream) instead of NumPy's OverflowError, as PyTensor's default
        backend gives: PyMC's Truncated draws pass ``cdf(inf)`` (NaN for StudentT) here."""
        low, high = np.asarray(low), np.asarray(high)
        if np.all(np.isfinite(low)) and np.all(np.isfinite(high)):
            return rng.uniform(low, high, size)
        shape = size if size is not None else np.broadcast_shapes(low.shape, high.shape)
        with np.errstate(invalid="ignore"):
            return low + (high - low) * rng.random(shape)


class TriangularRV(RandomVariable):
    """``triangular(left, mode, right)``."""

    name, signature, dtype = "triangular", "(),(),()->()", "floatX"

    def __call__(self, left: Any, mode: Any, right: Any, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(left, mode, right, size=size, **kw)


class BetaRV(RandomVariable):
    """``beta(alpha, beta)``."""

    name, signature, dtype = "beta", "(),()->()", "floatX"

    def __call__(self, alpha: Any, beta: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(alpha, beta, size=size, **kw)


class NormalRV(RandomVariable):
    """``normal(loc=0, scale=1)``."""

    name, signature, dtype = "normal", "(),()->()", "floatX"

    def __call__(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(loc, scale, size=size, **kw)


class LogNormalRV(RandomVariable):
    """``lognormal(mean=0, sigma=1)``: exp of a normal."""

    name, signature, dtype = "lognormal", "(),()->()", "floatX"

    def __call__(self, mean: Any = 0.0, sigma: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(mean, sigma, size=size, **kw)


class GammaRV(RandomVariable):
    """Gamma with ``shape`` and ``scale`` (NumPy's parametrisation)."""

    name, signature, dtype = "gamma", "(),()->()", "floatX"

    def __call__(self, shape: Any, scale: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(shape, scale, size=size, **kw)


class ExponentialRV(RandomVariable):
    """``exponential(scale=1)``."""

    name, signature, dtype = "exponential", "()->()", "floatX"

    def __call__(self, scale: Any = 1.0, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(scale, size=size, **kw)


class WeibullRV(RandomVariable):
    """``weibull(alpha)`` with scale 1."""

    name, signature, dtype = "weibull", "()->()", "floatX"

    def __call__(self, alpha: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(alpha, size=size, **kw)


class LogisticRV(RandomVariable):
    """``logistic(loc=0, scale=1)``."""

    name, signature, dtype = "logistic", "(),()->()", "floatX"

    def __call__(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(loc, scale, size=size, **kw)


class VonMisesRV(RandomVariable):
    """``vonmises(mu, kappa)`` on ``[-pi, pi]``."""

    name, signature, dtype = "vonmises", "(),()->()", "floatX"

    def __call__(self, mu: Any, kappa: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(mu, kappa, size=size, **kw)


class WaldRV(RandomVariable):
    """``wald(mean, scale)``: the inverse Gaussian."""

    name, signature, dtype = "wald", "(),()->()", "floatX"

    def __call__(self, mean: Any = 1.0, scale: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(mean, scale, size=size, **kw)


class LaplaceRV(RandomVariable):
    """``laplace(loc=0, scale=1)``."""

    name, signature, dtype = "laplace", "(),()->()", "floatX"

    def __call__(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(loc, scale, size=size, **kw)


class GenGammaRV(RandomVariable):
    """Generalised gamma ``gengamma(alpha, p, lambd)``: ``lambd * Gamma(alpha/p)**(1/p)``."""

    name, signature, dtype = "gengamma", "(),(),()->()", "floatX"

    def __call__(self, alpha: Any = 1.0, p: Any = 1.0, lambd: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(alpha, p, lambd, size=size, **kw)

    def rng_fn(self, rng: np.random.Generator, alpha: Any, p: Any, lambd: Any,
               size: Any) -> np.ndarray:
        alpha_p = np.true_divide(alpha, p)
        return np.asarray(lambd * rng.gamma(alpha_p, 1.0, size=size) ** np.true_divide(1, p))


# -- continuous, drawn with SciPy -----------------------------------------------------
class HalfNormalRV(ScipyRandomVariable):
    """``halfnormal(loc=0, scale=1)``: ``loc + |N(0, scale)|``."""

    name, signature, dtype, scipy_name = "halfnormal", "(),()->()", "floatX", "halfnorm"

    def __call__(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(loc, scale, size=size, **kw)


class ChiSquareRV(ScipyRandomVariable):
    """``chisquare(df)``."""

    name, signature, dtype, scipy_name = "chisquare", "()->()", "floatX", "chi2"

    def __call__(self, df: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(df, size=size, **kw)


class RayleighRV(ScipyRandomVariable):
    """``rayleigh(scale=1)``."""

    name, signature, dtype, scipy_name = "rayleigh", "()->()", "floatX", "rayleigh"

    def __call__(self, scale: Any = 1.0, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(scale, size=size, **kw)

    def rng_fn_scipy(self, rng: np.random.Generator, scale: Any, size: Any) -> Any:
        return scipy_distribution("rayleigh").rvs(scale=scale, size=size, random_state=rng)


class ParetoRV(ScipyRandomVariable):
    """``pareto(b, scale=1)``, support ``[scale, inf)``."""

    name, signature, dtype, scipy_name = "pareto", "(),()->()", "floatX", "pareto"

    def __call__(self, b: Any, scale: Any = 1.0, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(b, scale, size=size, **kw)

    def rng_fn_scipy(self, rng: np.random.Generator, b: Any, scale: Any, size: Any) -> Any:
        return scipy_distribution("pareto").rvs(b, scale=scale, size=size, random_state=rng)


class GumbelRV(ScipyRandomVariable):
    """``gumbel(loc=0, scale=1)`` (right-skewed, SciPy's ``gumbel_r``)."""

    name, signature, dtype, scipy_name = "gumbel", "(),()->()", "floatX", "gumbel_r"

    def __call__(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(loc, scale, size=size, **kw)


class CauchyRV(ScipyRandomVariable):
    """``cauchy(loc=0, scale=1)``."""

    name, signature, dtype, scipy_name = "cauchy", "(),()->()", "floatX", "cauchy"

    def __call__(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(loc, scale, size=size, **kw)


class HalfCauchyRV(ScipyRandomVariable):
    """``halfcauchy(loc=0, scale=1)``."""

    name, signature, dtype, scipy_name = "halfcauchy", "(),()->()", "floatX", "halfcauchy"

    def __call__(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(loc, scale, size=size, **kw)


class InvGammaRV(RandomVariable):
    """``invgamma(alpha, beta)``: shape ``alpha``, scale ``beta``.

    Drawn as ``1 / gamma(alpha, 1 / beta)``, PyTensor's draw: a seeded model gives
    PyTensor's numbers (SciPy's ``invgamma.rvs`` reads the stream differently).
    """

    name, signature, dtype = "invgamma", "(),()->()", "floatX"

    def __call__(self, alpha: Any, beta: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(alpha, beta, size=size, **kw)

    def rng_fn(self, rng: np.random.Generator, alpha: Any, beta: Any, size: Any) -> Any:
        return 1 / rng.gamma(alpha, 1 / np.asarray(beta), size)


class TruncExponentialRV(ScipyRandomVariable):
    """``truncexpon(b, loc=0, scale=1)``: exponential truncated at ``b``."""

    name, signature, dtype, scipy_name = "truncexpon", "(),(),()->()", "floatX", "truncexpon"

    def __call__(self, b: Any, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(b, loc, scale, size=size, **kw)


class StudentTRV(ScipyRandomVariable):
    """``t(df, loc=0, scale=1)``: Student's t."""

    name, signature, dtype, scipy_name = "t", "(),(),()->()", "floatX", "t"

    def __call__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(df, loc, scale, size=size, **kw)


# -- discrete -------------------------------------------------------------------------
class BernoulliRV(ScipyRandomVariable):
    """``bernoulli(p)``: 1 with probability ``p``."""

    name, signature, dtype, scipy_name = "bernoulli", "()->()", "int64", "bernoulli"

    def __call__(self, p: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(p, size=size, **kw)


class BinomialRV(RandomVariable):
    """``binomial(n, p)``."""

    name, signature, dtype = "binomial", "(),()->()", "int64"

    def __call__(self, n: Any, p: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(n, p, size=size, **kw)


class NegBinomialRV(ScipyRandomVariable):
    """``nbinom(n, p)``: failures before ``n`` successes."""

    name, signature, dtype, scipy_name = "nbinom", "(),()->()", "int64", "nbinom"

    def __call__(self, n: Any, p: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(n, p, size=size, **kw)


class BetaBinomialRV(ScipyRandomVariable):
    """``betabinom(n, a, b)``."""

    name, signature, dtype, scipy_name = "betabinom", "(),(),()->()", "int64", "betabinom"

    def __call__(self, n: Any, a: Any, b: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(n, a, b, size=size, **kw)


class PoissonRV(RandomVariable):
    """``poisson(lam=1)``."""

    name, signature, dtype = "poisson", "()->()", "int64"

    def __call__(self, lam: Any = 1.0, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(lam, size=size, **kw)


class GeometricRV(RandomVariable):
    """``geometric(p)``: trials up to the first success."""

    name, signature, dtype = "geometric", "()->()", "int64"

    def __call__(self, p: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(p, size=size, **kw)


class HyperGeometricRV(RandomVariable):
    """``hypergeometric(ngood, nbad, nsample)``."""

    name, signature, dtype = "hypergeometric", "(),(),()->()", "int64"

    def __call__(self, ngood: Any, nbad: Any, nsample: Any, size: Any = None,
                 **kw: Any) -> Variable:
        return super().__call__(ngood, nbad, nsample, size=size, **kw)


class IntegersRV(RandomVariable):
    """``integers(low, high)`` on ``[low, high)``; ``integers(high)`` starts at 0."""

    name, signature, dtype = "integers", "(),()->()", "int64"

    def __call__(self, low: Any, high: Any = None, size: Any = None, **kw: Any) -> Variable:
        if high is None:
            low, high = 0, low
        return super().__call__(low, high, size=size, **kw)


def _loop_batch(batch: tuple[int, ...], draw: Any) -> np.ndarray:
    """``draw(index)`` for every batch index, stacked in C order."""
    if batch == ():
        return np.asarray(draw(()))
    out = [np.asarray(draw(idx)) for idx in np.ndindex(*batch)]
    if not out:
        return np.empty(batch)
    return np.stack(out).reshape(batch + out[0].shape)


class MvNormalRV(RandomVariable):
    """``multivariate_normal(mean, cov, method="cholesky")``; batched over leading dims."""

    name, signature, dtype = "multivariate_normal", "(n),(n,n)->(n)", "floatX"
    __props__ = ("name", "signature", "dtype", "inplace", "method")

    def __init__(self, *args: Any, method: str = "cholesky", **kwargs: Any) -> None:
        if method not in ("cholesky", "svd", "eigh"):
            raise ValueError(f"multivariate_normal: method must be 'cholesky', 'svd' or "
                             f"'eigh', got {method!r}")
        super().__init__(*args, **kwargs)
        self.method = method

    def __call__(self, mean: Any, cov: Any, size: Any = None, method: str | None = None,
                 **kw: Any) -> Variable:
        op = self
        if method is not None and method != self.method:
            props = self._props_dict()
            props["method"] = method
            op = type(self)(**props)
        return RandomVariable.__call__(op, mean, cov, size=size, **kw)

    def rng_fn(self, rng: np.random.Generator, mean: Any, cov: Any, size: Any) -> np.ndarray:
        mean, cov = np.asarray(mean), np.asarray(cov)
        if size is None:
            size = np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
        size = tuple(size)
        mean = np.broadcast_to(mean, size + mean.shape[-1:])
        cov = np.broadcast_to(cov, size + cov.shape[-2:])
        return _loop_batch(
            size, lambda i: rng.multivariate_normal(mean[i], cov[i], method=self.method)
        )


class DirichletRV(RandomVariable):
    """``dirichlet(alphas)``; the last axis of ``alphas`` is the support."""

    name, signature, dtype = "dirichlet", "(a)->(a)", "floatX"

    def __call__(self, alphas: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(alphas, size=size, **kw)

    def rng_fn(self, rng: np.random.Generator, alphas: Any, size: Any) -> np.ndarray:
        alphas = np.asarray(alphas)
        if size is None:
            size = alphas.shape[:-1]
        size = tuple(size)
        alphas = np.broadcast_to(alphas, size + alphas.shape[-1:])
        return _loop_batch(size, lambda i: rng.dirichlet(alphas[i]))


class MultinomialRV(RandomVariable):
    """``multinomial(n, p)``; the last axis of ``p`` is the support."""

    name, signature, dtype = "multinomial", "(),(p)->(p)", "int64"

    def __call__(self, n: Any, p: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(n, p, size=size, **kw)

    def rng_fn(self, rng: np.random.Generator, n: Any, p: Any, size: Any) -> np.ndarray:
        n, p = np.asarray(n), np.asarray(p)
        if size is None:
            size = np.broadcast_shapes(n.shape, p.shape[:-1])
        size = tuple(size)
        n = np.broadcast_to(n, size)
        p = np.broadcast_to(p, size + p.shape[-1:])
        return _loop_batch(size, lambda i: rng.multinomial(n[i], p[i]))


class CategoricalRV(RandomVariable):
    """``categorical(p)``: index ``k`` with probability ``p[..., k]``."""

    name, signature, dtype = "categorical", "(p)->()", "int64"

    def __call__(self, p: Any, size: Any = None, **kw: Any) -> Variable:
        return super().__call__(p, size=size, **kw)

    def rng_fn(self, rng: np.random.Generator, p: Any, size: Any) -> np.ndarray:
        p = np.asarray(p)
        if size is None:
            size = p.shape[:-1]
        size = tuple(size)
        try:
            p = np.broadcast_to(p, size + p.shape[-1:])
        except ValueError:
            raise ValueError(
                f"`size` is incompatible with the shape of `p`: size {size}, "
                f"p batch shape {p.shape[:-1]}"
            ) from None
        cdf = np.cumsum(p, axis=-1)
        cdf /= cdf[..., -1:]
        unif = rng.random(size)
        return np.minimum((cdf <= unif[..., None]).sum(axis=-1), p.shape[-1] - 1)


class ChoiceWithoutReplacement(RandomVariable):
    """Draws without replacement: ``a`` (or ``arange(a)``), optional ``p``, core shape.

    The signature says which: ``"(x),(1)->(s0)"`` (no ``p``) or
    ``"(x),(x),(1)->(s0)"``; batch dimensions of ``a``/``p`` draw independently.
    """

    name = "choice_without_replacement"

    @property
    def has_p(self) -> bool:
        return self.ndims_params is not None and len(self.ndims_params) == 3

    def _output_dtype(self, dist_params: Sequence[Variable]) -> str:
        if self.dtype is not None:
            return super()._output_dtype(dist_params)
        a = dist_params[0]
        return "int64" if self.ndims_params[0] == 0 else a.type.dtype

    def _supp_shape_from_params(self, dist_params: Sequence[Any],
                                param_shapes: Sequence[Any] | None = None) -> Sequence[Any]:
        a, core_shape = dist_params[0], dist_params[-1]
        n_core = self.ndims_params[-1] and _static_len(core_shape)
        core = [core_shape[i] for i in range(n_core)]
        a_core = self.ndims_params[0]
        if a_core > 1:
            a_shape = param_shapes[0] if param_shapes is not None else shape_tuple(a)
            core += list(a_shape)[len(a_shape) - a_core + 1:]
        return core

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> np.ndarray:
        if self.has_p:
            a, p, core_shape, size = args
        else:
            (a, core_shape, size), p = args, None
        a = np.asarray(a)
        core_shape = tuple(int(s) for s in np.asarray(core_shape))
        nd_a = self.ndims_params[0]
        batch_shapes = [a.shape[: a.ndim - nd_a]]
        if p is not None:
            p = np.asarray(p)
            batch_shapes.append(p.shape[:-1])
        if size is None:
            size = np.broadcast_shapes(*batch_shapes)
        size = tuple(size)
        a = np.broadcast_to(a, size + a.shape[a.ndim - nd_a:])
        if p is not None:
            p = np.broadcast_to(p, size + p.shape[-1:])
        return _loop_batch(size, lambda i: rng.choice(
            a[i] if nd_a else int(a[i]), size=core_shape, replace=False,
            p=None if p is None else p[i]))


def _static_len(v: Any) -> int:
    if isinstance(v, Variable):
        n = v.type.shape[0] if v.type.ndim == 1 else None
        if n is None:
            raise ValueError(f"core shape {v} needs a static length")
        return n
    return len(v)


class PermutationRV(RandomVariable):
    """``permutation(x)``: ``x`` shuffled along its first axis (``arange(x)`` for an int)."""

    name = "permutation"

    def _output_dtype(self, dist_params: Sequence[Variable]) -> str:
        if self.dtype is not None:
            return super()._output_dtype(dist_params)
        return "int64" if self.ndims_params[0] == 0 else dist_params[0].type.dtype

    def _supp_shape_from_params(self, dist_params: Sequence[Any],
                                param_shapes: Sequence[Any] | None = None) -> Sequence[Any]:
        (x,) = dist_params
        if self.ndims_params[0] == 0:
            return (x,)
        shape = param_shapes[0] if param_shapes is not None else shape_tuple(x)
        return tuple(shape)[len(shape) - self.ndims_params[0]:]

    def rng_fn(self, rng: np.random.Generator, x: Any, size: Any) -> np.ndarray:
        x = np.asarray(x)
        nd = self.ndims_params[0]
        if size is None:
            size = x.shape[: x.ndim - nd]
        size = tuple(size)
        x = np.broadcast_to(x, size + x.shape[x.ndim - nd:])
        if nd == 0:
            return _loop_batch(size, lambda i: rng.permutation(int(x[i])))
        return _loop_batch(size, lambda i: rng.permutation(x[i]))


# -- the instances and helper constructors ------------------------------------------
uniform = UniformRV()
triangular = TriangularRV()
beta = BetaRV()
normal = NormalRV()
lognormal = LogNormalRV()
_gamma = GammaRV()
exponential = ExponentialRV()
weibull = WeibullRV()
logistic = LogisticRV()
vonmises = VonMisesRV()
wald = WaldRV()
laplace = LaplaceRV()
gengamma = GenGammaRV()
halfnormal = HalfNormalRV()
chisquare = ChiSquareRV()
rayleigh = RayleighRV()
pareto = ParetoRV()
gumbel = GumbelRV()
cauchy = CauchyRV()
halfcauchy = HalfCauchyRV()
invgamma = InvGammaRV()
truncexpon = TruncExponentialRV()
t = StudentTRV()
bernoulli = BernoulliRV()
binomial = BinomialRV()
nbinom = negative_binomial = NegBinomialRV()
betabinom = BetaBinomialRV()
poisson = PoissonRV()
geometric = GeometricRV()
hypergeometric = HyperGeometricRV()
integers = IntegersRV()
multivariate_normal = MvNormalRV()
dirichlet = DirichletRV()
multinomial = MultinomialRV()
categorical = CategoricalRV()

# Each instance draws what its class's docstring says; its own docstring adds how to call it.
for _rv in (uniform, triangular, beta, normal, lognormal, _gamma, exponential, weibull, logistic,
            vonmises, wald, laplace, gengamma, halfnormal, chisquare, rayleigh, pareto, gumbel,
            cauchy, halfcauchy, invgamma, truncexpon, t, bernoulli, binomial, nbinom, betabinom,
            poisson, geometric, hypergeometric, integers, multivariate_normal, dirichlet,
            multinomial, categorical):
    _rv.__doc__ = (f"Random draws from {type(_rv).__doc__}\n\nCall it with the parameters and "
                   "optional ``size=``, ``rng=`` and ``dtype=``: the result is a symbolic "
                   "tensor of draws.")
del _rv


def standard_normal(*, size: Any = None, rng: Any = None, dtype: Any = None) -> Variable:
    """Draws from ``normal(0, 1)``."""
    return normal(0.0, 1.0, size=size, rng=rng, dtype=dtype)


def gamma(shape: Any, rate: Any = None, scale: Any = None, **kwargs: Any) -> Variable:
    """Gamma with ``shape`` and ``scale`` (``rate`` is deprecated: ``scale = 1/rate``)."""
    if rate is not None and scale is not None:
        raise ValueError("Cannot specify both rate and scale")
    if rate is None and scale is None:
        raise ValueError("Must specify scale")
    if rate is not None:
        warnings.warn(
            "Gamma rate argument is deprecated and will stop working, use scale instead",
            FutureWarning,
            stacklevel=2,
        )
        rate = as_tensor_variable(rate)
        scale = 1.0 / rate
    return _gamma(shape, scale, **kwargs)


def _core_shape(size: Any) -> Variable:
    if size is None:
        return constant(np.array([], dtype="int64"))
    if isinstance(size, int | np.integer):
        size = (size,)
    if isinstance(size, Variable) and size.type.ndim == 0:
        size = (size,)
    var = as_tensor_variable(size) if not isinstance(size, Sequence) or len(size) else \
        constant(np.array([], dtype="int64"))
    return var.astype("int64") if var.type.dtype != "int64" else var


def choice(a: Any, size: Any = None, replace: bool = True, p: Any = None,
           rng: Any = None, dtype: Any = None, name: str | None = None) -> Variable:
    """Draws from ``a`` (an int means ``arange(a)``), like ``Generator.choice``.

    With replacement, this is ``a[integers(...)]`` (uniform) or
    ``a[categorical(p)]`` (weighted); without, a ``ChoiceWithoutReplacement``.
    """
    a = as_tensor_variable(a)
    if p is not None:
        p = as_tensor_variable(p)
        if p.type.ndim != 1:
            raise ValueError(f"choice: p must be 1-dimensional, got {p.type}")
    if replace:
        if p is None:
            pop = a if a.type.ndim == 0 else a.shape[0]
            idx = integers(0, pop, size=size, rng=rng)
        else:
            idx = categorical(p, size=size, rng=rng)
        out = idx if a.type.ndim == 0 else a[idx]
        if name is not None:
            out.name = name
        return out
    core = _core_shape(size)
    n_core = core.type.shape[0]
    a_dims = [f"a{i}" for i in range(a.type.ndim)]
    a_sig = "(" + ",".join(a_dims) + ")"
    out_dims = [f"s{i}" for i in range(n_core)] + a_dims[1:]
    ins = [a_sig] + (["(a0)" if a.type.ndim else "(a)"] if p is not None else []) + \
        [f"({n_core})"]
    signature = ",".join(ins) + "->(" + ",".join(out_dims) + ")"
    op = ChoiceWithoutReplacement(signature=signature, dtype=dtype)
    args = (a, p, core) if p is not None else (a, core)
    return op(*args, rng=rng, name=name)


def permutation(x: Any, **kwargs: Any) -> Variable:
    """``x`` shuffled along its first axis; an int ``x`` permutes ``arange(x)``."""
    x = as_tensor_variable(x)
    nd = x.type.ndim
    op = PermutationRV(ndim_supp=max(nd, 1), ndims_params=[nd],
                       dtype="int64" if nd == 0 else x.type.dtype)
    return op(x, **kwargs)


_ALL_DISTRIBUTIONS = {
    name: obj for name, obj in list(globals().items())
    if not name.startswith("_") and (isinstance(obj, RandomVariable) or name in (
        "standard_normal", "gamma", "choice", "permutation"))
}
for _name, _dist in _ALL_DISTRIBUTIONS.items():
    DISTRIBUTIONS.register(_name, _dist)


def _rng_method(dist: Any) -> Any:
    def method(rng: Variable, *args: Any, **kwargs: Any) -> tuple[Variable, Variable]:
        out = dist(*args, rng=rng, **kwargs)
        return out.owner.outputs[0], out

    return method


for _name, _dist in _ALL_DISTRIBUTIONS.items():
    RNG_METHODS.register(_name, _rng_method(_dist))


# PyTensor's display names of its distributions (``op._print_name``: plain text, LaTeX),
# read by libraries that print models (PyMC's ``str(model)``).
_PRINT_NAMES = {
    "uniform": "Uniform", "triangular": "Triangular", "beta": "Beta", "normal": "Normal",
    "halfnormal": "HalfNormal", "lognormal": "LogNormal", "gamma": "Gamma",
    "pareto": "Pareto", "gumbel": "Gumbel", "exponential": "Exponential",
    "weibull": "Weibull", "logistic": "Logistic", "vonmises": "VonMises",
    "multivariate_normal": "MultivariateNormal", "dirichlet": "Dirichlet",
    "poisson": "Poisson", "geometric": "Geometric", "hypergeometric": "HyperGeometric",
    "cauchy": "Cauchy", "halfcauchy": "HalfCauchy", "invgamma": "InverseGamma",
    "truncexpon": "TruncatedExponential", "t": "StudentT", "bernoulli": "Bernoulli",
    "laplace": "Laplace", "binomial": "Binomial", "nbinom": "NegativeBinomial",
    "betabinom": "BetaBinomial", "gengamma": "GeneralizedGamma",
    "multinomial": "Multinomial", "categorical": "Categorical", "integers": "integers",
}
for _op in [v for v in globals().values() if isinstance(v, RandomVariable)]:
    _shown = _PRINT_NAMES.get(getattr(_op, "name", None))
    if _shown is not None and "_print_name" not in vars(type(_op)):
        type(_op)._print_name = (_shown, f"\\operatorname{{{_shown}}}")
del _op, _shown
