"""debugprint / pprint / pydotprint on scalar graphs (tensor-level facts live in tests/tensor)."""

from __future__ import annotations

import io
import sys
import types

import pytest

import opgraph
import opgraph.scalar as ps
from opgraph.graph.basic import Apply, NominalVariable
from opgraph.graph.fg import FunctionGraph
from opgraph.graph.op import Op
from opgraph.graph.replace import clone_replace
from opgraph.printing import (
    OperatorPrinter,
    PPrinter,
    char_from_number,
    debugprint,
    dprint,
    pp,
    pprint,
    pydotprint,
)


@pytest.fixture
def xyz():
    return ps.float64("x"), ps.float64("y"), ps.float64("z")


def test_char_ids():
    assert [char_from_number(i) for i in (0, 1, 25, 26, 27, 26 * 26)] == [
        "A", "B", "Z", "BA", "BB", "BAA"
    ]


def test_tree_format_and_names(xyz):
    x, y, z = xyz
    out = ps.add(x, ps.mul(y, z))
    out.name = "out"
    text = dprint(out, file="str")
    assert text == (
        "add [id A] 'out'\n"
        " ├─ x [id B]\n"
        " └─ mul [id C]\n"
        "    ├─ y [id D]\n"
        "    └─ z [id E]\n"
    )


def test_nested_continuation_lines(xyz):
    x, y, _ = xyz
    out = ps.mul(ps.exp(ps.neg(x)), y)
    assert dprint(out, file="str").splitlines() == [
        "mul [id A]",
        " ├─ exp [id B]",
        " │  └─ neg [id C]",
        " │     └─ x [id D]",
        " └─ y [id E]",
    ]


def test_shared_subtree_printed_once(xyz):
    x, y, _ = xyz
    e = ps.exp(x)
    out = ps.mul(ps.add(e, y), e)
    lines = dprint(out, file="str").splitlines()
    assert lines[-1] == " └─ exp [id C] ···"
    assert sum("exp [id C]" in line for line in lines) == 2
    assert sum("x [id D]" in line for line in lines) == 1


def test_print_type_depth_and_ids(xyz):
    x, y, _ = xyz
    out = ps.add(ps.exp(x), y)
    assert "add [id A] <float64>" in dprint(out, file="str", print_type=True)
    assert dprint(out, file="str", depth=1) == "add [id A]\n"  # the text a file would get
    assert len(dprint(out, file="str", depth=2).splitlines()) == 3
    assert dprint(out, file="str", ids="int").startswith("add [id 0]")
    assert dprint(out, file="str", ids="").startswith("add\n")
    assert "[id 0x" in dprint(out, file="str", ids="id")
    with pytest.raises(ValueError, match="ids must be"):
        dprint(out, file="str", ids="bogus")


def test_stop_on_name(xyz):
    x, y, _ = xyz
    inner = ps.exp(x)
    inner.name = "e"
    out = ps.add(inner, y)
    text = dprint(out, file="str", stop_on_name=True)
    assert "exp [id B] 'e'" in text and "x [id" not in text


def test_shared_ids_across_calls(xyz):
    x, y, _ = xyz
    used: dict = {}
    done: dict = {}
    dprint(ps.exp(x), file="str", used_ids=used, done=done)
    text = dprint(ps.add(x, y), file="str", used_ids=used, done=done)
    assert "x [id B]" in text and "add [id C]" in text


def test_list_apply_and_stdout(xyz, capsys):
    x, y, _ = xyz
    a, b = ps.exp(x), ps.add(x, y)
    text = dprint([a, b], file="str")
    assert text.splitlines()[0] == "exp [id A]" and "add [id C]" in text
    assert "exp [id A]" in dprint(a.owner, file="str")
    assert dprint(a) is a  # prints and returns the object
    assert capsys.readouterr().out == "exp [id A]\n └─ x [id B]\n"
    buf = io.StringIO()
    debugprint(a, file=buf)
    assert buf.getvalue().startswith("exp [id A]")


def test_multi_output_node_shows_output_index(xyz):
    x, y, _ = xyz
    comp = ps.Composite([x, y], [ps.add(x, y), ps.mul(x, y)])
    o0, o1 = comp(x, y)
    text = dprint([o0, o1], file="str")
    assert ".0 [id A]" in text and ".1 [id A] ···" in text


def test_function_graph_and_compiled_function(xyz):
    x, y, _ = xyz
    fg = FunctionGraph([x, y], [ps.mul(ps.exp(x), y)], clone=False)
    text = dprint(fg, file="str", print_fgraph_inputs=True)
    assert text.splitlines() == [
        " → x [id A]",
        " → y [id B]",
        "mul [id C] 1",
        " ├─ exp [id D] 0",
        " │  └─ x [id A]",
        " └─ y [id B]",
    ]
    fake_fn = types.SimpleNamespace(maker=types.SimpleNamespace(fgraph=fg))
    assert dprint(fake_fn, file="str").startswith("mul [id A] 1")


