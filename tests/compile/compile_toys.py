"""A tiny linker and Ops so the core compile tests run with no plugin installed."""

from __future__ import annotations

from typing import Any

import numpy as np

from opgraph.graph.basic import Apply, Variable
from opgraph.graph.op import Op
from opgraph.link.basic import Linker, LinkerResult, map_storage
from opgraph.plugins import hookimpl
from opgraph.plugins.records import LinkerRecord, ModeRecord


class TinyLinker(Linker):
    """Runs every node's perform in order (enough to test function() in the core)."""

    name = "tiny"

    def make_thunk(self, input_storage=None, output_storage=None, storage_map=None):
        fgraph = self._require_fgraph()
        order = fgraph.toposort()
        ins, outs, smap = map_storage(fgraph, order, input_storage, output_storage, storage_map)
        steps = [
            (n.op.perform, n, [smap[v] for v in n.inputs], [smap[v] for v in n.outputs])
            for n in order
        ]
        recycle = [smap[v] for v in self.no_recycling if v.owner is not None]

        def run() -> None:
            for cell in recycle:
                cell[0] = None
            for perform, node, i, o in steps:
                perform(node, [c[0] for c in i], o)

        return LinkerResult(run, ins, outs, [], order)


class Twice(Op):
    __props__ = ()

    def make_node(self, x: Variable) -> Apply:
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = np.asarray(2 * inputs[0])


class Plus(Op):
    __props__ = ()

    def make_node(self, x: Variable, y: Variable) -> Apply:
        return Apply(self, [x, y], [x.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = np.asarray(inputs[0] + inputs[1])


twice = Twice()
plus = Plus()


class TinyPlugin:
    """Declares the linker 'tiny' and the mode TINY."""

    @hookimpl
    def opgraph_linkers(self) -> list[LinkerRecord]:
        return [LinkerRecord("tiny", TinyLinker, description="test linker")]

    @hookimpl
    def opgraph_modes(self) -> list[ModeRecord]:
        return [ModeRecord("TINY", linkers=("tiny",))]


def make_record_plugin(linkers: list[LinkerRecord] = (), modes: list[ModeRecord] = ()) -> Any:
    """A plugin object returning the given records."""

    class _Plugin:
        @hookimpl
        def opgraph_linkers(self) -> list[LinkerRecord]:
            return list(linkers)

        @hookimpl
        def opgraph_modes(self) -> list[ModeRecord]:
            return list(modes)

    return _Plugin()
