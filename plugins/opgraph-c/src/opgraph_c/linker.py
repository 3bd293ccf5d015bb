"""The "c" linker: the whole graph as one generated, cached C extension module.

``make_thunk`` generates the module source for the graph (C for every node
that has it, calls into Python thunks for the rest), gets the compiled module
from the disk cache (building it on a miss) and binds it to this function's
storage cells.  The returned ``fn`` is the module's C entry point itself, so
a call costs one C function call plus the work.

With ``function(..., profile=...)`` the module is built in its profiling
variant (a different source, so a different cache entry): the C times every
node on the monotonic clock into a float64 array that the ProfileStats reads
directly, so nothing is copied after a call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from opgraph.graph.basic import Constant, Variable
from opgraph.link.basic import Linker, LinkerResult, StorageCell, raise_with_op
from opgraph_c import compiler, progress
from opgraph_c.cache import ModuleCache, default_cache
from opgraph_c.codegen.module import build_module_source, constant_values, is_checked_tensor
from opgraph_c.codegen.nodec import EmitContext
from opgraph_c.codegen.registry import c_for_node
from opgraph_c.codegen.runtime_c import PRELUDE

__all__ = ["CLinker", "compile_graph_module", "pool_handler", "release_pooled_memory"]

_POOL: list[tuple[Any, Any]] = []  # (module owning the process-wide pool, its handler)


def pool_handler(module: Any) -> Any:
    """The process-wide buffer pool's NumPy memory handler (the first module's)."""
    if not _POOL:
        _POOL.append((module, module.pool_handler()))
    return _POOL[0][1]


def release_pooled_memory() -> int:
    """Free the large buffers waiting in the pool for reuse; returns the bytes freed."""
    return int(_POOL[0][0].pool_release()) if _POOL else 0


def _python_thunk(node: Any, storage_map: dict, compute_map: dict, no_recycling: list) -> Any:
    from opgraph_numpy import make_node_thunk

    thunk = make_node_thunk(node, storage_map, compute_map, no_recycling, "py")
    if not getattr(thunk, "lazy", False):
        return thunk

    def run_lazy() -> None:
        result = thunk()
        for _ in range(len(node.inputs) + 2):
            if not result:
                return
            result = thunk()
        raise RuntimeError(f"lazy thunk of {node.op} keeps asking for inputs {list(result)}")

    return run_lazy


def compile_graph_module(
    fgraph: Any, order: Sequence[Any], *, openmp: bool, keep_live: set[Variable],
    cache: ModuleCache | None = None, profile: bool = False,
) -> tuple[Any, Any, list[str]]:
    """(compiled module, ModuleSource, origin of each node's code).

    ``profile`` builds the variant that times each node (see ``build_module_source``).
    """
    with progress.module(_describe(order, profile)):
        return _compile_graph_module(fgraph, order, openmp=openmp, keep_live=keep_live,
                                     cache=cache, profile=profile)


def _describe(order: Sequence[Any], profile: bool) -> str:
    """``profiling, 12 nodes: Elemwise, Dot, ...`` (cache records and progress lines)."""
    return ("profiling, " if profile else "") + f"{len(order)} nodes: " + ", ".join(
        dict.fromkeys(type(n.op).__name__ for n in order)
    )


def _compile_graph_module(
    fgraph: Any, order: Sequence[Any], *, openmp: bool, keep_live: set[Variable],
    cache: ModuleCache | None, profile: bool,
) -> tuple[Any, Any, list[str]]:
    ctx = EmitContext(openmp=openmp)
    codes, origins = [], []
    for k, node in enumerate(order):
        ctx.node_index = k
        code, origin = c_for_node(node, k, ctx)
        codes.append(code)
        origins.append(origin)
    msrc = build_module_source(fgraph, order, codes, ctx, keep_live, profile=profile)
    comp = compiler.find_compiler()
    extra = tuple(msrc.compile_args)
    flags = compiler.build_flags(openmp=openmp, extra=extra)
    libs = compiler.link_flags(msrc.libraries, msrc.lib_dirs)
    cache = default_cache() if cache is None else cache
    key = cache.make_key(msrc.source, comp.identity, " ".join(flags), " ".join(libs),
                         compiler.machine_identity(), *(("profile",) if profile else ()))

    def build(source: str, out_path: str) -> None:
        progress.building()
        log = f"{compiler.logs_dir()}/{key[:24]}.log"
        # the prelude's includes, precompiled once; the same text, so not in the key
        pch = compiler.precompiled_header(comp, flags, PRELUDE, cache.root)
        if pch is None:
            compiler.compile_shared(comp, source, out_path, flags, libs, log)
            return
        try:
            compiler.compile_shared(comp, source, out_path,
                                    (*flags, "-include", pch, "-Winvalid-pch"), libs, log)
        except compiler.CompileError:
            # a header removed by `cache clear` meanwhile, or a damaged one: without it
            compiler.compile_shared(comp, source, out_path, flags, libs, log)
            compiler.discard_precompiled_header(pch, cache.root)

    try:
        module = cache.get(key, msrc.source, build, _describe(order, profile)[:200])
    except ImportError as exc:  # built, but will not load (e.g. an undefined symbol)
        log = f"{compiler.logs_dir()}/{key[:24]}.log"
        compiler.write_log(log, ["import", cache.module_name(key)], str(exc), msrc.source)
        raise compiler.CompileError(
            f"the C module built for this graph cannot be loaded: {exc}\n"
            f"full message and source: {log}", log
        ) from exc
    return module, msrc, origins


class CLinker(Linker):
    """PyTensor's ``CLinker`` role: one compiled module runs the whole graph.

    Options: ``allow_gc`` (free intermediates after their last use; when
    False their buffers are reused by the next call), ``openmp`` (threads for
    large element loops; default from ``config.openmp``).
    """

    name = "c"
    #: after make_thunk: positions of the graph inputs whose unaligned values the
    #: compiled module refuses itself (og_check), so the function's call path need not
    #: test ``flags.aligned`` on every call
    alignment_checked_inputs: frozenset[int] = frozenset()

    def __init__(self, *, allow_gc: bool = True, openmp: bool | None = None,
                 **options: Any) -> None:
        super().__init__(allow_gc=allow_gc, openmp=openmp, **options)
        if openmp is None:
            from opgraph.config import config

            openmp = config.openmp
        self.openmp = bool(openmp)
        # after make_thunk: the compiled module and its C source, for inspection
        self.module: Any = None
        self.module_source: str | None = None

    def make_thunk(
        self,
        input_storage: Sequence[StorageCell] | None = None,
        output_storage: Sequence[StorageCell] | None = None,
        storage_map: dict[Variable, StorageCell] | None = None,
    ) -> LinkerResult:
        fgraph, order, input_storage, output_storage, storage_map = self.schedule(
            input_storage, output_storage, storage_map
        )
        keep_live: set[Variable] = set()
        if not self.allow_gc:
            keep_live = {v for node in order for v in node.outputs}
        profiled = self.profile is not None
        with progress.compiling(1):
            module, msrc, origins = compile_graph_module(
                fgraph, order, openmp=self.openmp, keep_live=keep_live, profile=profiled
            )
        self.module, self.module_source = module, msrc.source
        self.alignment_checked_inputs = frozenset(
            k for k, var in enumerate(fgraph.inputs) if is_checked_tensor(var))
        layout = msrc.layout
        compute_map = {v: [True] for v in storage_map}
        no_recycling = [v for v in self.no_recycling if v in storage_map]
        thunks = tuple(
            _python_thunk(node, storage_map, compute_map, no_recycling)
            if origin == "python" else None
            for node, origin in zip(order, origins)
        )
        n_vars = len(layout.index)
        cells: list[Any] = [None] * n_vars
        for var, k in layout.index.items():
            cells[k] = storage_map.get(var)
            if cells[k] is None:
                cells[k] = storage_map[var] = [None]
        modes = bytearray(n_vars)
        recycle_blocked = set(self.no_recycling)  # outputs: the C checks the refcount
        outputs = list(fgraph.outputs)
        origin_of = dict(zip(order, origins))
        for var, k in layout.index.items():
            if var.owner is None or isinstance(var, Constant):
                continue
            if var in outputs and var not in recycle_blocked and outputs.count(var) == 1:
                modes[k] = 2  # borrowed: the previous result's buffer is written again
            elif not self.allow_gc:
                modes[k] = 1
            elif _alias_kind(var) == "view":
                # a view made by C keeps its (detached) header object for the next call
                modes[k] = 4 if origin_of[var.owner] != "python" else 0
            elif _alias_kind(var) is None:
                # a small intermediate keeps its buffer for the next call; it is reused only
                # when nothing else holds it (its refcount, less the output cells, is 1), so
                # never under a caller's view nor while the caller holds a result it became.
                # An in-place result is its input's buffer: that input's slot keeps it
                # (kept under both, each would see the other's reference and drop it)
                modes[k] = 3
        labels = tuple(_input_label(i, v) for i, v in enumerate(fgraph.inputs)) + tuple(
            f"output of {node.op} (node {k}, run in Python)" for k, node in enumerate(order)
        ) + tuple(str(node.op) for node in order)

        def on_error(exc: BaseException, k: int) -> None:
            if exc is not None and 0 <= k < len(order):
                raise_with_op(exc, order[k], storage_map)

        extra: tuple[Any, ...] = ()
        if profiled:
            # row 0 seconds, row 1 calls, per node; the C adds to it in place
            timings = np.zeros((2, len(order)))
            extra = (timings,)
        run = module.bind(
            tuple(input_storage),
            tuple(output_storage),
            constant_values(layout),
            thunks,
            tuple(cells),
            on_error,
            labels,
            msrc.params,
            bytes(modes),
            pool_handler(module),
            *extra,
        )
        if profiled:
            self.profile.add_node_timers(order, extra[0][0], extra[0][1])
        step_thunks = [t if t is not None else run for t in thunks]
        return LinkerResult(run, list(input_storage), list(output_storage), step_thunks, order)


def _alias_kind(var: Variable) -> str | None:
    """"inplace" or "view" when ``var`` is (a view of) one of its node's inputs' memory."""
    node = var.owner
    k = node.outputs.index(var)
    op = node.op
    if getattr(op, "destroy_map", {}).get(k):
        return "inplace"
    if getattr(op, "view_map", {}).get(k):
        return "view"
    return None


def _input_label(i: int, var: Variable) -> str:
    return f"input {i} ({var.name!r})" if var.name else f"input {i} (unnamed)"


def c_origins(fn: Any) -> list[str]:  # pragma: no cover - debugging helper
    """Where each node's code came from, for a Function compiled with linker "c"."""
    return list(getattr(fn, "origins", []))
