"""CWriter: the one way generated C is written (indentation, pasted code, labels)."""

from opgraph_c.codegen.emit import CWriter


def test_blocks_indent_their_bodies_and_labels_step_out():
    w = CWriter()
    with w.block("static int f(int x)"):
        w.line("int y = 0;")
        with w.block("if (x > 0)"):
            w.line("y = x;", "goto done;")
        with w.block("else"):
            w.line("y = -x;")
        w.label("done")
        w.line("return y;")
    assert w.text() == (
        "static int f(int x) {\n"
        "    int y = 0;\n"
        "    if (x > 0) {\n"
        "        y = x;\n"
        "        goto done;\n"
        "    }\n"
        "    else {\n"
        "        y = -x;\n"
        "    }\n"
        "done:\n"
        "    return y;\n"
        "}\n"
    )


def test_pasted_code_is_dedented_then_indented_to_the_current_depth():
    op_code = """
        Py_XDECREF(z);
        if (!z) {
            goto fail;
        }
    """
    w = CWriter()
    with w.block():
        w.code(op_code)
    assert w.text() == "{\n    Py_XDECREF(z);\n    if (!z) {\n        goto fail;\n    }\n}\n"


def test_empty_statements_are_blank_lines_and_tails_follow_the_brace():
    w = CWriter()
    with w.block("static int t[2] =", tail=";"):
        w.line("1, 2", "")
    assert w.text() == "static int t[2] = {\n    1, 2\n\n};\n"
