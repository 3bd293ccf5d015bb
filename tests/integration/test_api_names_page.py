"""docs/api/names.md lists exactly the public names of opgraph's main modules."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("api_names", ROOT / "docs/tools/api_names.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_page_is_generated_from_the_current_code() -> None:
    tool = _tool()
    page = (ROOT / "docs/api/names.md").read_text(encoding="utf-8")
    assert page == tool.render(), (
        "docs/api/names.md is stale: run `python docs/tools/api_names.py` and commit it"
    )


def test_every_name_of_dir_is_listed() -> None:
    tool = _tool()
    page = (ROOT / "docs/api/names.md").read_text(encoding="utf-8")
    for module_name in tool.MODULES:
        section = page.split(f"## `{module_name}` (", 1)[1].split("\n## ", 1)[0]
        listed = {line.split("`")[1] for line in section.splitlines() if line.startswith("| `")}
        assert listed == set(tool.public_names(module_name)), module_name


def test_every_public_name_has_a_docstring() -> None:
    tool = _tool()
    missing = tool.missing_docstrings()
    assert missing == {}, (
        "public names without a docstring (see docs/tools/api_names.py for where one goes): "
        + "; ".join(f"{module}: {', '.join(names)}" for module, names in missing.items())
    )


def test_the_docstring_check_sees_a_missing_one(monkeypatch) -> None:
    # The check itself: a public value with no docstring of any kind is reported,
    # and a string under its assignment (an attribute docstring) counts as one.
    import opgraph.compile as compile_module

    tool = _tool()
    monkeypatch.setattr(tool, "MODULES", ("opgraph.compile",))
    assert tool.missing_docstrings() == {}
    monkeypatch.setattr(compile_module, "FAST_RUN", "FAST" + "_RUN!")
    assert tool.missing_docstrings() == {"opgraph.compile": ["FAST_RUN"]}


def test_elementwise_functions_carry_their_docstrings() -> None:
    import opgraph.tensor as pt

    assert pt.exp.__doc__.startswith("``e ** x``")
    assert "Alias: ``where``" in pt.switch.__doc__
    c, a = pt.bvector("c"), pt.dvector("a")
    # where is its own function (one argument: nonzero); with three it builds switch's node
    assert pt.where(c, a, a).owner.op == pt.switch(c, a, a).owner.op
    assert pt.where.__doc__.startswith("``np.where``")
    assert pt.erf.__doc__.startswith("erf(x)")


def test_scalar_ops_and_tensor_functions_share_one_text() -> None:
    import opgraph.scalar as ps
    import opgraph.tensor as pt
    from opgraph.scalar.docs import FUNCTION_DOCS

    assert ps.tanh.__doc__.startswith(FUNCTION_DOCS["tanh"])
    assert pt.tanh.__doc__.startswith(FUNCTION_DOCS["tanh"])
    assert "scalar Op" in ps.tanh.__doc__ and "broadcast" in pt.tanh.__doc__


def test_attach_docs_refuses_a_name_it_cannot_find() -> None:
    from opgraph.tensor.math_docs import attach_docs

    with pytest.raises(KeyError, match="'exp' has a docstring but is not defined"):
        attach_docs({}, {"exp": "e ** x"})
