"""How many of PyTensor's public names exist in opgraph at the same path.

Two steps, two interpreters:

    # 1. with PyTensor installed (a scratch venv): list its public names per module
    /path/to/pytensor-venv/bin/python tools/public_names.py dump > tools/pytensor_public_names.json
    # 2. with opgraph and its plugins installed: resolve each at opgraph's same path
    python tools/public_names.py check tools/pytensor_public_names.json [--missing]

A module's public names are its ``__all__`` when it declares one; else, for a
plain module, the names without a leading underscore that its source binds at
top level (``def``, ``class``, assignments: what it defines, not what it
imports); for a package's ``__init__``, every name without a leading
underscore whose value is a PyTensor class, function or object or a builtin
value (packages re-export on purpose).
Modules of backends opgraph deliberately does not have (``link.numba``,
``link.pytorch``, ``link.mlx``), the C module cache internals (``link.c.*`` but
``link.c.op`` / ``link.c.type`` / ``link.c.params_type``), the command-line
entry points (``bin``) and private modules are left out of the figure and
reported as such; docs/migrating.md says why.  Single names opgraph deliberately
builds differently are listed in :data:`EXCLUDED_NAMES` with the reason (also in
docs/migrating.md); ``check`` leaves them and the modules of :data:`EXCLUDED` out
of the figure (so a prefix added there needs no new dump).  The list is data
(names only).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import sys
import types
import typing

SOURCE = "pytensor"
TARGET = "opgraph"

# module prefixes outside the figure, each with the reason docs/migrating.md gives
EXCLUDED: dict[str, str] = {
    "link.numba": "the Numba backend: opgraph has none",
    "link.pytorch": "the PyTorch backend: opgraph has none",
    "link.mlx": "the MLX backend: opgraph has none",
    "link.c.cmodule": "PyTensor's C module cache internals: opgraph-c builds modules differently",
    "link.c.cutils": "PyTensor's C module cache internals: opgraph-c builds modules differently",
    "link.c.lazylinker_c": "PyTensor's C VM: opgraph's VM is Python",
    "link.c.exceptions": "PyTensor's C module cache internals: opgraph-c builds them differently",
    "link.c.basic": "PyTensor's CLinker internals: opgraph-c generates C differently",
    "link.c.interface": "PyTensor's CLinker internals: opgraph-c generates C differently",
    "link.c.compile_lock": "PyTensor's C module cache internals",
    "bin": "PyTensor's command-line entry points (opgraph's CLI is `opgraph`)",
    "link.c.cvm": "PyTensor's C VM: opgraph's VM is Python",
    "compile.compiledir": "PyTensor's C module cache directory: opgraph-c keeps its own cache "
                          "(the `opgraph-c cache` command lists and purges it)",
    "tensor.elemwise_cgen": "PyTensor's C loop generator for Elemwise: opgraph-c generates its "
                            "loops differently",
    "tensor.blas_headers": "PyTensor's BLAS C headers: opgraph-c links BLAS differently",
    "misc.check_blas": "a PyTensor benchmark script (a program, not library code)",
    "misc.elemwise_openmp_speedup": "a PyTensor benchmark script (a program, not library code)",
    "misc.elemwise_time_test": "a PyTensor benchmark script (a program, not library code)",
    "d3viz.formatting": "pydot formatting of PyTensor's d3viz: opgraph's d3viz writes its page "
                        "itself, without pydot",
}


# single names outside the figure: (module relative to the package, names, reason)
_C_CODE = "PyTensor's C code generation interface: opgraph-c generates and links C differently"
EXCLUDED_NAMES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("configdefaults", ("add_basic_configvars", "add_c_compile_configvars",
                        "add_caching_dir_configvars", "add_compile_configvars",
                        "add_error_and_warning_configvars", "add_multiprocessing_configvars",
                        "add_numba_configvars", "add_optimizer_configvars", "add_scan_configvars",
                        "add_tensor_configvars", "add_testvalue_and_checking_configvars",
                        "add_traceback_configvars", "add_vm_configvars"),
     "PyTensor's steps of building its config: opgraph declares its flags in its own groups "
     "(configdefaults.add_all_flags) on a config built once"),
    ("configparser", ("config_files_from_pytensorrc",),
     "renamed with the package: config_files_from_opgraphrc (OPGRAPHRC, ~/.opgraphrc)"),
    ("compile", ("register_deep_copy_op_c_code", "register_view_op_c_code"), _C_CODE),
    ("compile.ops", ("register_deep_copy_op_c_code", "register_view_op_c_code"), _C_CODE),
    ("tensor.shape", ("register_shape_c_code", "register_shape_i_c_code"), _C_CODE),
    ("link.c.op", ("CThunkWrapperType", "get_io_macros", "get_sub_macros",
                   "is_cthunk_wrapper_type", "lquote_macro"), _C_CODE),
    ("link.c.params_type", ("Params", "ParamsType", "c_cpp_keywords"), _C_CODE),
    ("link.c.type", ("CDataType", "CDataTypeConstant", "CEnumType", "EnumList", "EnumType"),
     _C_CODE),
    ("tensor.blas", ("GemmRelated", "ldflags"), _C_CODE),
    ("tensor.blas_c", ("BaseBLAS", "gemv_c_code", "ger_c_code"), _C_CODE),
    ("scalar.math", ("C_CODE_PATH",), _C_CODE),
    ("sparse.rewriting", ("local_csm_grad_c", "local_inplace_addsd_ccode", "local_sampling_dot_csr",
                          "local_usmm", "local_usmm_csc_dense_inplace"),
     "rewrites to PyTensor's sparse C kernels (Usmm, SamplingDotCSR, CSMGradC, AddSD's C "
     "code): opgraph-sparse computes these products with SciPy"),
    ("tensor.rewriting.math", ("local_0_dot_x", "local_elemwise_sub_zeros", "local_mul_zero",
                               "local_zero_div"),
     "they change IEEE results or drop a shape check: x * 0 -> 0 and 0 / x -> 0 (NaN for "
     "x = inf, 0), x - x -> 0 (NaN for inf), dot(0, y) -> zeros (shape_unsafe, NaN/inf in y "
     "lost); opgraph cancels float terms only under config.fast_math"),
    ("tensor.rewriting.shape", ("local_Shape_of_SpecifyShape", "local_specify_shape_alloc"),
     "they drop the shape assertion (shape(specify_shape(x, s)) -> s, specify_shape(alloc(v, "
     "s1), s2) -> alloc(v, s2)): opgraph keeps shape errors (docs/migrating.md)"),
    ("tensor.rewriting.subtensor", ("bool_idx_to_nonzero", "local_useless_inc_subtensor_alloc"),
     "they drop a shape check (a boolean mask of the wrong length; the alloc's lengths "
     "against the indexed part); bool_idx_to_nonzero serves PyTensor's Numba backend, which "
     "opgraph does not have"),
    ("typed_list.rewriting", ("typed_list_inplace_rewrite",),
     "opgraph's list Ops always return a new list: there is no in-place variant to switch to"),
)


def _excluded_names() -> dict[tuple[str, str], str]:
    return {(f"{TARGET}.{mod}" if mod else TARGET, name): why
            for mod, names, why in EXCLUDED_NAMES for name in names}


def _excluded(module: str) -> str | None:
    rel = module[len(SOURCE) + 1:]
    for prefix, why in EXCLUDED.items():
        if rel == prefix or rel.startswith(prefix + "."):
            return why
    if any(part.startswith("_") for part in module.split(".")):
        return "a private module"
    return None


def _own_name(module: types.ModuleType, name: str, value: object) -> bool:
    """Whether ``name`` is one of ``module``'s own public names (see the module docstring)."""
    if name.startswith("_") or isinstance(value, types.ModuleType):
        return False
    if getattr(typing, name, None) is value and value is not None:
        return False
    origin = getattr(value, "__module__", None)
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        return isinstance(origin, str) and origin.split(".")[0] == SOURCE
    kind = type(value).__module__.split(".")[0]
    return kind in (SOURCE, "builtins")


