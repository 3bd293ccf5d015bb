"""Random variables with named dims: every distribution of ``opgraph.tensor.random``
(PyTensor's ``xtensor.random.basic``).

``normal(mu, sigma, extra_dims={"draw": 10}, rng=rng)`` draws with the
parameters' dims broadcast by name and the ``extra_dims`` in front;
multivariate distributions name their core dims with ``core_dims=``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping, Sequence
from typing import Any

import opgraph.tensor.random.basic as ptrb
from opgraph.tensor.random.op import RandomVariable
from opgraph_xtensor.xtensor.basic import as_xtensor
from opgraph_xtensor.xtensor.random.type import rng_to_xrng, xrng_to_rng
from opgraph_xtensor.xtensor.random.variable import XRNG_METHODS
from opgraph_xtensor.xtensor.type import XTensorVariable
from opgraph_xtensor.xtensor.vectorization import XRV

__all__ = ["as_xrv"]

def _letters(sig: str) -> tuple[list[list[str]], list[str]]:
    left, right = sig.split("->")
    ins = [[c.strip() for c in g.split(",") if c.strip()] for g in re.findall(r"\(([^)]*)\)",
                                                                          left)]
    out = [c.strip() for c in right.strip()[1:-1].split(",") if c.strip()]
    return ins, out


def _core_dims(name: str, op: RandomVariable, params: Sequence[XTensorVariable],
               core_dims: Any) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    ins, out = _letters(op.signature)
    letters = list(dict.fromkeys(c for g in ins for c in g))
    given = () if core_dims is None else ((core_dims,) if isinstance(core_dims, str)
                                          else tuple(core_dims))
    if letters and core_dims is None:
        raise ValueError(f"{name} needs {len(letters)} core_dims to be specified")
    if len(given) != len(letters):
        raise ValueError(f"{name} needs {len(letters)} core_dims, but got {len(given)}")
    names = dict(zip(letters, given))
    pcore = tuple(tuple(names[c] for c in g) for g in ins)
    _check_params(params, pcore, given)
    return pcore, tuple(names[c] for c in out)


def _check_params(params: Sequence[XTensorVariable], pcore: Sequence[Sequence[str]],
                  given: Sequence[str]) -> None:
    for p, core in zip(params, pcore):
        bad = [d for d in p.type.dims if d in given and d not in core]
        if bad:
            raise ValueError(f"Parameter {p.name or p} has invalid core dimensions {bad}")
        if any(d not in p.type.dims for d in core):
            raise ValueError(f"At least one core dim={tuple(given)} missing from input "
                             f"{p.name or p} with dims={p.type.dims}")


def _draw(name: str, op: RandomVariable, params: Sequence[Any], core: Any,
          extra_dims: Mapping[str, Any] | None, rng: Any) -> XTensorVariable:
    params = [as_xtensor(p) for p in params]
    pcore, ocore = core(params) if callable(core) else _core_dims(name, op, params, core)
    extra = dict(extra_dims or {})
    pdims = {d for p in params for d in p.type.dims}
    clash = [d for d in extra if d in pdims]
    if clash:
        raise ValueError(f"Size dimensions {clash} conflict with parameter dimensions. They "
                         "should be unique.")
    xrv = XRV(op, (pcore, ocore), tuple(extra), name=name)
    return xrv(rng, *extra.values(), *params)


def _mvn_core(core_dims: Any) -> Any:
    def core(params: Sequence[XTensorVariable]) -> Any:
        given = tuple(core_dims)
        if len(given) != 2:
            raise ValueError(f"multivariate_normal requires 2 core_dims, got {len(given)}")
        if given[0] == given[1]:
            raise ValueError(f"Operand has repeated dims {given}")
        mu = params[0]
        rows = next((d for d in given if d in mu.type.dims), given[0])
        cols = given[1] if rows == given[0] else given[0]
        pcore = ((rows,), (rows, cols))
        _check_params(params, pcore, given)
        return pcore, (rows,)
    return core


def as_xrv(core_op: RandomVariable, core_inps_dims_map: Sequence[Sequence[int]] | None = None,
           core_out_dims_map: Sequence[int] | None = None, name: str | None = None) -> Any:
    """A constructor ``(*params, core_dims=, extra_dims=, rng=) -> draw`` (with
    ``return_next_rng=True``: ``(next_rng, draw)``) for any
    RandomVariable; the maps say which of ``core_dims`` (by position) each parameter and the
    draw have (default: from the Op's signature, names in order of first appearance)."""
    name = name or getattr(core_op, "name", None) or core_op.__class__.__name__

    def core(core_dims: Any) -> Any:
        if core_inps_dims_map is None and core_out_dims_map is None:
            return core_dims
        given = () if core_dims is None else ((core_dims,) if isinstance(core_dims, str)
                                              else tuple(core_dims))
        ins_map = core_inps_dims_map or ()
        out_map = core_out_dims_map or ()

        def build(params: Sequence[XTensorVariable]) -> Any:
            n = 1 + max((*(k for m in ins_map for k in m), *out_map), default=-1)
            if len(given) != n:
                raise ValueError(f"{name} needs {n} core_dims, but got {len(given)}")
            pcore = tuple(tuple(given[k] for k in m) for m in ins_map)
            pcore += ((),) * (len(params) - len(pcore))
            _check_params(params, pcore, given)
            return pcore, tuple(given[k] for k in out_map)
        return build

    def xrv_constructor(*params: Any, core_dims: Any = None,
                        extra_dims: Mapping[str, Any] | None = None, rng: Any = None,
                        return_next_rng: bool = False, **kwargs: Any) -> Any:
        op = core_op.__class__(**kwargs) if kwargs else core_op
        draw = _draw(name, op, params, core(core_dims), extra_dims, rng)
        return (draw.owner.outputs[0], draw) if return_next_rng else draw

    xrv_constructor.__name__ = xrv_constructor.__qualname__ = name
    return xrv_constructor


def _make(name: str, op: RandomVariable) -> Any:
    def dist(*params: Any, core_dims: Any = None, extra_dims: Mapping[str, Any] | None = None,
             rng: Any = None, return_next_rng: bool = False, **kwargs: Any) -> Any:
        the_op = op
        if kwargs:
            the_op = op.clone(**kwargs) if hasattr(op, "clone") else op.__class__(**kwargs)
        draw = _draw(name, the_op, params, core_dims, extra_dims, rng)
        return (draw.owner.outputs[0], draw) if return_next_rng else draw

    dist.__name__ = dist.__qualname__ = name
    dist.__doc__ = f"``{name}`` draws over named dims (parameters broadcast by name)."
    return dist


def multivariate_normal(mean: Any, cov: Any, *, core_dims: Sequence[str],
                        extra_dims: Mapping[str, Any] | None = None, rng: Any = None,
                        method: str | None = None, return_next_rng: bool = False) -> Any:
    """Multivariate normal draws; ``core_dims`` names the (rows, cols) of ``cov``."""
    op = ptrb.multivariate_normal
    if method is not None:
        op = op.__class__(method=method)
    draw = _draw("multivariate_normal", op, (mean, cov), _mvn_core(core_dims), extra_dims, rng)
    return (draw.owner.outputs[0], draw) if return_next_rng else draw


_RVS = {("gamma" if n == "_gamma" else n): o for n, o in inspect.getmembers(ptrb)
        if isinstance(o, RandomVariable)}
for _name, _op in _RVS.items():
    if _name != "multivariate_normal":
        globals()[_name] = _make(_name, _op)
_RVS["multivariate_normal"] = ptrb.multivariate_normal


def standard_normal(extra_dims: Mapping[str, Any] | None = None, rng: Any = None,
                    return_next_rng: bool = False) -> Any:
    """Draws of N(0, 1) over ``extra_dims``."""
    normal = globals()["normal"]  # made from the tensor library's RV above
    return normal(0.0, 1.0, extra_dims=extra_dims, rng=rng, return_next_rng=return_next_rng)


def _method(name: str) -> Any:
    def method(xrng: Any, *args: Any, **kwargs: Any) -> tuple[Any, XTensorVariable]:
        draw = globals()[name](*args, rng=xrng_to_rng(xrng), **kwargs)
        return rng_to_xrng(draw.owner.outputs[0]), draw
    return method


for _name in _RVS:
    XRNG_METHODS[_name] = _method(_name)

XRNG_METHODS["standard_normal"] = _method("standard_normal")

__all__ += sorted(_RVS)
__all__ += ["standard_normal"]
