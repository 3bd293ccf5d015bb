"""``ScalarLoop``: a scalar recurrence run ``n_steps`` times (or until a condition holds).

PyTensor uses it for special functions computed by series (and their
gradients); inside an Elemwise it runs independently for every element.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opgraph.graph.basic import Apply, Variable
from opgraph.scalar.basic import ScalarOp
from opgraph.scalar.composite import Composite
from opgraph.scalar.structural import convert_to
from opgraph.scalar.type import as_scalar, get_scalar_type

__all__ = ["ScalarLoop"]


class ScalarLoop(ScalarOp):
    """``state = update(state, constant)`` repeated ``n_steps`` times.

    ``init`` are scalar variables standing for the state, ``update`` the new
    state (same types, same order), ``constant`` read-only inputs, ``until``
    an optional boolean of the updated state that stops the loop early. The
    node takes ``(n_steps, *init_values, *constant_values)`` and returns the
    final state, plus a ``done`` flag when ``until`` is given.
    """

    def __init__(self, init: Sequence[Variable], update: Sequence[Variable],
                 constant: Sequence[Variable] | None = None, until: Variable | None = None,
                 name: str | None = None) -> None:
        init, update, constant = list(init), list(update), list(constant or ())
        if len(init) != len(update):
            raise ValueError(
                f"ScalarLoop: {len(init)} init variable(s) but {len(update)} update(s)"
            )
        for i, (a, b) in enumerate(zip(init, update, strict=True)):
            if a.type != b.type:
                raise TypeError(
                    f"ScalarLoop: update {i} has type {b.type}, its init variable {a.type}"
                )
        if until is not None and until.type.dtype != "bool":
            raise TypeError(f"ScalarLoop: until must be a bool scalar, got {until.type}")
        outs = [*update, *([until] if until is not None else [])]
        self.inner = Composite([*init, *constant], outs)
        self.n_init = len(init)
        self.n_constant = len(constant)
        self.has_until = until is not None
        self.nin = 1 + self.n_init + self.n_constant
        self.nout = self.n_init + int(self.has_until)
        self.state_types = tuple(v.type for v in init)
        self.output_types_preference = None
        self.name = name or "ScalarLoop"

    __props__ = ("inner", "n_init", "n_constant", "has_until")

    def output_types(self, types: Sequence[Any]) -> list[Any]:
        return [*self.state_types, *([get_scalar_type("bool")] if self.has_until else [])]

    def make_node(self, n_steps: Any, *inputs: Any) -> Apply:
        if len(inputs) != self.nin - 1:
            raise TypeError(f"{self} takes n_steps and {self.nin - 1} inputs, got {len(inputs)}")
        n_steps = as_scalar(n_steps)
        if not n_steps.type.dtype.startswith(("int", "uint")):
            raise TypeError(f"{self}: n_steps must be an integer, got {n_steps.type}")
        ins = [as_scalar(x) for x in inputs]
        for i, (x, t) in enumerate(zip(ins, self.state_types)):
            if x.type != t:
                ins[i] = convert_to[t.dtype](x)
        return Apply(self, [n_steps, *ins], [t() for t in self.output_types([])])

    def impl(self, n_steps: Any, *values: Any) -> Any:
        state = list(values[: self.n_init])
        constants = list(values[self.n_init:])
        done = False
        for _ in range(int(n_steps)):
            res = self.inner.impl(*state, *constants)
            res = list(res) if isinstance(res, tuple) else [res]
            state = res[: self.n_init]
            if self.has_until:
                done = bool(res[-1])
                if done:
                    break
        out = [*state, *([done] if self.has_until else [])]
        return out[0] if self.nout == 1 else tuple(out)

    def __str__(self) -> str:
        return self.name