def _top_level_bound(tree: ast.Module) -> set[str]:
    """The names a module's top-level statements bind (also inside top-level if/try)."""
    bound: set[str] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                bound.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                pending.extend(getattr(node, field, []))
        elif isinstance(node, ast.ExceptHandler):
            pending.extend(node.body)
    return bound


def _public(module: types.ModuleType) -> list[str]:
    declared = getattr(module, "__all__", None)
    if declared is not None:
        return sorted({str(n) for n in declared if not str(n).startswith("_")})
    path = getattr(module, "__file__", None) or ""
    if path.endswith("__init__.py") or not path.endswith(".py"):
        return sorted(n for n, v in vars(module).items() if _own_name(module, n, v))
    with open(path, encoding="utf-8") as handle:
        bound = _top_level_bound(ast.parse(handle.read()))
    return sorted(n for n in bound if not n.startswith("_") and hasattr(module, n))


def dump() -> dict[str, object]:
    """Every PyTensor module with its public names (run where PyTensor is installed)."""
    import pkgutil

    package = importlib.import_module(SOURCE)
    modules: dict[str, list[str]] = {}
    excluded: dict[str, str] = {}
    names = [SOURCE] + [m.name for m in pkgutil.walk_packages(package.__path__, SOURCE + ".")]
    for name in sorted(names):
        why = _excluded(name) if name != SOURCE else None
        if why is not None:
            excluded[name] = why
            continue
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # an optional dependency missing: record it, go on
            excluded[name] = f"does not import under PyTensor here: {type(exc).__name__}"
            continue
        modules[name] = _public(module)
    return {"source": SOURCE, "modules": modules, "excluded": excluded}


