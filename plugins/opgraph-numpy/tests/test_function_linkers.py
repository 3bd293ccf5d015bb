"""function() end to end on the "py" and "vm" linkers, with toy Ops (no tensor library)."""

from __future__ import annotations

import io
import tracemalloc

import numpy as np
import pytest
from toyops import (
    CALLS,
    AddInplace,
    Fail,
    LazyChoose,
    ReuseOutput,
    Reverse,
    Unary,
    add,
    mul,
    sub,
    vec,
    vshared,
)

from opgraph.compile.function import function
from opgraph.compile.io import In, Out
from opgraph.compile.mode import Mode
from opgraph.compile.prepare import UnusedInputError
from opgraph.compile.sharedvalue import shared
from opgraph.graph.utils import MissingInputError

LINKERS = ["py", "vm"]


@pytest.fixture(params=LINKERS)
def mode(request: pytest.FixtureRequest) -> Mode:
    return Mode(linker=request.param, optimizer=None)


@pytest.fixture(autouse=True)
def _reset_counts() -> None:
    CALLS.clear()


def test_positional_keyword_and_single_output(mode: Mode) -> None:
    x, y = vec("x"), vec("y")
    f = function([x, y], add(x, y), mode=mode)
    out = f([1.0, 2.0], [3.0, 4.0])
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, [4.0, 6.0])
    np.testing.assert_array_equal(f(y=[1.0], x=[2.0]), [3.0])
    np.testing.assert_array_equal(f([2.0], y=[5.0]), [7.0])
    g = function([x, y], [add(x, y), mul(x, y)], mode=mode)
    a, b = g(np.array([2.0]), np.array([3.0]))
    assert a.tolist() == [5.0] and b.tolist() == [6.0]
    h = function([x, y], {"s": add(x, y), "p": mul(x, y)}, mode=mode)
    assert {k: v.tolist() for k, v in h([2.0], [3.0]).items()} == {"s": [5.0], "p": [6.0]}
    assert function([], [], mode=mode)() == []


def test_in_defaults_names_and_update(mode: Mode) -> None:
    x, y, acc = vec("x"), vec("y"), vec("acc")
    f = function([x, In(y, value=np.array([10.0]), name="yy")], sub(x, y), mode=mode)
    assert f([1.0]).tolist() == [-9.0]
    assert f([1.0], [1.0]).tolist() == [0.0]
    assert f(x=[1.0], yy=[2.0]).tolist() == [-1.0]
    assert f["yy"].tolist() == [10.0]
    f["yy"] = [3.0]
    assert f([1.0]).tolist() == [-2.0]
    # an In with an update keeps state between calls
    g = function([x, In(acc, value=np.array([0.0]), update=add(acc, x))], acc, mode=mode)
    assert g([1.0]).tolist() == [0.0]
    assert g([2.0]).tolist() == [1.0]
    assert g([0.0]).tolist() == [3.0]


def test_shared_updates_are_applied_all_at_once(mode: Mode) -> None:
    a = shared(np.array([1.0]), "a")
    b = shared(np.array([2.0]), "b")
    swap = function([], [add(a, b)], updates={a: b, b: a}, mode=mode)
    assert swap()[0].tolist() == [3.0]
    assert a.get_value().tolist() == [2.0] and b.get_value().tolist() == [1.0]
    x = vec("x")
    inc = function([x], a, updates=[(a, add(a, x))], mode=mode)
    assert inc([5.0]).tolist() == [2.0]  # the value before the update
    assert a.get_value().tolist() == [7.0]
    a.set_value(np.array([0.0]))
    assert inc([1.0]).tolist() == [0.0]


def test_shared_get_set_value_borrow() -> None:
    value = np.arange(3.0)
    s = shared(value, "s")
    value[0] = 100.0
    assert s.get_value()[0] == 0.0  # copied at construction
    got = s.get_value()
    got[1] = 50.0
    assert s.get_value()[1] == 1.0  # get_value copies
    inner = s.get_value(borrow=True)
    inner[1] = 7.0
    assert s.get_value()[1] == 7.0  # borrow hands over the internal array
    mine = np.zeros(3)
    s.set_value(mine, borrow=True)
    mine[0] = 9.0
    assert s.get_value()[0] == 9.0
    s.set_value(mine)
    mine[0] = 1.0
    assert s.get_value()[0] == 9.0


def test_default_updates(mode: Mode) -> None:
    x = vec("x")
    c = shared(np.array([0.0]), "c")
    c.default_update = add(c, c)  # c <- 2c
    c.set_value(np.array([1.0]))
    f = function([x], add(x, c), mode=mode)
    f([0.0])
    assert c.get_value().tolist() == [2.0]
    g = function([x], add(x, c), mode=mode, no_default_updates=True)
    g([0.0])
    assert c.get_value().tolist() == [2.0]


