"""TypeTable: the registry shape every per-class table uses (MRO lookup, who registered)."""

from __future__ import annotations

import json

import pytest

from opgraph.cli import main
from opgraph.graph.replace import BATCHING_RULES, BatchingEntry
from opgraph.graph.table import TABLES, TypeTable, table_rows


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


def test_the_batching_table_names_both_parts_and_their_modules(capsys) -> None:
    from opgraph.tensor.elemwise import Elemwise

    entry = BATCHING_RULES[Elemwise]
    assert isinstance(entry, BatchingEntry) and entry.rule and entry.vectorize
    assert BATCHING_RULES.origin(Elemwise) == "opgraph.tensor.batching, opgraph.tensor.blockwise"
    fallback = BATCHING_RULES[object]
    assert fallback.rule.__module__ == "opgraph.autodiff.batched"
    assert fallback.vectorize.__module__ == "opgraph.tensor.blockwise"
    rows = {(r[0], r[1]): r for r in table_rows()}
    assert rows[("batching", "Elemwise")][2] == "rule=_elemwise, vectorize=_vec_elemwise"
    assert main(["plugins", "--tables", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {"table": "batching", "class": "Elemwise", "value": rows[("batching", "Elemwise")][2],
            "registered_by": "opgraph.tensor.batching, opgraph.tensor.blockwise"} in listed
