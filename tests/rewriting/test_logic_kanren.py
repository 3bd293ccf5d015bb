"""Graphs as logic terms (opgraph[kanren]): car/cdr, unify/reify, ConstrainedVar, kanren."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("kanren", reason="the optional opgraph[kanren] packages are not installed")

from cons import car, cdr
from cons.core import ConsError
from etuples import etuple, etuplize
from kanren import eq, lall, run
from unification import reify, unify, var

import opgraph.tensor as pt
from opgraph.graph.basic import Apply, Constant, equal_computations
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.op import Op
from opgraph.graph.rewriting.kanren import KanrenRelationSub
from opgraph.graph.rewriting.unify import (
    ConstrainedVar,
    OpPattern,
    convert_strs_to_vars,
    eval_if_etuple,
)
from opgraph.tensor.type import TensorType


class Scaled(Op):
    __props__ = ("k",)

    def __init__(self, k):
        self.k = k

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * self.k


class Opaque(Op):
    """No declared parameters: an atomic term."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0]


def test_variables_ops_and_types_are_cons_pairs():
    x, y = pt.vector("x"), pt.vector("y")
    z = x * y
    assert car(z) == z.owner.op and list(cdr(z)) == [x, y]
    with pytest.raises(ConsError):
        car(x)
    assert car(Scaled(3)) is Scaled and tuple(cdr(Scaled(3))) == (3,)
    t = TensorType("float32", (1, None))
    assert car(t) is TensorType and tuple(cdr(t)) == ("float32", (1, None))
    with pytest.raises(ConsError):
        car(Opaque())
    assert etuplize(z).evaled_obj is z


def test_unify_and_reify_graphs():
    x, y = pt.vector("x"), pt.vector("y")
    z = x - y
    op_lv, a_lv = var(), var()
    s = unify(z, etuple(op_lv, a_lv, y))
    assert s[op_lv] == z.owner.op and s[a_lv] is x
    rebuilt = reify(etuple(op_lv, a_lv, y), s)
    assert equal_computations([rebuilt.evaled_obj], [z])
    assert unify(z, etuple(op_lv, y, y)) is False
    assert unify(pt.as_tensor(np.r_[1, 2]), pt.as_tensor(np.r_[1, 2])) == {}
    assert unify(pt.as_tensor(np.r_[1, 2]), pt.as_tensor(np.r_[1, 3])) is False
    assert unify(Opaque(), etuplize(Scaled(1))) is False


def test_op_patterns_bind_parameters():
    x = pt.vector("x")
    k_lv, x_lv = var("k"), var("x")
    assert unify(etuple(OpPattern(Scaled, k=k_lv), x_lv), Scaled(4)(x)) == {k_lv: 4, x_lv: x}
    assert unify(etuple(OpPattern(Scaled, k=5), x_lv), Scaled(4)(x)) is False


def test_constrained_var_checks_values_not_variables():
    only_str = ConstrainedVar(lambda v: isinstance(v, str))
    assert unify(only_str, 3) is False
    assert unify("a", only_str) == {only_str: "a"}
    lv = var()
    assert unify(only_str, lv) == {only_str: lv}
    assert unify(lv, only_str, {lv: 2}) is False
    assert repr(only_str).startswith("ConstrainedVar(")
    with pytest.raises(TypeError, match="must be callable"):
        ConstrainedVar(3)


def test_convert_strs_to_vars():
    x = pt.vector("x")
    term = convert_strs_to_vars((("a", x), {"pattern": "c", "constraint": callable}, "a", 2.0))
    assert term[0][0] is term[2] and term[0][0].token == "a"
    assert isinstance(term[1], ConstrainedVar)
    assert isinstance(term[3], Constant) and term[3].data == 2.0
    with pytest.raises(ValueError, match="'pattern' key"):
        convert_strs_to_vars({"constraint": callable})


def test_kanren_relation_rewrites_a_node():
    a, b = pt.matrix("a"), pt.matrix("b")
    out = pt.sub(a, b)
    fg = FunctionGraph(outputs=[out], clone=False)

    def swap_to_add_neg(in_lv, out_lv):
        x_lv, y_lv = var(), var()
        return eq(etuple(pt.sub, x_lv, y_lv), in_lv), eq(
            etuple(pt.add, x_lv, etuple(pt.neg, y_lv)), out_lv)

    def relation(in_lv, out_lv):
        return lall(*swap_to_add_neg(in_lv, out_lv))

    (new,) = KanrenRelationSub(relation).transform(fg, out.owner)
    assert new.owner.op == pt.add and new.owner.inputs[0] is a
    assert eval_if_etuple(new) is new
    skip_all = KanrenRelationSub(relation, node_filter=lambda n: False)
    assert skip_all.transform(fg, out.owner) is False
    assert list(run(1, var(), eq(out, etuple(pt.add, a, b)))) == []


def test_core_imports_without_the_extra_and_names_it_when_used():
    code = (
        "import sys\n"
        "for m in ('cons', 'etuples', 'unification', 'kanren'): sys.modules[m] = None\n"
        "import opgraph.graph.rewriting.unify as u\n"
        "import opgraph.tensor\n"
        "try:\n"
        "    u.ConstrainedVar\n"
        "except ImportError as e:\n"
        "    print('ERR', e)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "ERR" in res.stdout and "opgraph[kanren]" in res.stdout
