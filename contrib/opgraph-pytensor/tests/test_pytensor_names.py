"""The PyTensor 3 names PyMC 6 imports, reached through ``pytensor.*``, behave as PyTensor's.

Each test exercises one name the way PyMC uses it, with values checked against
NumPy/SciPy where the name computes something.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import typing
from types import GenericAlias

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.basic import _as_symbolic, as_symbolic
from pytensor.compile.builders import OpFromGraph
from pytensor.compile.mode import FAST_COMPILE, Mode, optdb
from pytensor.compile.ops import TypeCastingOp, ViewOp
from pytensor.graph import node_rewriter
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.fg import FunctionGraph, Output
from pytensor.graph.rewriting.utils import rewrite_graph
from pytensor.graph.type import HasDataType, HasShape, Type
from pytensor.graph.utils import MetaType
from pytensor.link.c.type import CType
from pytensor.scalar import Erf, Erfc, Erfcx
from pytensor.scan.rewriting import scan_eqopt1, scan_eqopt2
from pytensor.tensor import TensorLike
from pytensor.tensor.basic import _as_tensor_variable
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.math import variadic_add
from pytensor.tensor.random.op import RandomVariable, RNGConsumerOp
from pytensor.tensor.rewriting.math import local_exp_over_1_plus_exp
from pytensor.tensor.subtensor import unflatten_index_variables
from pytensor.tensor.type import TensorType
from pytensor.tensor.utils import safe_signature
from pytensor.utils import lazy_scipy_module
from scipy import special


class Celsius:
    """A user type taught to ``as_tensor_variable`` through the singledispatch table."""

    def __init__(self, value: float) -> None:
        self.value = value


@_as_tensor_variable.register(Celsius)
def _celsius(x: Celsius, name: str | None, ndim: int | None, **kwargs: object) -> Variable:
    return pt.as_tensor_variable(np.float64(x.value + 273.15), name=name, ndim=ndim)


def test_as_tensor_variable_dispatches_registered_types() -> None:
    out = pt.as_tensor_variable(Celsius(10.0))
    assert out.eval() == pytest.approx(283.15)


def test_as_symbolic_passes_variables_and_converts_the_rest() -> None:
    x = pt.vector("x")
    assert as_symbolic(x) is x
    c = as_symbolic([1.0, 2.0], name="c")
    assert c.name == "c" and c.type.ndim == 1

    class Tag(str):
        pass

    @_as_symbolic.register(Tag)
    def _tag(x: Tag, **kwargs: object) -> Variable:
        return pt.as_tensor_variable(np.int64(len(x)))

    assert as_symbolic(Tag("abcd")).eval() == 4
    assert pytensor.basic is sys.modules["opgraph.basic"]


@pytest.mark.parametrize("n", [0, 1, 3])
def test_variadic_add(n: int) -> None:
    terms = [pt.constant(np.float64(k + 1)) for k in range(n)]
    out = variadic_add(*terms)
    if n == 1:
        assert out is terms[0]
    assert float(out.eval()) == sum(range(1, n + 1))


def test_add_of_one_input_is_that_input() -> None:
    x = pt.vector("x")
    np.testing.assert_array_equal(pt.add(x).eval({x: [1.0, 2.0]}), [1.0, 2.0])


def test_rng_consumer_op_and_random_variable_update() -> None:
    assert issubclass(RandomVariable, RNGConsumerOp)
    rng = pytensor.shared(np.random.default_rng(1))
    draw = pt.random.normal(0, 1, rng=rng)
    node = draw.owner
    updates = node.op.update(node)
    assert list(updates) == [rng]
    assert updates[rng] is node.outputs[0]

    class Consumer(RNGConsumerOp):
        def perform(self, node: Apply, inputs: list, outputs: list) -> None:
            raise AssertionError("not computed here")

    with pytest.raises(NotImplementedError, match="does not define update"):
        Consumer().update(node)


def test_type_casting_op_returns_its_input() -> None:
    assert issubclass(ViewOp, TypeCastingOp)

    class Retype(TypeCastingOp):
        def make_node(self, x: Variable) -> Apply:
            return Apply(self, [x], [pt.TensorType(x.type.dtype, (3,))()])

    x = pt.vector("x")
    y = Retype()(x)
    assert y.type.shape == (3,)
    np.testing.assert_array_equal(pytensor.function([x], y)([1.0, 2.0, 3.0]), [1.0, 2.0, 3.0])
    assert str(Retype()) == "Retype"


def test_marker_classes_hold_for_the_same_types_as_pytensor() -> None:
    for t in (pt.TensorType("float64", (None,)), pytensor.scalar.float64):
        assert isinstance(t, HasShape) and isinstance(t, HasDataType) and isinstance(t, CType)
    assert not isinstance(pt.random.type.random_generator_type, HasShape)


def test_type_is_subscriptable_and_metatype_checks_props() -> None:
    assert isinstance(Type[np.ndarray], GenericAlias)

    class Good(metaclass=MetaType):
        __props__ = ("a",)

    assert isinstance(Good, MetaType)
    with pytest.raises(TypeError, match="__props__ must be a tuple"):
        MetaType("Bad", (), {"__props__": ["a"]})


def test_tensor_type_reads_bool_entries_as_broadcastable_flags() -> None:
    assert TensorType("float64", (False,)).shape == (None,)
    assert TensorType("float64", (True, None)).shape == (1, None)


def test_clip_is_an_elemwise_rewriters_track() -> None:
    assert isinstance(pt.clip, Elemwise)
    seen = []

    @node_rewriter([pt.clip])
    def spot(fgraph: object, node: Apply) -> None:
        seen.append(node)

    x = pt.vector("x")
    out = pt.clip(x, 0.0, 1.0)
    from pytensor.graph.rewriting.basic import in2out

    rewrite_graph(out, custom_rewrite=in2out(spot))
    assert seen and seen[0].op == pt.clip
    np.testing.assert_array_equal(out.eval({x: [-1.0, 0.5, 2.0]}), [0.0, 0.5, 1.0])


def test_fast_compile_is_a_mode_object() -> None:
    assert isinstance(FAST_COMPILE, Mode)
    trimmed = FAST_COMPILE.excluding("canonicalize")
    x = pt.dscalar("x")
    f = pytensor.function([x], x * 2, mode=trimmed)
    assert f(3.0) == 6.0
    assert "canonicalize" in trimmed.optimizer.exclude
    assert optdb.query("+canonicalize") is not None


def test_scalar_erf_classes_are_the_ops_of_pt_erf() -> None:
    x = pt.dvector("x")
    for fn, cls, ref in ((pt.erf, Erf, special.erf), (pt.erfc, Erfc, special.erfc),
                         (pt.erfcx, Erfcx, special.erfcx)):
        out = fn(x)
        assert isinstance(out.owner.op.scalar_op, cls)
        v = np.array([-1.5, 0.2, 2.5])
        np.testing.assert_allclose(out.eval({x: v}), ref(v), rtol=1e-12)


def test_scan_equilibrium_databases_query_like_pytensor() -> None:
    from pytensor.graph.rewriting.db import RewriteDatabaseQuery

    for db in (scan_eqopt1, scan_eqopt2):
        rewriter = db.query(RewriteDatabaseQuery(include=["fast_run"]))
        assert rewriter is not None
    assert "scan_merge" in scan_eqopt2


def test_local_exp_over_1_plus_exp_makes_sigmoids() -> None:
    from pytensor.graph.rewriting.basic import out2in

    x = pt.dvector("x")
    for expr, ref in ((pt.exp(x) / (1 + pt.exp(x)), special.expit),
                      (3.0 / (1 + pt.exp(x)), lambda v: 3 * special.expit(-v))):
        out = rewrite_graph(expr, custom_rewrite=out2in(local_exp_over_1_plus_exp))
        ops = {type(getattr(n.op, "scalar_op", n.op)).__name__
               for n in pytensor.graph.basic.applys_between([x], [out])}
        assert "Sigmoid" in ops
        v = np.array([-800.0, -2.0, 0.0, 3.0, 800.0])  # the written-out form gives nan at 800
        got = pytensor.function([x], out, mode="FAST_COMPILE")(v)
        np.testing.assert_allclose(got, ref(v), rtol=1e-12)


def test_unflatten_index_variables_reads_both_encodings() -> None:
    x = pt.matrix("x")
    i, j = pt.iscalar("i"), pt.iscalar("j")
    node = x[i, 1:j].owner
    idx = unflatten_index_variables(node.inputs[1:], node.op.idx_list)
    assert idx[0] is i and isinstance(idx[1], slice) and idx[1].stop is j
    flat = ["a", "b", "c"]
    assert unflatten_index_variables(flat, (0, slice(1, None, 2))) == ("a", slice("b", None, "c"))
    with pytest.raises(ValueError, match="must be int or slice"):
        unflatten_index_variables(flat, (1.5,))


def test_safe_signature_and_tensor_like() -> None:
    assert safe_signature([0, 1], [2]) == "(),(i10)->(o00,o01)"
    members = typing.get_args(TensorLike)
    assert members[0] is Variable and len(members) > 2  # Variable, sequences, array-likes


def test_lazy_scipy_module_imports_on_first_use() -> None:
    code = ("import sys; from pytensor.utils import lazy_scipy_module as l; "
            "m = l('stats'); a = 'scipy.stats' in sys.modules; "
            "v = m.norm.cdf(0.0); print(a, 'scipy.stats' in sys.modules, v)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True", "0.5"]
    assert lazy_scipy_module("special").erf(0.0) == 0.0


def test_variables_accept_new_attributes_and_keep_them_when_pickled() -> None:
    x = pt.vector("x")
    x.str_repr = "x ~ Normal"
    y = pickle.loads(pickle.dumps(x))
    assert y.str_repr == "x ~ Normal" and y.name == "x"


def test_op_from_graph_input_and_output_types() -> None:
    a, b = pt.dscalar("a"), pt.dvector("b")
    op = OpFromGraph([a, b], [a * b])
    assert op.input_types == [a.type, b.type]
    assert op.output_types == [(a * b).type]


def test_output_clients_answer_as_output_nodes() -> None:
    x = pt.dvector("x")
    y = pt.exp(x)
    fg = FunctionGraph([x], [y], clone=False)
    [(client, index)] = fg.clients[y]
    assert client == "output" and index == 0
    assert isinstance(client.op, Output)
    assert client.outputs == ()
    z = pt.log(x)
    fg.change_node_input("output", 0, z, check=False)
    [(client, _)] = fg.clients[z]
    assert isinstance(client.op, Output)


def test_dimshuffle_c_func_file_path_is_absolute() -> None:
    from pathlib import Path

    path = DimShuffle.get_path(Path(DimShuffle.c_func_file))
    assert path.is_absolute()
    assert DimShuffle.get_path(path) == path


@pytest.mark.parametrize("axis", [np.array([0, 1]), range(2), (0, 1)])
def test_reductions_take_array_and_range_axes(axis: object) -> None:
    x = pt.dmatrix("x")
    v = np.arange(6.0).reshape(2, 3)
    assert pt.sum(x, axis=axis).eval({x: v}) == v.sum()
    np.testing.assert_array_equal(pt.max(x, axis=np.array(1)).eval({x: v}), v.max(axis=1))
    np.testing.assert_array_equal(x.mean(axis=range(1, 2)).eval({x: v}), v.mean(axis=1))


def test_numpy_constants_in_the_tensor_namespace() -> None:
    assert pt.inf == np.inf and np.isnan(pt.nan) and pt.pi == np.pi and pt.newaxis is None


def test_debugprint_print_shape() -> None:
    m = pt.matrix("m", shape=(2, 3))
    text = pytensor.dprint(m.sum() + pt.vector("v").sum(), print_shape=True, file="str")
    assert "m [id" in text and "shape=(2, 3)" in text and "shape=(?,)" in text
    assert text.splitlines()[0].endswith("shape=()")


def test_scan_taps_given_as_a_range() -> None:
    s = pt.dvector("s")
    out = pytensor.scan(lambda a, b: a + b, outputs_info=[{"initial": s, "taps": range(-2, 0)}],
                        n_steps=5, return_updates=False)
    fib = pytensor.function([s], out, mode="FAST_COMPILE")([1.0, 1.0])
    np.testing.assert_array_equal(fib, [2.0, 3.0, 5.0, 8.0, 13.0])


def test_update_may_have_a_more_specific_static_shape() -> None:
    store = pytensor.shared(np.zeros(3), name="store")
    v = pt.dvector("v", shape=(3,))
    f = pytensor.function([v], [], updates=[(store, v * 2)], mode="FAST_COMPILE")
    f(np.ones(3))
    np.testing.assert_array_equal(store.get_value(), [2.0, 2.0, 2.0])
    square = pytensor.shared(np.zeros((3, 3)), name="square")
    with pytest.raises(TypeError, match="must have its type"):  # broadcastable: refused
        pytensor.function([], [], updates={square: square.sum().dimshuffle("x", "x")})


def test_random_variables_have_pytensor_print_names() -> None:
    assert pt.random.normal(0, 1).owner.op._print_name == ("Normal", "\\operatorname{Normal}")
    assert pt.random.invgamma(1, 1).owner.op._print_name[0] == "InverseGamma"


def test_rng_consumer_op_is_an_abc_like_pytensors() -> None:
    import abc

    class SymbolicBase(RNGConsumerOp, abc.ABC):
        pass

    class Registered(OpFromGraph):
        def update(self, node: Apply) -> dict:
            return {}

    SymbolicBase.register(Registered)
    rng = pytensor.shared(np.random.default_rng(0))
    dummy = rng.type()
    op = Registered([dummy], pt.random.normal(rng=dummy).owner.outputs)
    assert isinstance(op, RNGConsumerOp)