def test_givens(mode: Mode) -> None:
    x, y, z = vec("x"), vec("y"), vec("z")
    s = vshared([4.0], "s")
    f = function([z], add(x, y), givens={x: mul(z, z), y: s}, mode=mode)
    assert f([3.0]).tolist() == [13.0]


def test_outputs_never_alias_inputs_unless_borrowed(mode: Mode) -> None:
    x = vec("x")
    value = np.array([1.0, 2.0])
    f = function([x], x, mode=mode)
    out = f(value)
    assert out is not value and out.tolist() == [1.0, 2.0]
    view = function([x], Reverse()(x), mode=mode)
    assert not np.shares_memory(view(value), value)
    borrowed = function([In(x, borrow=True)], Out(Reverse()(x), borrow=True), mode=mode)
    assert np.shares_memory(borrowed(value), value)
    s = shared(np.array([1.0]), "s")
    got = function([], s, mode=mode)()
    got[0] = 5.0
    assert s.get_value()[0] == 1.0
    two = function([x], [add(x, x), add(x, x)], mode=mode)
    p, q = two(value)
    assert p is not q


def test_no_recycling_keeps_first_result(mode: Mode) -> None:
    x = vec("x")
    f = function([x], ReuseOutput()(x), mode=mode)
    first = f(np.array([1.0, 2.0]))
    second = f(np.array([10.0, 20.0]))
    assert first.tolist() == [2.0, 3.0]
    assert second.tolist() == [11.0, 21.0]


def test_memory_chain_frees_intermediates() -> None:
    x = vec("x")
    out = x
    for i in range(50):
        out = Unary("double", tag=str(i))(out)
    f = function([x], out, mode=Mode(linker="vm", optimizer=None))
    value = np.ones(1_000_000)  # 8 MB per array
    f(value)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = f(value)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result[0] == 2.0**50
    assert peak < 4 * value.nbytes, f"peak {peak / 1e6:.1f} MB: intermediates not freed"


def test_lazy_evaluation_runs_one_branch() -> None:
    cond, x = vec("cond"), vec("x")
    then = Unary("exp", tag="then")(x)
    other = Unary("neg", tag="else")(x)
    f = function([cond, x], LazyChoose()(cond, then, other),
                 mode=Mode(linker="vm", optimizer=None))
    assert f([1.0], [0.0]).tolist() == [1.0]
    assert CALLS == {"expthen": 1, "choose": 1}
    CALLS.clear()
    assert f([-1.0], [2.0]).tolist() == [-2.0]
    assert CALLS == {"negelse": 1, "choose": 1}
    # the reference linker computes everything but gives the same answer
    g = function([cond, x], LazyChoose()(cond, then, other), mode=Mode("py", None))
    assert g([-1.0], [2.0]).tolist() == [-2.0]


def test_lazy_branch_shared_with_other_output() -> None:
    cond, x = vec("cond"), vec("x")
    then = Unary("exp", tag="t")(x)
    other = Unary("neg", tag="e")(x)
    f = function([cond, x], [LazyChoose()(cond, then, other), add(other, x)],
                 mode=Mode(linker="vm", optimizer=None))
    a, b = f([1.0], [1.0])
    assert a.tolist() == [np.e] and b.tolist() == [0.0]
    assert CALLS["nege"] == 1


def test_trust_input(mode: Mode) -> None:
    x = vec("x")
    f = function([x], add(x, x), mode=mode, trust_input=True)
    assert f.trust_input
    assert f(np.array([1.0])).tolist() == [2.0]
    f.trust_input = False
    with pytest.raises(TypeError, match=r"input 0 \('x'\)"):
        f([[1.0]])


def test_bad_inputs_name_the_input_and_leave_state(mode: Mode) -> None:
    x, y = vec("x"), vec("y")
    s = shared(np.array([1.0]), "s")
    f = function([x, y], add(x, y), updates={s: add(s, x)}, mode=mode, name="f")
    with pytest.raises(TypeError, match=r"takes 2 argument"):
        f([1.0], [1.0], [1.0])
    with pytest.raises(TypeError, match=r"missing required input 1 \('y'\)"):
        f([1.0])
    with pytest.raises(TypeError, match=r"unknown keyword argument 'z'.*'x', 'y'"):
        f([1.0], z=[1.0])
    with pytest.raises(TypeError, match=r"multiple values for input 0"):
        f([1.0], [1.0], x=[1.0])
    with pytest.raises(TypeError, match=r"input 1 \('y'\).*rank"):
        f([1.0], [[1.0]])
    with pytest.raises(TypeError, match=r"input 0 \('x'\)"):
        f(["a", object()], [1.0])
    assert s.get_value().tolist() == [1.0]
    assert f([1.0], [2.0]).tolist() == [3.0]
    assert s.get_value().tolist() == [2.0]


