"""The per-call path of a compiled function, generated as straight-line code.

A call of a small function is dominated by Python overhead, not arithmetic,
so everything that can be decided at compile time is: which cells each
argument goes to, how it is checked (an inline exact-type test, falling back
to ``Type.filter``), which outputs must be copied to avoid aliasing, where
updates are written.  The generated body does no dict building and no loops.
"""

from __future__ import annotations

import copy
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from types import CodeType
from typing import Any

import numpy as np

from opgraph.graph.utils import type_name

__all__ = [
    "CallGate", "CallPlan", "InputSlot", "build_call", "copy_value", "make_filter",
    "native_filter",
]


def copy_value(value: Any) -> Any:
    """An independent copy of a runtime value (arrays copied, others deep-copied)."""
    if type(value) is np.ndarray:
        return value.copy()
    return copy.deepcopy(value)


def _label(position: int, name: str | None) -> str:
    return f"input {position} ({name!r})" if name else f"input {position} (unnamed)"


def make_filter(
    type_: Any, position: int, name: str | None, fname: str | None, strict: bool,
    allow_downcast: bool | None,
) -> Callable[[Any], Any]:
    """``value -> valid value``; errors keep their class and name the input."""
    filt = type_.filter
    where = f"function {fname!r}" if fname else "function"

    def filter_input(value: Any) -> Any:
        try:
            return filt(value, strict=strict, allow_downcast=allow_downcast)
        except (TypeError, ValueError) as exc:
            message = (f"{where}: bad value for {_label(position, name)}, expected {type_}: "
                       f"{exc} (got {type_name(value)})")
            try:
                error = type(exc)(message)  # e.g. an out-of-range int stays an OverflowError
            except Exception:  # an exception class that takes other arguments
                error = ValueError(message) if isinstance(exc, ValueError) else TypeError(message)
            raise error from None

    return filter_input


def native_filter(
    filt: Callable[[Any], Any], native: tuple[type, ...], type_: Any
) -> Callable[[Any], Any]:
    """``filt``, except that a value of one of the ``native`` array types whose dtype
    and ndim match ``type_`` passes unchanged (the linker computes with it as it is)."""
    dtype = getattr(type_, "dtype", None)
    ndim = getattr(type_, "ndim", None)

    def filter_native(value: Any) -> Any:
        if isinstance(value, native) and str(getattr(value, "dtype", "")) == dtype and (
            getattr(value, "ndim", None) == ndim
        ):
            return value
        return filt(value)

    return filter_native


class InputSlot:
    """One positional argument: its cell, check, and default (if any)."""

    __slots__ = ("cell", "default", "filter", "name", "position", "type")

    def __init__(self, position: int, name: str | None, type_: Any, cell: list,
                 filter_: Callable[[Any], Any], default: list | None) -> None:
        self.position = position
        self.name = name
        self.type = type_
        self.cell = cell
        self.filter = filter_
        self.default = default  # [value] cell, or None when the argument is required


class CallGate:
    """One call at a time through a function's cells, at the cost of two list operations.

    The cells, intermediate buffers and update targets of a function are its
    own, so concurrent calls must be serialised.  ``token`` is a one-element
    list: a call takes it with ``token.pop()`` and gives it back with
    ``token.append(True)``, each one atomic C-level operation (cheaper than a
    lock's ``acquire``/``release``, which parse arguments).  Only when the
    token is gone does a call take the slow path, :meth:`enter`: if this
    thread is already inside the function (a callback of one of its nodes
    calls it again), it runs without the token, as a re-entrant lock would;
    otherwise it sleeps on a condition until the token is given back.
    """

    def __init__(self) -> None:
        self.token: list[bool] = [True]
        self.waiting: list[int] = [0]  # threads sleeping in ``enter``; read by the fast path
        # the generated calls that take the token (weak: ``trust_input`` regenerates them)
        self.codes: weakref.WeakSet[CodeType] = weakref.WeakSet()
        self._cond = threading.Condition(threading.Lock())

    def enter(self) -> bool:
        """Slow path of a call that found no token: True when the call is re-entrant
        (run it without the token), False once the token is taken."""
        frame = sys._getframe(2)  # skip this method and the generated call itself
        while frame is not None:
            # a frame of a generated call holding the token (its local ``held``) means
            # this thread already owns the function's cells
            if frame.f_code in self.codes and frame.f_locals.get("held") is True:
                return True
            frame = frame.f_back
        token, cond = self.token, self._cond
        with cond:
            self.waiting[0] += 1
            try:
                while True:
                    try:
                        token.pop()
                        return False
                    except IndexError:
                        cond.wait(0.1)  # woken by ``wake``; the timeout is only a safety net
            finally:
                self.waiting[0] -= 1

    def wake(self) -> None:
        """Wake one sleeping caller (the token was just given back)."""
        with self._cond:
            self._cond.notify()