def test_inner_graphs_section(xyz):
    x, y, z = xyz
    comp = ps.Composite([x, y], [ps.add(ps.exp(x), y)])
    out = comp(z, y)
    lines = dprint(out, file="str").splitlines()
    assert lines[0] == "Composite{(exp(i0) + i1)} [id A]"
    idx = lines.index("Inner graphs:")
    assert lines[idx + 2] == "Composite{(exp(i0) + i1)} [id A]"
    assert lines[idx + 3].startswith(" ← add [id")
    assert lines[idx + 4].startswith("    ├─ exp")


def test_destroy_and_view_maps_printed():
    class ViewOp(ps.Identity):
        view_map = {0: [0]}

    x = ps.float64("x")
    out = ViewOp(name="view")(x)
    assert "v={0: [0]}" in dprint(out, file="str", print_view_map=True)
    assert "view_map" in dprint(out, file="str", print_op_info=True)


def test_deep_chain_has_no_recursion_error():
    x = ps.float64("x")
    y = x
    for _ in range(20_000):  # 20x Python's default recursion limit
        y = ps.neg(y)
    text = dprint(y, file="str")
    assert text.count("\n") == 20_001  # one line per node, each ending in a newline
    assert max(len(line) for line in text.splitlines()) < 400


def test_bad_input_is_named():
    with pytest.raises(TypeError, match=r"expected a Variable, an Apply.*got int"):
        dprint(3, file="str")
    with pytest.raises(TypeError, match="item 1 of the list"):
        dprint([ps.float64(), "x"], file="str")
    with pytest.raises(TypeError, match="depth must be an int"):
        dprint(ps.float64(), depth="2", file="str")


class TestPprint:
    def test_infix_precedence(self, xyz):
        x, y, z = xyz
        assert pprint(x + y * z) == "x + y * z"
        assert pprint((x + y) * z) == "(x + y) * z"
        assert pprint(x - (y - z)) == "x - (y - z)"
        assert pprint((x - y) - z) == "x - y - z"
        assert pprint(x / (y * z)) == "x / (y * z)"
        assert pprint(x ** (y**z)) == "x ** y ** z"
        assert pprint((x**y) ** z) == "(x ** y) ** z"
        assert pprint(-(x + y)) == "-(x + y)"
        assert pprint(ps.lt(x + y, z)) == "x + y < z"

    def test_functions_and_constants(self, xyz):
        x, y, _ = xyz
        assert pprint(ps.exp(x)) == "exp(x)"
        assert pprint(ps.arctan2(x, y + 1.5)) == "arctan2(x, y + 1.5)"
        assert pprint(ps.cast(x, "int8")) == "Cast{int8}(x)"  # as PyTensor 3.0.7
        assert pprint(ps.exp(x), ps.log(y)) == "exp(x)\nlog(y)"
        assert pp is pprint

    def test_assign_by_class_and_predicate(self, xyz):
        x, y, _ = xyz
        printer = PPrinter()
        printer.assign(ps.Add, OperatorPrinter("plus", -2, "either"))
        assert printer(ps.add(x, y)) == "x plus y"
        assert printer(ps.exp(x)) == "exp(x)"  # default printer
        printer.assign(lambda pstate, var: var.owner.op == ps.exp, OperatorPrinter("E", 0))
        assert printer(ps.exp(x)) == "Ex"

    def test_scalar_op_of_a_wrapper_is_used(self, xyz):
        x, y, _ = xyz

        node = ps.add(x, y).owner

        class FakeElemwise:
            scalar_op = ps.add
            prints_as_scalar_op = True

            def __str__(self):
                return "Add"

        fake = types.SimpleNamespace()
        fake.owner = types.SimpleNamespace(op=FakeElemwise(), inputs=node.inputs, outputs=[fake])
        fake.index = 0
        assert pprint.process(fake) == "x + y"

    def test_bad_input(self):
        with pytest.raises(TypeError, match="pprint: expected Variables"):
            pprint(3)


def test_top_level_names():
    assert opgraph.dprint is dprint and opgraph.pprint is pprint


def test_pydotprint_missing_package(monkeypatch, xyz):
    monkeypatch.setitem(sys.modules, "pydot", None)
    with pytest.raises(ImportError, match=r"pydot.*[Gg]raphviz"):
        pydotprint(xyz[0] + xyz[1], outfile="never.png")


def test_pydotprint_missing_dot_binary(monkeypatch, xyz):
    monkeypatch.setitem(sys.modules, "pydot", types.ModuleType("pydot"))
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(ImportError, match="'dot' program"):
        pydotprint(xyz[0] + xyz[1], outfile="never.png")