def _resolves(module_name: str, name: str) -> bool:
    try:
        module = importlib.import_module(module_name)
    except Exception:  # a module that fails to import resolves nothing
        return False
    if hasattr(module, name):
        return True
    try:
        importlib.import_module(f"{module_name}.{name}")
    except Exception:  # not a submodule either
        return False
    return True


def check(listing: dict[str, object], show_missing: bool) -> tuple[int, int]:
    """Print per-module coverage; return (found, total)."""
    modules = typing.cast(dict[str, list[str]], listing["modules"])
    skipped_names = _excluded_names()
    found = total = left_out = 0
    for module, public in sorted(modules.items()):
        if _excluded(module) is not None:
            left_out += len(public)
            continue
        target = TARGET + module[len(SOURCE):]
        kept = [n for n in public if (target, n) not in skipped_names]
        left_out += len(public) - len(kept)
        public = kept
        missing = [n for n in public if not _resolves(target, n)]
        found += len(public) - len(missing)
        total += len(public)
        if missing:
            print(f"{target}: {len(public) - len(missing)}/{len(public)}")
            if show_missing:
                print("    " + " ".join(missing))
    excluded = typing.cast(dict[str, str], listing["excluded"])
    print(f"{len(excluded)} PyTensor modules outside the figure (see EXCLUDED)")
    print(f"{left_out} names of listed modules outside the figure (EXCLUDED, EXCLUDED_NAMES)")
    share = 100.0 * found / total if total else 100.0
    print(f"{found} of {total} public names at the same path ({share:.1f}%)")
    return found, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("dump", help="list PyTensor's public names as JSON (needs PyTensor)")
    checker = sub.add_parser("check", help="resolve a dumped listing in opgraph")
    checker.add_argument("listing", help="the JSON file `dump` wrote")
    checker.add_argument("--missing", action="store_true", help="name every missing name")
    checker.add_argument("--min", type=float, default=0.0, help="fail below this percentage")
    args = parser.parse_args(argv)
    if args.command == "dump":
        json.dump(dump(), sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    with open(args.listing, encoding="utf-8") as handle:
        found, total = check(json.load(handle), args.missing)
    return 0 if total == 0 or 100.0 * found / total >= args.min else 1


if __name__ == "__main__":
    sys.exit(main())