class CallPlan:
    """Everything the generated call needs, decided at compile time."""

    def __init__(
        self,
        fname: str | None,
        slots: list[InputSlot],
        vm: Callable[[], Any],
        output_cells: list[list],
        copy_outputs: list[bool],
        updates: list[tuple[list, list]],
        output_keys: list[Any] | None,
        single: bool,
        profile: Any = None,
        copy_updates: list[bool] | None = None,
        unalias: Callable[[tuple], tuple] | None = None,
        linker_checks_alignment: frozenset[int] = frozenset(),
    ) -> None:
        self.fname = fname
        self.slots = slots
        self.vm = vm
        self.output_cells = output_cells
        self.copy_outputs = copy_outputs
        self.updates = updates  # (output cell, target state cell)
        self.output_keys = output_keys
        self.single = single
        self.profile = profile
        self.copy_updates = copy_updates  # copy an update value that aliases other state
        # copies an argument that shares memory with another it may be overwritten by
        self.unalias = unalias
        # an unaligned argument is refused for every type (TensorType.filter's rule); the
        # inline check leaves it to the linker for the input positions it refuses it itself
        self.linker_checks_alignment = linker_checks_alignment
        # one call at a time: the cells, intermediate buffers and updates are per function,
        # so concurrent calls from several threads are serialised (re-entrant: a callback
        # in the same thread that calls the function again does not deadlock)
        self.gate = CallGate()


def _fast_check(type_: Any) -> tuple[Any, int, tuple[int | None, ...]] | None:
    """(dtype, ndim, static shape) when values of ``type_`` can be accepted by an
    inline exact check (a fixed length is compared inline too: PyMC's raveled
    parameter vector has one).

    A Type whose values are not ndarrays (sparse matrices) sets
    ``ndarray_values = False``: an ndarray must go through its ``filter``.
    """
    if getattr(type_, "ndarray_values", True) is False:
        return None
    dtype = getattr(type_, "numpy_dtype", None)
    shape = getattr(type_, "shape", None)
    if dtype is None:
        dtype_name = getattr(type_, "dtype", None)
        if not isinstance(dtype_name, str):
            return None
        try:
            dtype = np.dtype(dtype_name)
        except TypeError:
            return None
    if not isinstance(shape, tuple) or not all(s is None or type(s) is int for s in shape):
        return None
    return np.dtype(dtype), len(shape), shape


def _shape_test(shape: tuple[int | None, ...]) -> str:
    """The inline test of the fixed lengths of ``shape`` on the argument ``a``."""
    if all(s is None for s in shape):
        return ""
    if all(s is not None for s in shape):
        return f" and a.shape == {tuple(shape)!r}"
    return "".join(f" and a.shape[{i}] == {s}" for i, s in enumerate(shape) if s is not None)


def _completer(plan: CallPlan) -> Callable[[tuple], tuple]:
    """Fills missing trailing arguments from defaults, or explains what is missing."""
    slots = plan.slots
    where = f"function {plan.fname!r}" if plan.fname else "function"
    names = ", ".join(_label(s.position, s.name) for s in slots) or "none"

    def complete(args: tuple) -> tuple:
        n = len(args)
        if n > len(slots):
            raise TypeError(
                f"{where} takes {len(slots)} argument(s) ({names}), got {n}"
            )
        values = list(args)
        for slot in slots[n:]:
            if slot.default is None:
                raise TypeError(
                    f"{where}: missing required {_label(slot.position, slot.name)}; "
                    f"got {n} argument(s), expects {len(slots)} ({names})"
                )
            values.append(slot.default[0])
        return tuple(values)

    return complete


def _input_lines(plan: CallPlan, trust_input: bool, env: dict[str, Any]) -> list[str]:
    """The generated lines that put each argument in its input cell (checked unless trusted)."""
    lines = []
    for k, slot in enumerate(plan.slots):
        env[f"c{k}"] = slot.cell
        env[f"f{k}"] = slot.filter
        if trust_input:
            lines.append(f"c{k}[0] = args[{k}]")
            continue
        fast = _fast_check(slot.type)
        if fast is None:
            lines.append(f"c{k}[0] = f{k}(args[{k}])")
            continue
        env[f"d{k}"] = fast[0]
        lines.append(f"a = args[{k}]")
        # a Python float for a float64 scalar: the one conversion worth inlining
        fallback = (
            f"(array(a) if type(a) is float else f{k}(a))"
            if fast[:2] == (np.dtype("float64"), 0)
            else f"f{k}(a)"
        )
        aligned = ("" if slot.position in plan.linker_checks_alignment
                   else " and a.flags.aligned")
        lines.append(
            f"c{k}[0] = a if (type(a) is ndarray and a.dtype is d{k} and "
            f"a.ndim == {fast[1]}{_shape_test(fast[2])}{aligned}) else {fallback}"
        )
    return lines


