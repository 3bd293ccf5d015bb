"""The table idiom: TypeTable (by MRO) and NameTable (by name), with who registered each entry."""

from __future__ import annotations

import json

import pytest

from opgraph.cli import main
from opgraph.graph.function_table import FunctionTable
from opgraph.graph.replace import BATCHING_RULES, register_batching_rule
from opgraph.graph.table import TABLES, NameTable, TypeTable, table_rows


class Base:
    pass


class Child(Base):
    pass


class GrandChild(Child):
    pass


@pytest.fixture
def table():
    t = TypeTable("test-table-" + str(len(TABLES)))
    yield t
    del TABLES[t.name]


def test_lookup_follows_the_mro_and_skip(table) -> None:
    table.register(Base, "base")
    table.register(object, "fallback")
    assert table.lookup(GrandChild()) == "base" and table.lookup(Child) == "base"
    table.register(Child, "child")
    assert table.lookup(GrandChild()) == "child" and table.lookup(Base()) == "base"
    assert table.lookup(3) == "fallback"
    assert table.lookup(3, "none", skip=(object,)) == "none"
    assert table.origin(Child) == __name__  # the registering module


def test_loaders_fill_the_table_on_first_lookup(table) -> None:
    calls = []

    def loader():
        calls.append(1)
        return {Child: "loaded"}

    table.add_loader(loader)
    assert calls == []
    assert table.lookup(GrandChild) == "loaded" and calls == [1]
    assert table.lookup(GrandChild) == "loaded" and calls == [1]  # loaded once
    assert table.origin(Child) == __name__


def test_a_table_is_a_mapping_and_names_are_unique(table) -> None:
    table[Base] = 1
    assert dict(table) == {Base: 1} and Base in table and len(table) == 1
    assert table.pop(Base) == 1 and len(table) == 0
    with pytest.raises(TypeError, match="keyed by class"):
        table.register("Base", 1)
    with pytest.raises(ValueError, match="already exists"):
        TypeTable(table.name)


def test_the_batching_table_holds_one_rule_per_class_and_one_fallback(capsys) -> None:
    from opgraph.tensor.elemwise import Elemwise

    rule = BATCHING_RULES[Elemwise]
    assert callable(rule) and rule.__name__ == "_vec_elemwise"
    assert BATCHING_RULES.origin(Elemwise) == "opgraph.tensor.blockwise"
    assert BATCHING_RULES.origin(object) == "opgraph.tensor.blockwise"  # the one fallback
    with pytest.raises(TypeError, match="must be a callable"):
        register_batching_rule(Elemwise, "not a rule")
    rows = {(r[0], r[1]): r for r in table_rows()}
    assert rows[("batching", "Elemwise")][2] == "_vec_elemwise"
    assert main(["plugins", "--tables", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {"table": "batching", "class": "Elemwise", "value": "_vec_elemwise",
            "registered_by": "opgraph.tensor.blockwise"} in listed


def test_a_name_table_keeps_order_and_moves_a_new_registration_last() -> None:
    names = NameTable("test-names", listed=False)
    names.register("a", 1)
    names.register("b", 2)
    names.register("a", 3)
    assert list(names) == ["b", "a"] and names.lookup("a") == 3
    assert names.lookup("c", "none") == "none" and names.origin("a") == __name__
    with pytest.raises(TypeError, match="keyed by name"):
        names.register(Base, 1)
    assert "test-names" not in TABLES  # unlisted
    copy = names.copy()
    assert dict(copy) == {"b": 2, "a": 3} and copy.origin("b") == __name__


def test_function_tables_registries_and_printers_are_listed_with_their_modules() -> None:
    functions = FunctionTable("test.pkg", listed=False)
    functions.register(json, twice=len)
    assert functions.twice is len and functions.dumps is json.dumps
    assert functions.table.origin("twice") == __name__
    assert functions.table.origin("dumps") == "json"  # the namespace itself
    main(["plugins", "--tables"])  # builds the global pretty-printer's tables
    rows = {(r[0], r[1]): r[3] for r in table_rows()}
    assert rows[("functions:opgraph.scalar", "add")] == "opgraph.scalar.arith"
    assert rows[("functions:opgraph.tensor", "get_item")] == "opgraph.tensor.operators"
    key = "opgraph.tensor.sharedvar:tensor_constructor"
    assert rows[("shared_constructors", key)] == "opgraph.tensor.sharedvar"
    assert rows[("pprint", "DimShuffle")] == "opgraph.tensor.printers"
    assert any(t == "pprint_conditions" and who == "opgraph.tensor.printers"
               for (t, _), who in rows.items())