def test_pydotprint_builds_graph_with_a_pydot_stand_in(monkeypatch, tmp_path, xyz):
    calls: dict = {"nodes": [], "edges": []}

    class Dot:
        def __init__(self, *a, **k):
            pass

        def add_node(self, n):
            calls["nodes"].append(n)

        def add_edge(self, e):
            calls["edges"].append(e)

        def write(self, path, format):
            calls["written"] = (path, format)

    fake = types.ModuleType("pydot")
    fake.Dot = Dot
    fake.Node = lambda name, **k: (name, k)
    fake.Edge = lambda a, b, **k: (a, b)
    monkeypatch.setitem(sys.modules, "pydot", fake)
    monkeypatch.setattr("shutil.which", lambda name: "/usr/bin/dot")
    x, y, _ = xyz
    out = ps.add(ps.exp(x), ps.mul(y, 2.0))
    pydotprint(out, outfile=str(tmp_path / "g.svg"), format="svg", print_output_file=False)
    labels = [k.get("label") for _, k in calls["nodes"]]
    assert {"add", "exp", "mul", "x float64", "y float64", "2.0"} <= set(labels)
    assert calls["written"] == (str(tmp_path / "g.svg"), "svg")
    assert len(calls["edges"]) == 6  # x, y, 2.0 in; exp, mul into add; add out
    calls["nodes"].clear()
    pydotprint(out, outfile=str(tmp_path / "g.png"), var_with_name_simple=True,
               print_output_file=False)
    assert {"x", "y"} <= {k.get("label") for _, k in calls["nodes"]}


def test_tensor_elemwise_prints_its_scalar_op_and_inner_graph():
    import opgraph.tensor as pt
    from opgraph.tensor.elemwise import Elemwise

    x, y = pt.dvector("x"), pt.dvector("y")
    assert pprint(pt.exp(x) + y * x) == "exp(x) + y * x"
    assert "+x" not in pprint(x.sum())  # a reduction is not printed as its scalar op
    a, b = ps.float64("a"), ps.float64("b")
    fused = Elemwise(ps.Composite([a, b], [ps.add(ps.exp(a), b)]))(x, y)
    text = dprint(fused, file="str")
    assert "Inner graphs:" in text and " ← add [id" in text


# -- PyTensor's small helpers: PatternPrinter, min_informative_str, get_node_by_id --------


def test_pattern_printer_beats_a_catch_all_predicate() -> None:
    from opgraph.printing import PatternPrinter, PPrinter, default_printer

    x, y = ps.float64("x"), ps.float64("y")
    out = x - y
    printer = PPrinter()
    printer.assign(out.owner.op, PatternPrinter(("|%(0)s - %(1)s|", -1000)))
    printer.assign(lambda pstate, r: True, default_printer)
    assert printer(out) == "|x - y|"
    # an input given no precedence is printed at 1000: an operator in it gets parentheses
    from opgraph.printing import OperatorPrinter

    nested = PPrinter()
    nested.assign(ps.Sub, PatternPrinter("%(0)s minus %(1)s"))
    nested.assign(ps.Add, OperatorPrinter("+", -2, "either"))
    assert nested((x + y) - x) == "(x + y) minus x"
    loose = PPrinter()
    loose.assign(ps.Sub, PatternPrinter(("%(0)s minus %(1)s", -1000)))
    loose.assign(ps.Add, OperatorPrinter("+", -2, "either"))
    assert loose((x + y) - x) == "x + y minus x"


def test_pattern_printer_rejects_bad_patterns() -> None:
    from opgraph.printing import PatternPrinter

    with pytest.raises(TypeError, match="pattern"):
        PatternPrinter(3)
    with pytest.raises(TypeError, match="at least one"):
        PatternPrinter()


def test_min_informative_str_stops_at_names_and_tags_repeats() -> None:
    from opgraph.printing import min_informative_str

    a, b, d = ps.float64("a"), ps.float64("b"), ps.float64("d")
    c = a + b
    c.name = "c"
    g = (c * d) + c
    text = min_informative_str(g)
    lines = text.splitlines()
    assert lines[0] == "A. " + str(g.owner.op)
    assert lines[1] == " B. " + str((c * d).owner.op)
    assert lines[2] == "  C. c"  # named: not expanded
    assert lines[3] == "  D. d"
    assert lines[4] == " C"  # seen before: its tag only
    assert len(lines) == 5


def test_get_node_by_id_matches_debugprint_ids() -> None:
    from opgraph.printing import debugprint, get_node_by_id

    x, y = ps.float64("x"), ps.float64("y")
    out = (x + y) * x
    text = debugprint(out, file="str")
    assert "[id A]" in text and "[id C]" in text
    assert get_node_by_id(out, "A") is out.owner
    assert get_node_by_id([out], "C") is x
    assert get_node_by_id(out, "nope") is None
    assert debugprint(out, file="str", id_type="int") == debugprint(out, file="str", ids="int")


