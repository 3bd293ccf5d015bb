"""ScalarOp, the base of every scalar operation, and the output-type rules.

A scalar op is the body of an Elemwise: it knows its output dtypes for given
input dtypes (``output_types_preference``), how to compute one element
(``impl``) and a NumPy function computing it over whole arrays (``ufunc``).

Dtype rule: ops backed by a NumPy ufunc take their output dtypes from NumPy's
own type resolution for that ufunc (``ufunc.resolve_dtypes``), so a graph's
declared dtypes are exactly what NumPy computes.  Float-only ops without a
ufunc (sigmoid, softplus) and ``reciprocal`` use ``upgrade_to_float``, which
follows ``np.exp``: int8/uint8/bool -> float16, int16/uint16 -> float32,
larger ints -> float64.  (PyTensor instead raises small ints to at least
float32; opgraph follows NumPy everywhere.)
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.scalar.gradhelpers import pushforward_from_pullback
from opgraph.scalar.type import (
    ScalarType,
    _floatx,
    as_scalar,
    complex_dtypes,
    continuous_dtypes,
    discrete_dtypes,
    get_scalar_type,
    upcast,
)

__all__ = [
    "BinaryScalarOp",
    "ComplexError",
    "ScalarOp",
    "UfuncOut",
    "UnaryScalarOp",
    "bool_out",
    "float_out",
    "int_out",
    "same_out",
    "same_out_nobool",
    "same_out_nocomplex",
    "specific_out",
    "transfer_type",
    "upcast_out",
    "upcast_out_no_complex",
    "upcast_out_nobool",
    "upgrade_to_float",
    "upgrade_to_float64",
    "upgrade_to_float_no_complex",
]

TypeRule = Callable[..., Sequence[ScalarType]]


class ComplexError(NotImplementedError, TypeError):
    """The operation is not defined for complex inputs (PyTensor's name; also a TypeError)."""


def _dtypes(types: Sequence[ScalarType]) -> list[str]:
    return [t.dtype for t in types]


# --------------------------------------------------------------------------- type rules


def upcast_out(*types: ScalarType) -> tuple[ScalarType]:
    """One output of the promoted dtype of all inputs (``numpy.result_type``)."""
    return (get_scalar_type(upcast(*_dtypes(types))),)


def upcast_out_nobool(*types: ScalarType) -> tuple[ScalarType]:
    """Like ``upcast_out`` but refuses a bool result."""
    (out,) = upcast_out(*types)
    if out.dtype == "bool":
        raise TypeError("this operation is not defined on bool inputs; cast them first")
    return (out,)


def upcast_out_no_complex(*types: ScalarType) -> tuple[ScalarType]:
    """Like ``upcast_out`` but refuses complex inputs."""
    if any(t.dtype in complex_dtypes for t in types):
        raise TypeError("this operation is not defined on complex inputs")
    return upcast_out(*types)


def same_out(t: ScalarType, *rest: ScalarType) -> tuple[ScalarType]:
    """The output has the first input's type."""
    return (t,)


def same_out_nobool(t: ScalarType, *rest: ScalarType) -> tuple[ScalarType]:
    """The first input's type; a bool input is a TypeError."""
    if t.dtype == "bool":
        raise TypeError("this operation is not defined on bool inputs; cast them first")
    return (t,)


def same_out_nocomplex(t: ScalarType, *rest: ScalarType) -> tuple[ScalarType]:
    """The first input's type; a complex input is a TypeError."""
    if t.dtype in complex_dtypes:
        raise TypeError("this operation is not defined on complex inputs")
    return (t,)


def upgrade_to_float(*types: ScalarType) -> tuple[ScalarType]:
    """The float dtype ``np.exp`` would give: ints become the smallest float holding them."""
    return (get_scalar_type(upcast(*_dtypes(types), "float16")),)


def upgrade_to_float_no_complex(*types: ScalarType) -> tuple[ScalarType]:
    """As :func:`upgrade_to_float`; a complex input is a TypeError."""
    if any(t.dtype in complex_dtypes for t in types):
        raise TypeError("this operation is not defined on complex inputs")
    return upgrade_to_float(*types)


def upgrade_to_float64(*types: ScalarType) -> tuple[ScalarType]:
    """At least float64 (as ``true_divide`` does for integers)."""
    return (get_scalar_type(upcast(*_dtypes(types), "float64")),)


def float_out(*types: ScalarType) -> tuple[ScalarType]:
    """Always floatX."""
    return (get_scalar_type(_floatx()),)


def int_out(*types: ScalarType) -> tuple[ScalarType]:
    """Always int64."""
    return (get_scalar_type("int64"),)


def bool_out(*types: ScalarType) -> tuple[ScalarType]:
    """Always bool (comparisons, ``isnan``)."""
    return (get_scalar_type("bool"),)


@attrs.frozen
class specific_out:
    """Fixed output dtypes, whatever the inputs."""

    dtypes: tuple[str, ...]

    def __call__(self, *types: ScalarType) -> tuple[ScalarType, ...]:
        return tuple(get_scalar_type(d) for d in self.dtypes)

    @property
    def spec(self) -> tuple[ScalarType, ...]:
        """The output types (PyTensor's ``specific_out(...).spec``)."""
        return tuple(get_scalar_type(d) for d in self.dtypes)


@attrs.frozen
class transfer_type:
    """Output ``j`` has the type of input ``indices[j]`` (None: upcast of all inputs)."""

    indices: tuple[int | None, ...]

    def __call__(self, *types: ScalarType) -> tuple[ScalarType, ...]:
        return tuple(upcast_out(*types)[0] if i is None else types[i] for i in self.indices)


@functools.cache
def _resolve(ufunc_name: str, dtypes: tuple[str, ...]) -> tuple[str, ...]:
    uf = getattr(np, ufunc_name)
    if uf.nin == 2 and len(dtypes) == 1:  # add(x) of one input: x's own type, as PyTensor
        return _resolve(ufunc_name, (dtypes[0], dtypes[0]))
    if uf.nin == 2 and len(dtypes) > 2:  # variadic add/mul: fold left, as impl does
        acc = dtypes[0]
        for d in dtypes[1:]:
            acc = _resolve(ufunc_name, (acc, d))[0]
        return (acc,)
    sig = tuple(np.dtype(d) for d in dtypes) + (None,) * uf.nout
    try:
        resolved = uf.resolve_dtypes(sig)
    except TypeError as err:
        raise TypeError(
            f"NumPy's {ufunc_name} has no implementation for input dtypes "
            f"({', '.join(dtypes)}): {err}"
        ) from None
    return tuple(d.name for d in resolved[uf.nin :])


@attrs.frozen
class UfuncOut:
    """Output dtypes exactly as NumPy resolves them for the ufunc ``np.<name>``."""

    name: str

    def __call__(self, *types: ScalarType) -> tuple[ScalarType, ...]:
        return tuple(get_scalar_type(d) for d in _resolve(self.name, tuple(_dtypes(types))))


# --------------------------------------------------------------------------- ops


def _fold(ufunc: np.ufunc) -> Callable[..., Any]:
    def folded(*xs: Any) -> Any:
        acc = xs[0]
        if len(xs) == 1:  # add(x): a new array equal to x (an output never aliases an input)
            return np.array(acc, copy=True)
        for x in xs[1:]:
            acc = ufunc(acc, x)
        return acc

    folded.__name__ = f"folded_{ufunc.__name__}"
    folded.binary_ufunc = ufunc  # type: ignore[attr-defined]  # lets thunks skip the loop
    return folded


class ScalarOp(Op):
    """Base of scalar ops; instances compare by class, parameters and output rule.

    Subclasses set ``nin`` (-1: any number), ``nout``, ``nfunc_spec`` =
    (NumPy function name, nin, nout) when NumPy has the function, or implement
    ``numpy_fn`` (a vectorised NumPy expression, used for scalars and arrays).
    ``pullback`` receives and returns scalar Variables.
    """

    nin: int = -1
    nout: int = 1
    #: f(a, b) == f(b, a)
    commutative: bool = False
    #: f(f(a, b), c) == f(a, f(b, c)) (lets rewrites flatten nested applications)
    associative: bool = False
    #: neutral element for reductions (0 for add, 1 for mul...), None when there is none
    identity: Any = None
    nfunc_spec: tuple[str, int, int] | None = None
    #: parameters besides the output rule (PyTensor's __props__)
    __props__: tuple[str, ...] = ()
    #: symbol used by pprint (e.g. "+"); None prints as a function call
    symbol: str | None = None
    #: rule used when none is given to the constructor
    default_output_types_preference: TypeRule | None = None

    def __init__(self, output_types_preference: TypeRule | None = None, name: str | None = None):
        if output_types_preference is None:
            output_types_preference = self._default_rule()
            if output_types_preference is None and self.nfunc_spec is not None:
                raise TypeError(f"{type(self).__name__}: give an output_types_preference")
        if output_types_preference is not None and not callable(output_types_preference):
            raise TypeError(
                f"{type(self).__name__}: output_types_preference must be callable, "
                f"got {output_types_preference!r}"
            )
        self.output_types_preference = output_types_preference
        self.name = name or type(self).__name__.lower()

    @classmethod
    def _default_rule(cls) -> TypeRule | None:
        """The class's output-type rule: its default, else its NumPy ufunc's resolution."""
        rule = cls.default_output_types_preference
        spec = cls.nfunc_spec
        if rule is None and spec is not None and isinstance(getattr(np, spec[0], None), np.ufunc):
            rule = UfuncOut(spec[0])
        return rule

    def _rule(self) -> TypeRule | None:
        """The output-type rule, the class default when the attribute is absent
        (an Op unpickled from an older version), so equality and hash agree."""
        if "output_types_preference" in self.__dict__:
            return self.__dict__["output_types_preference"]
        return self._default_rule()

    # -- identity ----------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(self) is not type(other):
            return False
        return self._rule() == other._rule() and all(  # type: ignore[attr-defined]
            getattr(self, p) == getattr(other, p) for p in self.__props__
        )

    def __hash__(self) -> int:
        props = tuple(getattr(self, p) for p in self.__props__)
        return hash((type(self), self._rule(), props))

    def __str__(self) -> str:
        # A subclass whose __init__ skips ours (PyTensor users' ScalarOps do) has no name.
        return getattr(self, "name", None) or type(self).__name__.lower()

    def __getstate__(self) -> dict:
        return dict(self.__dict__)

    # -- building -------------------------------------------------------------------
    def output_types(self, types: Sequence[ScalarType]) -> list[ScalarType]:
        """Output types for inputs of these types (TypeError when unsupported)."""
        rule = self._rule()
        if rule is None:
            raise NotImplementedError(f"{self} has no output_types_preference")
        try:
            outs = list(rule(*types))
        except TypeError as err:
            given = ", ".join(str(t) for t in types)
            error = ComplexError if any(t.dtype in complex_dtypes for t in types) else TypeError
            raise error(
                f"{self}: inputs of dtypes ({given}) are not supported: {err}"
            ) from None
        if len(outs) != self.nout:
            raise TypeError(f"{self}: type rule gave {len(outs)} outputs, expected {self.nout}")
        return outs

    def make_node(self, *inputs: Any) -> Apply:
        if self.nin >= 0 and len(inputs) != self.nin:
            raise TypeError(f"{self} takes {self.nin} inputs, got {len(inputs)}")
        if self.nin < 0 and not inputs:
            raise TypeError(f"{self} needs at least one input")
        ins = []
        for i, x in enumerate(inputs):
            try:
                ins.append(as_scalar(x))
            except TypeError as err:
                raise TypeError(f"{self}: input {i}: {err}") from None
        outs = [t() for t in self.output_types([x.type for x in ins])]
        return Apply(self, ins, outs)

    # -- computing ------------------------------------------------------------------
    @property
    def ufunc(self) -> Callable[..., Any]:
        """A NumPy callable taking exactly this op's inputs as arrays (or scalars).

        Its results have the dtypes ``output_types`` declares for those dtypes.
        """
        spec = self.nfunc_spec
        cls = type(self)
        if cls.numpy_fn is ScalarOp.numpy_fn and cls.impl is not ScalarOp.impl and (
            spec is None or not hasattr(np, spec[0])
        ):
            return self._vectorized_impl  # an op written PyTensor's way: only impl()
        if (cls.numpy_fn is ScalarOp.numpy_fn and cls.impl is ScalarOp.impl
                and cls.perform is not ScalarOp.perform and spec is None):
            return self._vectorized_perform  # only perform(), e.g. a multi-output op
        if spec is None or cls.numpy_fn is not ScalarOp.numpy_fn:
            return self.numpy_fn
        uf = getattr(np, spec[0])
        if self.nin < 0 and isinstance(uf, np.ufunc):
            return _fold(uf)
        return uf

    def _vectorized_impl(self, *arrays: Any) -> Any:
        """``impl`` applied element by element (slow; for ops that define only impl)."""
        arrays = [np.asarray(a) for a in arrays]
        types = [get_scalar_type(a.dtype) for a in arrays]
        out_types = self.output_types(types)
        nin = len(arrays)
        vec = np.frompyfunc(lambda *xs: self.impl(*xs), nin, self.nout)
        scalars = [np.broadcast_to(a, np.broadcast_shapes(*(b.shape for b in arrays)))
                   for a in arrays]
        res = vec(*[a.astype(object) if a.ndim else a[()] for a in scalars])
        if self.nout == 1:
            return np.asarray(res).astype(out_types[0].dtype)
        return tuple(np.asarray(r).astype(t.dtype) for r, t in zip(res, out_types))

    def _vectorized_perform(self, *arrays: Any) -> Any:
        """The op's own ``perform`` applied element by element (slow; for ops that
        define only ``perform``)."""
        arrays = [np.asarray(a) for a in arrays]
        node = self.make_node(*[get_scalar_type(a.dtype)() for a in arrays])
        nout = len(node.outputs)

        def one(*xs: Any) -> Any:
            cells: list[list[Any]] = [[None] for _ in range(nout)]
            self.perform(node, [np.asarray(x, dtype=a.dtype)[()] for x, a in zip(xs, arrays)],
                         cells)
            return cells[0][0] if nout == 1 else tuple(c[0] for c in cells)

        res = np.frompyfunc(one, len(arrays), nout)(*arrays)
        dtypes = [o.type.dtype for o in node.outputs]
        if nout == 1:
            return np.asarray(res).astype(dtypes[0])
        return tuple(np.asarray(r).astype(d) for r, d in zip(res, dtypes))

    def numpy_fn(self, *inputs: Any) -> Any:
        """Vectorised computation; ops without ``nfunc_spec`` implement it."""
        raise NotImplementedError(f"{type(self).__name__} defines neither nfunc_spec nor numpy_fn")

    def impl(self, *inputs: Any) -> Any:
        """Compute on NumPy scalars: one value, or a tuple when ``nout > 1``."""
        result = self.ufunc(*[np.asarray(x) for x in inputs])
        if not isinstance(result, tuple):
            return result[()] if isinstance(result, np.ndarray) else result
        return tuple(r[()] if isinstance(r, np.ndarray) else r for r in result)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        results = self.impl(*inputs)
        if self.nout == 1:
            results = (results,)
        for cell, value, var in zip(output_storage, results, node.outputs):
            dtype = var.type.dtype
            if not (isinstance(value, np.generic) and value.dtype == dtype):
                value = np.asarray(value).astype(dtype)[()]
            cell[0] = value

    # -- differentiation ----------------------------------------------------------------
    def pushforward(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable],
        tangents: Sequence[Variable],
    ) -> list[Variable]:
        """Forward mode from the pullback: sum_i d out / d x_i * t_i (one output only)."""
        return pushforward_from_pullback(self, inputs, outputs, tangents)

    def c_code_cache_version(self) -> tuple:
        return (1,)


class UnaryScalarOp(ScalarOp):
    nin = 1


class BinaryScalarOp(ScalarOp):
    nin = 2


def is_discrete(var: Variable) -> bool:
    return var.type.dtype in discrete_dtypes


def is_continuous(var: Variable) -> bool:
    return var.type.dtype in continuous_dtypes


def __getattr__(name: str) -> Any:
    """PyTensor's ``scalar.basic`` holds every scalar op; ours are split by topic.

    The other scalar modules import this one, so it cannot import them: a
    name not defined here is looked up in the (by then loaded) package.
    """
    package = sys.modules.get("opgraph.scalar")
    if package is not None and not name.startswith("__") and name in vars(package):
        return vars(package)[name]
    raise AttributeError(f"module 'opgraph.scalar.basic' has no attribute {name!r}")