def test_runtime_error_names_node_and_skips_updates(mode: Mode) -> None:
    x = vec("x")
    s = shared(np.array([1.0]), "s")
    f = function([x], Fail()(x), updates={s: add(s, x)}, mode=mode)
    with pytest.raises(ValueError, match="Fail op ran") as info:
        f([1.0])
    assert any("Apply node that caused the error" in n for n in info.value.__notes__)
    assert s.get_value().tolist() == [1.0]


def test_compile_time_errors() -> None:
    x, y = vec("x"), vec("y")
    s = shared(np.array([1.0]), "s")
    with pytest.raises(UnusedInputError, match="input 1"):
        function([x, y], x, mode=Mode("vm", None))
    with pytest.warns(UserWarning, match="no output depends"):
        function([x, y], x, mode=Mode("vm", None), on_unused_input="warn")
    function([x, y], x, mode=Mode("vm", None), on_unused_input="ignore")
    with pytest.raises(MissingInputError, match="y"):
        function([x], add(x, y), mode=Mode("vm", None))
    with pytest.raises(TypeError, match="update of shared variable s"):
        function([x], x, updates={s: Unary("neg")(vec.clone(ndim=2)())}, mode=Mode("vm", None))
    with pytest.raises(TypeError, match="keys must be shared"):
        function([x], x, updates={y: x}, mode=Mode("vm", None))
    with pytest.raises(TypeError, match="in-place operation"):
        function([x, y], AddInplace()(x, y), mode=Mode("vm", None))
    with pytest.raises(UnusedInputError, match=r"is used twice in inputs \(positions 0 and 1\)"):
        function([x, x], x, mode=Mode("vm", None))
    with pytest.raises(TypeError, match="list of Variables"):
        function(x, x)


def test_destroy_map_needs_mutable_input(mode: Mode) -> None:
    x, y = vec("x"), vec("y")
    with pytest.raises(TypeError, match="accept_inplace"):
        function([x, y], AddInplace()(x, y), mode=mode)
    # accept_inplace: the caller's own in-place Op may overwrite its input (as PyTensor)
    e = function([x, y], AddInplace()(x, y), mode=mode, accept_inplace=True)
    value = np.array([1.0, 2.0])
    e(value, [1.0, 1.0])
    assert value.tolist() == [2.0, 3.0]
    f = function([In(x, mutable=True), y], AddInplace()(x, y), mode=mode,
                 accept_inplace=True)
    value = np.array([1.0, 2.0])
    out = f(value, [1.0, 1.0])
    assert out.tolist() == [2.0, 3.0]
    assert value.tolist() == [2.0, 3.0]  # overwritten, as declared
    # an intermediate destroyed after its other reader ran
    t = mul(x, y)
    g = function([x, y], [add(t, y), AddInplace()(t, y)], mode=mode, accept_inplace=True)
    p, q = g([2.0], [3.0])
    assert p.tolist() == [9.0] and q.tolist() == [9.0]


def test_profile_summary(mode: Mode) -> None:
    x = vec("x")
    f = function([x], mul(add(x, x), x), mode=mode, profile=True, name="prof")
    for _ in range(3):
        f([1.0, 2.0])
    prof = f.profile
    assert prof.fct_callcount == 3
    assert sum(prof.apply_callcount.values()) == 6
    buf = io.StringIO()
    text = prof.summary(file=buf)
    assert "Binary" in text and "Apply" in text and buf.getvalue() == text


def test_copy_and_free(mode: Mode) -> None:
    x = vec("x")
    s = shared(np.array([0.0]), "s")
    f = function([x], s, updates={s: add(s, x)}, mode=mode)
    g = f.copy()  # a shared variable is global state: the copy updates it too (PyTensor)
    g([5.0])
    assert s.get_value().tolist() == [5.0]
    h = f.copy(share_memory=True)
    h([2.0])
    assert s.get_value().tolist() == [7.0]
    t = shared(np.array([100.0]), "t")
    k = f.copy(swap={s: t})
    k([1.0])
    assert t.get_value().tolist() == [101.0] and s.get_value().tolist() == [7.0]
    plain = f.copy(delete_updates=True)
    plain([1.0])
    assert s.get_value().tolist() == [7.0]
    f.free()
    assert f([1.0]).tolist() == [7.0]


def test_variable_eval_is_cached() -> None:
    x, y = vec("x"), vec("y")
    z = add(x, y)
    assert z.eval({x: [1.0], y: [2.0]}).tolist() == [3.0]
    assert z.eval({x: [2.0], y: [2.0]}).tolist() == [4.0]
    assert len(z._fn_cache) == 1
    s = shared(np.array([3.0]), "s")
    assert add(s, s).eval().tolist() == [6.0]