def test_debugprint_stop_on_name_marks_hidden_inputs() -> None:
    from opgraph.printing import debugprint

    a, b, d = ps.float64("a"), ps.float64("b"), ps.float64("d")
    c = a + b
    c.name = "c"
    lines = debugprint(c * d, file="str", stop_on_name=True).splitlines()
    assert lines[1].endswith("'c'")
    assert lines[2] == " │  └─ ···"  # c's inputs are not shown
    assert lines[3].endswith("d [id C]")


def test_debugprint_auto_ids_are_auto_names() -> None:
    from opgraph.printing import debugprint

    x, y = ps.float64(), ps.float64()
    out = x * y
    text = debugprint(out, file="str", id_type="auto")
    assert text.splitlines()[0].endswith(f"[id {out.auto_name}]")
    assert f"[id {x.auto_name}]" in text and f"[id {y.auto_name}]" in text


class TestRichTree:
    rich = pytest.importorskip("rich")

    def _labels(self, tree: object) -> list[str]:
        return [str(child.label) for child in tree.children]  # type: ignore[attr-defined]

    def test_outputs_are_children_of_a_hidden_root(self) -> None:
        from opgraph.printing import debugprint

        x, y = ps.float64("x"), ps.float64("y")
        tree = debugprint([x + y, x * y], file="rich")
        assert isinstance(tree, self.rich.tree.Tree) and tree.hide_root
        assert len(tree.children) == 2
        assert [len(c.children) for c in tree.children] == [2, 2]
        assert self._labels(tree.children[0]) == [r"x \[id B]", r"y \[id C]"]

    def test_shared_node_is_coloured_and_not_expanded_twice(self) -> None:
        from opgraph.printing import debugprint

        x = ps.float64("x")
        shared = x * 2
        other = x + 1
        tree = debugprint((shared + other) * (shared - other), file="rich")
        top = tree.children[0]
        first, second = top.children
        repeat = second.children[0]  # shared again, under the subtraction
        assert len(repeat.children) == 1 and "···" in str(repeat.children[0].label)
        canonical = first.children[0]
        color = str(canonical.label).split("]")[0].lstrip("[")
        assert str(repeat.label).startswith(f"[{color}]")
        assert str(repeat.children[0].label) == f"[{color}]···[/{color}]"
        assert str(second.children[1].label).split("]")[0] != f"[{color}"  # other colour

    def test_depth_names_and_markup(self) -> None:
        from opgraph.printing import debugprint

        x = ps.float64("x")
        y = x * 2
        y.name = "y[0]"
        shallow = debugprint(y + 1, depth=1, file="rich")
        assert shallow.children[0].children == []
        tree = debugprint(y + 1, file="rich")
        buf = io.StringIO()
        self.rich.console.Console(file=buf, highlight=False).print(tree)
        assert "'y[0]'" in buf.getvalue()

    def test_inner_graphs_section(self) -> None:
        from opgraph.printing import debugprint

        a, b = ps.float64("a"), ps.float64("b")
        comp = ps.Composite([a, b], [a * b + a])
        x, y = ps.float64("x"), ps.float64("y")
        tree = debugprint(comp(x, y), file="rich")
        assert len(tree.children) == 2
        section = tree.children[1]
        assert str(section.label) == "[bold]Inner graphs:[/bold]"
        assert len(section.children) == 1 and len(section.children[0].children) == 1


class _Inner(Op):
    """Ops with equal (empty) parameters but each its own inner graph."""

    __props__ = ()

    def __init__(self, inputs, outputs):
        nominals = [NominalVariable(k, v.type) for k, v in enumerate(inputs)]
        self.inner_inputs = nominals
        self.inner_outputs = clone_replace(outputs, replace=list(zip(inputs, nominals)))

    def make_node(self, *inputs):
        return Apply(self, list(inputs), [inputs[0].type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0]


def test_nested_inner_graphs_of_equal_ops_are_all_listed(xyz):
    x, y, _ = xyz
    inner = _Inner([x, y], [ps.add(x, y)])
    out = inner(x, y)
    outer = _Inner([x, y], [out])
    lines = debugprint(outer(x, y), file="str").splitlines()
    # both inner graphs are shown, although the two ops compare equal
    assert lines.count("Inner graphs:") == 1
    assert sum(line.startswith("_Inner [id") for line in lines) == 3
    # unnamed nominal inner inputs print as i0, i1 (the same ids in both inner graphs)
    assert [ln.strip() for ln in lines if ln.strip().startswith("├─ i0")] == ["├─ i0 [id E]"] * 2
