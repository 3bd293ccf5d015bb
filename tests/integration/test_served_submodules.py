"""A plugin-served submodule is an attribute of its parent (``pt.linalg``), as in PyTensor,
where ``pytensor.tensor`` imports it."""

from __future__ import annotations

import importlib

import opgraph.tensor as pt


def test_served_submodules_are_attributes_of_the_parent():
    for name in ("linalg", "optimize", "rewriting"):
        assert getattr(pt, name) is importlib.import_module(f"opgraph.tensor.{name}")
    assert pt.linalg.inv is importlib.import_module("opgraph.tensor.linalg").inv