def build_call(plan: CallPlan, trust_input: bool) -> Callable[..., Any]:
    """Generate ``call(*args, **kwargs) -> outputs`` for ``plan``.

    The result is what ``Function.__call__`` returns, so a call is one Python
    frame: keyword binding, default completion and the aliasing copy are
    branches in it, and everything after the argument check runs under the
    plan's lock.
    """
    slots = plan.slots
    fname = plan.fname
    env: dict[str, Any] = {
        "vm": plan.vm,
        "complete": _completer(plan),
        "bind": lambda args, kwargs: bind_keywords(args, kwargs, slots, fname),
        "ndarray": np.ndarray,
        "array": np.array,
        "dc": copy_value,
        "take": plan.gate.token.pop,  # bound C methods: one fast call each
        "give": plan.gate.token.append,
        "waiting": plan.gate.waiting,
        "enter": plan.gate.enter,
        "wake": plan.gate.wake,
    }
    lines: list[str] = []
    if plan.profile is not None:
        env["clock"] = time.perf_counter
        env["prof"] = plan.profile
        lines.append("t_start = clock()")
    n = len(plan.slots)
    lines.append("if kwargs:")
    lines.append("    args = bind(args, kwargs)")
    lines.append(f"elif len(args) != {n}:")
    lines.append("    args = complete(args)")
    if plan.unalias is not None:
        env["unalias"] = plan.unalias
        lines.append("args = unalias(args)")
    locked_from = len(lines)
    lines += _input_lines(plan, trust_input, env)
    lines.append("vm()")
    results = []
    for j, (cell, needs_copy) in enumerate(zip(plan.output_cells, plan.copy_outputs)):
        env[f"o{j}"] = cell
        lines.append(f"r{j} = dc(o{j}[0])" if needs_copy else f"r{j} = o{j}[0]")
        results.append(f"r{j}")
    for u, (src, dst) in enumerate(plan.updates):
        env[f"us{u}"] = src
        env[f"ud{u}"] = dst
        copy_it = plan.copy_updates is not None and plan.copy_updates[u]
        lines.append(f"v{u} = dc(us{u}[0])" if copy_it else f"v{u} = us{u}[0]")
    # every update value is read before any is written: swaps work
    for u in range(len(plan.updates)):
        lines.append(f"ud{u}[0] = v{u}")
    if plan.profile is not None:
        lines.append("prof.fct_call_time += clock() - t_start")
        lines.append("prof.fct_callcount += 1")
    if plan.single:
        lines.append(f"return {results[0]}")
    elif plan.output_keys is not None:
        env["keys"] = tuple(plan.output_keys)
        lines.append(f"return dict(zip(keys, ({', '.join(results)},)))")
    else:
        lines.append(f"return [{', '.join(results)}]")
    params = ", ".join(env)
    # everything after the argument check holds the function's token (see CallGate);
    # ``run`` is the same body for a re-entrant call, which already holds it
    locked = lines[locked_from:]
    lines = [
        *lines[:locked_from],
        "try:",
        "    take()",
        "except IndexError:",
        "    if enter():",
        "        return run(args)",
        "held = True",
        "try:",
        *("    " + line for line in locked),
        "finally:",
        "    held = False",
        "    give(True)",
        "    if waiting[0]:",
        "        wake()",
    ]
    body = "\n".join("        " + line for line in lines)
    if plan.profile is not None:
        locked = ["t_start = clock()", *locked]
    run_body = "\n".join("        " + line for line in locked)
    source = (
        f"def factory({params}):\n"
        "    def run(args):\n"
        f"{run_body}\n"
        "    def call(*args, **kwargs):\n"
        f"{body}\n"
        "    return call\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<opgraph function {plan.fname or ''}>", "exec"), namespace)
    call = namespace["factory"](**env)
    plan.gate.codes.add(call.__code__)
    return call


def bind_keywords(
    args: tuple, kwargs: dict[str, Any], slots: Sequence[InputSlot], fname: str | None
) -> tuple:
    """Merge keyword arguments (input names) into the positional tuple."""
    where = f"function {fname!r}" if fname else "function"
    by_name: dict[str, int] = {}
    ambiguous: set[str] = set()
    for k, slot in enumerate(slots):
        if slot.name:
            if slot.name in by_name:
                ambiguous.add(slot.name)
            by_name[slot.name] = k
    values: list[Any] = list(args) + [_MISSING] * (len(slots) - len(args))
    if len(args) > len(slots):
        raise TypeError(f"{where} takes {len(slots)} argument(s), got {len(args)}")
    for key, value in kwargs.items():
        if key in ambiguous:
            raise TypeError(
                f"{where}: keyword {key!r} is ambiguous: several inputs have that name"
            )
        k = by_name.get(key)
        if k is None:
            valid = ", ".join(repr(n) for n in by_name) or "none (no input has a name)"
            raise TypeError(f"{where} got an unknown keyword argument {key!r}; input names: "
                            f"{valid}")
        if values[k] is not _MISSING:
            raise TypeError(f"{where} got multiple values for {_label(k, key)}")
        values[k] = value
    for k, value in enumerate(values):
        if value is _MISSING:
            slot = slots[k]
            if slot.default is None:
                raise TypeError(f"{where}: missing required {_label(k, slot.name)}")
            values[k] = slot.default[0]
    return tuple(values)


_MISSING = object()
