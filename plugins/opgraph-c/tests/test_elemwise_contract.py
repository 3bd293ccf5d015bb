"""The elementwise contract: every elementwise function has docs, a C row and a batching path.

Per function (``pt.exp``, ``pt.add``, plugin-served ``pt.erf`` ...): a docs entry
(``opgraph.scalar.docs.FUNCTION_DOCS``, by name or alias), a C row (``SCALAR_C``,
a ``CExpr`` through the ``opgraph_op_impl`` hook, or an explicit ``PERFORM_ONLY``
entry saying why not), and a batching path (the batching table's rule for
Elemwise, used by vectorize_graph, jacobian and Blockwise gradients).  docs/writing-an-op.md
lists the same places; a new op that misses one is named here.
"""

from __future__ import annotations

import numpy as np
import pytest
from opgraph_c.codegen.scalar_table import PERFORM_ONLY, SCALAR_C, c_row

import opgraph.tensor.math as ptm
from opgraph import faces
from opgraph.graph.replace import BATCHING_RULES, batching_rule_for
from opgraph.scalar.basic import UnaryScalarOp, upgrade_to_float
from opgraph.scalar.docs import FUNCTION_DOCS
from opgraph.tensor.elemwise import Elemwise
from opgraph.tensor.math_docs import ALIASES


def elementwise_functions() -> dict[str, Elemwise]:
    """The elementwise functions of opgraph.tensor, the core's and the plugins' served ones.

    A plugin's own ops (``pt.erf`` from opgraph-special) carry their docs on the
    object and answer for their C through the ``opgraph_op_impl`` hook; this plugin
    cannot list why one of them has none, so their C row is the plugin's to check.
    """
    found = {n: f for n, f in vars(ptm).items()
             if not n.startswith("_") and isinstance(f, Elemwise)}
    for name in faces.NAME_FACES.get("opgraph.tensor", {}):
        try:
            value = faces.provided_name("opgraph.tensor", name)
        except AttributeError:
            continue
        if isinstance(value, Elemwise):  # a MissingPluginName when the plugin is absent
            found[name] = value
    return found


def contract_problems(functions: dict[str, Elemwise]) -> list[str]:
    """One line per missing piece, naming the function, what is missing and where it goes."""
    by_op: dict[type, list[str]] = {}
    for name, fn in functions.items():
        by_op.setdefault(type(fn.scalar_op), []).append(name)
    problems = []
    for op_class, names in sorted(by_op.items(), key=lambda kv: kv[1][0]):
        scalar_op = functions[names[0]].scalar_op
        label = "/".join(sorted(names))
        known = {*names, *(a for n in names for a in ALIASES.get(n, ()))}
        known |= {n for n, aliases in ALIASES.items() if known & set(aliases)}
        # the core's ops (and this file's fixture op, written as a core op would be)
        core = op_class.__module__.startswith("opgraph.") or op_class.__module__ == __name__
        own_doc = vars(functions[names[0]]).get("__doc__")  # a plugin's attach_docs
        if not known & set(FUNCTION_DOCS) and (core or not own_doc):
            problems.append(f"{label}: no docs entry (opgraph.scalar.docs.FUNCTION_DOCS)")
        if c_row(scalar_op) is None and op_class not in PERFORM_ONLY and core:
            problems.append(
                f"{label}: no C row ({op_class.__qualname__} in opgraph_c SCALAR_C, a CExpr "
                "from the opgraph_op_impl hook, or a PERFORM_ONLY entry saying why)")
        fn = functions[names[0]]
        try:
            batching_rule_for(fn)
        except NotImplementedError:
            problems.append(f"{label}: no batching rule (vectorize_graph, jacobian, Blockwise)")
    return problems


def test_every_elementwise_function_keeps_the_contract() -> None:
    functions = elementwise_functions()
    assert len(functions) > 60 and "exp" in functions and "add" in functions
    assert contract_problems(functions) == []


def test_perform_only_entries_have_no_c_row_and_a_reason() -> None:
    for op_class, reason in PERFORM_ONLY.items():
        assert op_class not in SCALAR_C, f"{op_class.__name__} has a C row: not PERFORM_ONLY"
        assert reason.strip()


class Cube(UnaryScalarOp):
    """The fixture op of docs/writing-an-op.md."""

    default_output_types_preference = staticmethod(upgrade_to_float)

    def numpy_fn(self, x):
        return np.asarray(x, dtype="float64") ** 3


def test_a_new_op_is_named_until_its_docs_and_c_row_exist(monkeypatch) -> None:
    cube = Elemwise(Cube(name="cube"))
    problems = contract_problems({"cube": cube})
    assert problems == [
        "cube: no docs entry (opgraph.scalar.docs.FUNCTION_DOCS)",
        "cube: no C row (Cube in opgraph_c SCALAR_C, a CExpr from the opgraph_op_impl hook, "
        "or a PERFORM_ONLY entry saying why)",
    ]
    # the documented path: a docs line, then a C row (here in the table; a package
    # of its own answers the opgraph_op_impl hook instead)
    monkeypatch.setitem(FUNCTION_DOCS, "cube", "``x ** 3``.")
    assert contract_problems({"cube": cube}) == [problems[1]]
    monkeypatch.setitem(SCALAR_C, Cube, SCALAR_C[type(ptm.sqr.scalar_op)])
    assert contract_problems({"cube": cube}) == []
    # nothing for batching: Elemwise's rule covers it; without that rule it is named
    with BATCHING_RULES.saved():
        del BATCHING_RULES[Elemwise]
        assert contract_problems({"cube": cube}) == [
            "cube: no batching rule (vectorize_graph, jacobian, Blockwise)"]


@pytest.mark.parametrize("name", ["exp", "add", "clip"])
def test_the_contract_sees_what_it_checks(name) -> None:
    fn = elementwise_functions()[name]
    assert c_row(fn.scalar_op) is not None
    assert name in FUNCTION_DOCS
