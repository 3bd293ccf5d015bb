"""Every configuration flag, with its default and validation, and the global ``config``.

The names are PyTensor 3.0.7's, so settings written for PyTensor
(``OPGRAPH_FLAGS="floatX=float32,on_unused_input=ignore"``, an rc file) are
accepted; the flags opgraph acts on are listed in ``docs/config.md``; the
others are accepted, validated, stored and reported, with no effect.  A few
flags are opgraph's own (``disable_plugins``, ``strict_plugins``,
``compile_cache_max_mb``).

Flags are added by :func:`add_all_flags`, which makes new parameter objects
each time, so :func:`build_config` can build an independent parser (for
tests, or to inspect another environment) without touching the global one.
"""

from __future__ import annotations

import functools
import importlib
import os
import platform
import re
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from opgraph._version import __version__ as _opgraph_version
from opgraph.configparser import (
    FLAGS_ENV,
    BoolParam,
    ConfigParam,
    EnumStr,
    FloatParam,
    IntParam,
    NamesParam,
    OpgraphConfigParser,
    StrParam,
    _ChangeFlagsDecorator,
    config_files_from_opgraphrc,
    parse_config_string,
    read_rc_files,
)
from opgraph.factcache import cached_machine_fact, uname_key

__all__ = [
    "DISABLE_PLUGINS_ENV",
    "MODE_NAMES",
    "STRICT_PLUGINS_ENV",
    "add_all_flags",
    "build_config",
    "change_flags",
    "config",
    "short_platform",
]

DISABLE_PLUGINS_ENV = "OPGRAPH_DISABLE_PLUGINS"
STRICT_PLUGINS_ENV = "OPGRAPH_STRICT_PLUGINS"

MODE_NAMES = (
    "FAST_RUN",
    "FAST_COMPILE",
    "Mode",
    "DebugMode",
    "DEBUG_MODE",
    "NanGuardMode",
    "CVM",
    "C",
    "JAX",
    "NUMBA",
    "PYTORCH",
    "MLX",
)
"""Mode names ``config.mode`` accepts (whether one compiles depends on the installed plugins)."""

LINKER_NAMES = (
    "auto", "cvm", "c|py", "py", "c", "c|py_nogc", "vm", "vm_nogc", "cvm_nogc", "numba", "jax",
)
"""PyTensor's linker names; ``config.linker`` also accepts any name a plugin registers."""


# --- filters (apply functions) -----------------------------------------------------------------


def _is_mode_like(value: Any) -> bool:
    """A Mode object, recognised by the methods every Mode has (config may not import compile)."""
    cls = type(value)
    return all(callable(getattr(cls, attr, None)) for attr in ("including", "excluding", "clone"))


def _filter_mode(value: Any) -> Any:
    """``config.mode``: a known mode name or a Mode instance."""
    if isinstance(value, str) and value.strip() in MODE_NAMES:
        return value.strip()
    if not isinstance(value, str) and _is_mode_like(value):
        return value
    raise ValueError(
        f"Invalid value ({value!r}) for configuration variable 'mode'. "
        f"Expected one of {list(MODE_NAMES)}, or a Mode instance"
    )


def _filter_linker(value: Any) -> str:
    """``config.linker``: PyTensor's names, or any non-empty name a plugin may provide."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise ValueError(
        f"Invalid value ({value!r}) for configuration variable 'linker': expected a linker "
        f"name such as {', '.join(LINKER_NAMES)}"
    )


def _filter_vm_lazy(value: Any) -> bool | None:
    """``vm__lazy``: None (decide per graph), True or False."""
    table = {"None": None, "True": True, "False": False}
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip() in table:
        return table[value.strip()]
    raise ValueError(
        f"Invalid value ({value!r}) for configuration variable 'vm__lazy': "
        f"expected None, True or False"
    )


def _filter_base_compiledir(path: str | os.PathLike[str]) -> Path:
    """``base_compiledir``: the path with ``~`` expanded."""
    return Path(path).expanduser()


def _filter_compiledir(path: str | os.PathLike[str]) -> Path:
    """``compiledir``: an absolute real path, created when missing.

    A path that cannot be used (read-only, a file) is accepted here, never an
    error at import: the compile cache warns once and uses a per-process
    temporary directory instead (docs/c_linker.md, "The compile cache").
    """
    resolved = Path(path).expanduser().resolve()
    if not resolved.exists():
        try:
            resolved.mkdir(mode=0o770, parents=True, exist_ok=True)
        except OSError:
            pass  # reported by the cache that would use it
    return resolved


_COMPILEDIR_KEYS = (
    "platform", "short_platform", "processor", "python_version", "python_bitwidth",
    "python_int_bitwidth", "opgraph_version", "pytensor_version", "numpy_version",
    "gxx_version", "hostname",
)
_DEFAULT_COMPILEDIR_FORMAT = (
    "compiledir_%(short_platform)s-%(processor)s-%(python_version)s-%(python_bitwidth)s"
)


def _check_compiledir_format(fmt: str) -> bool:
    """The format may only name the keys :class:`_CompiledirValues` provides."""
    try:
        fmt % dict.fromkeys(_COMPILEDIR_KEYS, "")
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(
            f"Invalid value ({fmt!r}) for configuration variable 'compiledir_format': "
            f"{exc!r}; the keys available are {', '.join(_COMPILEDIR_KEYS)}"
        ) from None
    return True


def short_platform(r: str | None = None, p: str | None = None) -> str:
    """``platform.platform()`` without the kernel's patch level and build number.

    A kernel update then keeps the same compile directory: for release
    ``"3.2.0-70-generic"`` the ``"3.2.0-70"`` part of the platform string
    becomes ``"3.2-"``.  A string that does not look like ``X.Y.Z-N...`` is
    returned unchanged.
    """
    release = platform.release() if r is None else r
    plat = platform.platform() if p is None else p
    head, sep, tail = release.partition("-")
    numbers = head.split(".")
    if not sep or len(numbers) < 3:
        return plat
    parts = tail.split("-")
    pieces = parts[0].split(".")
    while pieces and pieces[0].isdigit():
        pieces.pop(0)
    short = "-".join([".".join(numbers[:2]), ".".join(pieces), *parts[1:]])
    return plat.replace(release, short)


def _numpy_version() -> str:
    # Only when a compiledir_format names it: loading NumPy is not a cost of `import config`.
    return str(importlib.import_module("numpy").__version__)


class _CompiledirValues(Mapping[str, str]):
    """The ``%(key)s`` values of ``compiledir_format``, each computed only if used."""

    def __init__(self, cfg: OpgraphConfigParser) -> None:
        self._cfg = cfg

    def __getitem__(self, key: str) -> str:
        cfg = self._cfg
        getters = {
            # platform() and processor() run `uname -p` (a subprocess): kept on disk
            "platform": lambda: self._fact("platform", platform.platform),
            "short_platform": lambda: short_platform(
                p=self._fact("platform", platform.platform)),
            "processor": lambda: self._fact("processor", platform.processor),
            "python_version": platform.python_version,
            "python_bitwidth": lambda: str(struct.calcsize("P") * 8),
            "python_int_bitwidth": lambda: str(sys.maxsize.bit_length() + 1),
            "opgraph_version": lambda: _opgraph_version,
            "pytensor_version": lambda: _opgraph_version,
            "numpy_version": _numpy_version,
            "gxx_version": lambda: str(cfg.gcc_version_str).replace(" ", "_"),
            "hostname": platform.node,
        }
        return str(getters[key]())

    def _fact(self, name: str, compute: Any) -> str:
        return cached_machine_fact(self._cfg.base_compiledir, f"{name}|{uname_key()}", compute)

    def __iter__(self) -> Iterator[str]:
        return iter(_COMPILEDIR_KEYS)

    def __len__(self) -> int:
        return len(_COMPILEDIR_KEYS)


def _default_compiledir(cfg: OpgraphConfigParser) -> Path:
    name = cfg.compiledir_format % _CompiledirValues(cfg)
    return Path(cfg.base_compiledir) / re.sub(r"[()\s,]+", "_", name)


def _default_base_compiledir() -> Path:
    return Path("~", ".cache", "opgraph").expanduser()


def _default_cxx() -> str:
    """``$CC`` if set, else the compiler the C plugin would find (as PyTensor reports it).

    Code written for PyTensor reads ``if config.cxx:`` as "a C compiler is
    available"; '' (no compiler found, or set explicitly) lets the C plugin look.
    """
    given = os.environ.get("CC", "").strip()
    if given:
        return given
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return found
    return ""


def _gcc_version(cfg: OpgraphConfigParser) -> str:
    compiler = cfg.cxx or shutil.which("g++") or shutil.which("c++") or ""
    if not compiler:
        return "NO_GCC"
    try:
        out = subprocess.run(
            [compiler, "-dumpversion"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return "NO_GCC"
    return out.stdout.strip() or "NO_GCC"


def _compile_timeout(cfg: OpgraphConfigParser) -> int:
    return int(cfg.compile__wait) * 24


_PREALLOC_CHOICES = frozenset(
    {"initial", "previous", "c_contiguous", "f_contiguous", "strided", "wrong_size", "ALL", ""}
)


def _check_prealloc(value: str) -> bool:
    return all(part in _PREALLOC_CHOICES for part in value.split(":"))


def _is_positive(value: float) -> bool:
    return value > 0


def _is_non_negative(value: float) -> bool:
    return value >= 0


def _at_least_minus_one(value: int) -> bool:
    return value >= -1


# --- the flags ---------------------------------------------------------------------------------
# (name, doc, parameter factory, in_c_key).  A factory, not a parameter: each parser
# gets fresh parameter objects, because the value lives in the parameter.


def _basic_flags(cfg: OpgraphConfigParser) -> None:
    add = cfg.add
    add("floatX", "Default float dtype: of Python float constants and of constructors "
        "given dtype 'floatX' or none (`tensor.matrix()`).",
        EnumStr("float64", ["float32", "float16"]), in_c_key=True)
    add("warn_float64", "What to do when a float64 tensor variable is created: ignore, "
        "warn, raise or pdb (useful to hunt float64 in float32 code).",
        EnumStr("ignore", ["warn", "raise", "pdb"]), in_c_key=False)
    add("cast_policy", "PyTensor's rule for the dtype of Python numbers: 'custom' or "
        "'numpy+floatX' (accepted; opgraph's own rule is in docs/migrating.md).",
        EnumStr("custom", ["numpy+floatX"]), in_c_key=False)
    add("print_global_stats", "Print compile-time totals when the process exits.",
        BoolParam(False), in_c_key=False)
    add("unpickle_function", "Unpickle compiled functions (False: they unpickle as None).",
        BoolParam(True), in_c_key=False)
    add("mode", "Default compilation mode: a mode name or a Mode instance.",
        ConfigParam("FAST_RUN", apply=_filter_mode), in_c_key=False)
    add("linker", "Linker for the default mode; 'auto' uses the mode's preference list.",
        ConfigParam("auto", apply=_filter_linker), in_c_key=False)
    add("allow_gc", "Let the VM free intermediate results once they are no longer needed "
        "(False: keep them, faster repeated calls, more memory).",
        BoolParam(True), in_c_key=False)
    add("optimizer", "Rewrites a Mode uses when not told otherwise: fast_run (o4), "
        "fast_compile (o1), merge, unsafe, o2, o3 or None (no rewrites).",
        EnumStr("o4", ["o3", "o2", "o1", "unsafe", "fast_run", "fast_compile", "merge",
                       "None"]), in_c_key=False)
    add("optimizer_verbose", "Print each rewrite that changes a graph.",
        BoolParam(False), in_c_key=False)
    add("optimizer_verbose_ignore", "Comma-separated rewrite names optimizer_verbose "
        "does not print.", StrParam(""), in_c_key=False)
    add("compiler_verbose", "Print information about compilation steps.",
        BoolParam(False), in_c_key=False)
    add("on_opt_error", "What to do when a rewrite raises: warn (and skip it), raise, "
        "ignore, or pdb.", EnumStr("warn", ["raise", "pdb", "ignore"]), in_c_key=False)
    add("on_unused_input", "What function() does with an input the outputs do not use: "
        "raise, warn or ignore.", EnumStr("raise", ["warn", "ignore"]), in_c_key=False)
    add("compute_test_value", "Test values (computing each node on example inputs while "
        "the graph is built): off, ignore, warn, raise or pdb; see docs/config.md.",
        EnumStr("off", ["ignore", "warn", "raise", "pdb"]), in_c_key=False)
    add("on_shape_error", "What to do when shape inference finds inconsistent shapes: "
        "warn or raise.", EnumStr("warn", ["raise"]), in_c_key=False)
    add("cycle_detection", "How the destroy handler checks that inplace rewrites create no "
        "cycle: regular (always) or fast (skips some checks, can be faster).",
        EnumStr("regular", ["fast"]), in_c_key=False)
    add("check_stack_trace", "Check that rewrites copy creation stack traces: off, log, "
        "warn or raise.", EnumStr("off", ["log", "warn", "raise"]), in_c_key=False)
    add("exception_verbosity", "How much graph an error message shows: low, medium, high.",
        EnumStr("low", ["medium", "high"]), in_c_key=False)
    add("traceback__limit", "Frames of creation traceback kept on variables (-1: all, "
        "0: none).", IntParam(8, _at_least_minus_one), in_c_key=False)
    add("traceback__compile_limit", "Frames of compile-time traceback kept (0: none).",
        IntParam(0, _is_non_negative), in_c_key=False)
    add("warn__ignore_bug_before", "Do not warn about bugs fixed before this version.",
        EnumStr("0.9", ["None", "all", "0.3", "0.4", "0.4.1", "0.5", "0.6", "0.7", "0.8",
                        "0.8.1", "0.8.2", "0.9", "0.10", "1.0", "1.0.1", "1.0.2", "1.0.3",
                        "1.0.4", "1.0.5"], mutable=False), in_c_key=False)
    add("check_input", "Let compiled code check its inputs' types and shapes.",
        BoolParam(True), in_c_key=True)


def _compile_flags(cfg: OpgraphConfigParser) -> None:
    add = cfg.add
    add("cxx", "C++ compiler command for the C linker ('' lets the C plugin look for one).",
        StrParam(_default_cxx), in_c_key=False)
    add("gcc_version_str", "Version of the C++ compiler (detected on first read).",
        StrParam(functools.partial(_gcc_version, cfg), mutable=False), in_c_key=False)
    add("gcc__cxxflags", "Extra flags for the C++ compiler, as one shell-quoted string.",
        StrParam(""), in_c_key=False)
    add("openmp", "Let generated C code use OpenMP for large element-wise loops.",
        BoolParam(False), in_c_key=False)
    add("openmp_elemwise_minsize", "Smallest element-wise loop OpenMP parallelises.",
        IntParam(200000, _is_positive), in_c_key=False)
    add("blas__ldflags", "Linker flags of a BLAS library for C code ('' : use NumPy's).",
        StrParam(""), in_c_key=False)
    add("blas__check_openmp", "Check that the BLAS library's OpenMP use is consistent.",
        BoolParam(True), in_c_key=False)
    add("nocleanup", "Keep temporary compilation directories, for debugging.",
        BoolParam(False), in_c_key=False)
    add("cmodule__warn_no_version", "Warn when an Op with C code has no cache version.",
        BoolParam(False), in_c_key=False)
    add("fast_math", "Allow results that differ from NumPy's IEEE ones for inf, NaN or 0 "
        "inputs: algebraic rewrites assuming finite values (x/x -> 1, x*0 -> 0, ...), "
        "fused multiply-add contraction in C code, and subnormals flushed to zero while "
        "a C module runs.", BoolParam(False), in_c_key=True)
    add("cmodule__remove_gxx_opt", "Compile C code without -O flags (for debuggers).",
        BoolParam(False), in_c_key=True)
    add("cmodule__compilation_warning", "Show the compiler's warnings.",
        BoolParam(False), in_c_key=False)
    add("cmodule__preload_cache", "Load the whole compile cache's index at start-up.",
        BoolParam(False, mutable=False), in_c_key=False)
    add("cmodule__age_thresh_use", "Seconds after which an unused cache entry may be "
        "deleted.", IntParam(60 * 60 * 24 * 24, mutable=False), in_c_key=False)
    add("cmodule__debug", "Compile C code with debug information.",
        BoolParam(False), in_c_key=True)
    add("compile__wait", "Seconds to wait before retrying to take the compile lock.",
        IntParam(5, _is_positive, mutable=False), in_c_key=False)
    add("compile__timeout", "Seconds after which another process's compile lock counts "
        "as stale (0: never).", IntParam(functools.partial(_compile_timeout, cfg),
                                         _is_non_negative, mutable=False), in_c_key=False)
    add("compile_cache_max_mb", "Size limit of the C compile cache in MiB (0: no limit).",
        IntParam(1024, _is_non_negative), in_c_key=False)
    add("compile__progress", "Show what a compile that takes longer than "
        "compile__progress_delay seconds is doing (C modules done/total, cache hits) on "
        "stderr, when stderr is a terminal.", BoolParam(True), in_c_key=False)
    add("compile__progress_delay", "Seconds a compile runs before its progress is shown.",
        FloatParam(2.0, _is_non_negative), in_c_key=False)
    add("lib__amdlibm", "Use AMD's libm in C code.", BoolParam(False), in_c_key=False)
    add("tensor__cmp_sloppy", "Relax float comparisons in tests (0: strict, 1, 2: looser).",
        IntParam(0, _is_non_negative, mutable=False), in_c_key=False)
    add("tensor__insert_inplace_optimizer_validate_nb", "How many inplace candidates are "
        "validated together (-1: automatic).", IntParam(-1), in_c_key=False)
    add("compiledir_format", "Name of the compile directory inside base_compiledir; may use "
        + ", ".join(f"%({k})s" for k in _COMPILEDIR_KEYS) + ".",
        StrParam(_DEFAULT_COMPILEDIR_FORMAT, _check_compiledir_format, mutable=False),
        in_c_key=False)
    add("base_compiledir", "Directory holding compile directories.",
        ConfigParam(_default_base_compiledir(), apply=_filter_base_compiledir, mutable=False),
        in_c_key=False)
    add("compiledir", "Directory of the compile cache (default: base_compiledir/"
        "<compiledir_format>).",
        ConfigParam(functools.partial(_default_compiledir, cfg), apply=_filter_compiledir),
        in_c_key=False)


def _debug_flags(cfg: OpgraphConfigParser) -> None:
    add = cfg.add
    for name, doc in (
        ("nan_is_error", "NanGuardMode: a NaN is an error."),
        ("inf_is_error", "NanGuardMode: an infinity is an error."),
        ("big_is_error", "NanGuardMode: a very large value is an error."),
    ):
        add(f"NanGuardMode__{name}", doc, BoolParam(True), in_c_key=False)
    add("NanGuardMode__action", "What NanGuardMode does on a bad value: raise, warn, pdb.",
        EnumStr("raise", ["warn", "pdb"]), in_c_key=False)
    add("DebugMode__patience", "DebugMode: how many times to re-run each check.",
        IntParam(10, _is_positive), in_c_key=False)
    add("DebugMode__check_c", "DebugMode: check C implementations.", BoolParam(True),
        in_c_key=False)
    add("DebugMode__check_py", "DebugMode: check Python implementations.", BoolParam(True),
        in_c_key=False)
    add("DebugMode__check_finite", "DebugMode: NaN and inf are errors.", BoolParam(True),
        in_c_key=False)
    add("DebugMode__check_strides", "DebugMode: 0 no check, 1 warn, 2 raise on strides "
        "that differ between implementations.", IntParam(0, _is_non_negative),
        in_c_key=False)
    add("DebugMode__warn_input_not_reused", "DebugMode: warn when an Op that could work "
        "inplace does not.", BoolParam(True), in_c_key=False)
    add("DebugMode__check_preallocated_output", "DebugMode: ':'-separated kinds of "
        "preallocated output to test (initial, previous, c_contiguous, f_contiguous, "
        "strided, wrong_size, ALL).", StrParam("", _check_prealloc), in_c_key=False)
    add("DebugMode__check_preallocated_output_ndim", "DebugMode: largest ndim tested with "
        "preallocated outputs.", IntParam(4, _is_positive), in_c_key=False)


def _profiling_flags(cfg: OpgraphConfigParser) -> None:
    add = cfg.add
    add("profile", "Profile compiled functions (time per node and per Op).",
        BoolParam(False), in_c_key=False)
    add("profile_optimizer", "Profile the rewrites run at compile time.",
        BoolParam(False), in_c_key=False)
    add("profile_memory", "Profile memory use of compiled functions.",
        BoolParam(False), in_c_key=False)
    add("profiling__time_thunks", "Time each node separately when profiling.",
        BoolParam(True), in_c_key=False)
    add("profiling__n_apply", "Nodes shown in a profile.", IntParam(20, _is_positive),
        in_c_key=False)
    add("profiling__n_ops", "Ops shown in a profile.", IntParam(20, _is_positive),
        in_c_key=False)
    add("profiling__output_line_width", "Width of profile lines.",
        IntParam(512, _is_positive), in_c_key=False)
    add("profiling__min_memory_size", "Smallest output (bytes) a memory profile lists.",
        IntParam(1024, _is_non_negative), in_c_key=False)
    add("profiling__min_peak_memory", "Show the minimal peak memory of the profiled graph.",
        BoolParam(False), in_c_key=False)
    add("profiling__destination", "Where profiles go: stderr, stdout or a file name.",
        StrParam("stderr"), in_c_key=False)
    add("profiling__debugprint", "Print the profiled graph with debugprint.",
        BoolParam(False), in_c_key=False)
    add("profiling__ignore_first_call", "Leave the first call out of a profile.",
        BoolParam(False), in_c_key=False)


def _rewrite_flags(cfg: OpgraphConfigParser) -> None:
    add = cfg.add
    add("optimizer_excluding", "Rewrite tags every mode excludes (':'-separated, or a "
        "sequence).", NamesParam(()), in_c_key=False)
    add("optimizer_including", "Rewrite tags every mode also includes.", NamesParam(()),
        in_c_key=False)
    add("optimizer_requiring", "Rewrite tags every mode requires.", NamesParam(()),
        in_c_key=False)
    add("optdb__position_cutoff", "Skip rewrite phases positioned after this number.",
        FloatParam(float("inf")), in_c_key=False)
    add("optdb__max_use_ratio", "An equilibrium rewriter stops after this many rewrites "
        "per node.", FloatParam(8.0, _is_positive), in_c_key=False)
    add("vm__lazy", "Lazy evaluation in the VM (for IfElse): None (when the graph needs "
        "it), True or False.", ConfigParam("None", apply=_filter_vm_lazy), in_c_key=False)
    add("scan__allow_gc", "Let Scan free intermediate results between iterations.",
        BoolParam(False), in_c_key=False)
    add("scan__allow_output_prealloc", "Let Scan preallocate its outputs.",
        BoolParam(True, mutable=False), in_c_key=False)
    add("numba__fastmath", "Numba back end: fastmath (accepted; opgraph has no Numba "
        "back end).", BoolParam(True), in_c_key=False)
    add("numba__cache", "Numba back end: cache compiled functions (accepted; no effect).",
        BoolParam(True), in_c_key=False)


def _plugin_flags(cfg: OpgraphConfigParser) -> None:
    add = cfg.add
    add("disable_plugins", "Plugin names not to load (also from OPGRAPH_DISABLE_PLUGINS).",
        NamesParam(()), in_c_key=False)
    add("strict_plugins", "Make a plugin that fails to load fatal (also "
        "OPGRAPH_STRICT_PLUGINS=1).", BoolParam(False), in_c_key=False)


def add_all_flags(cfg: OpgraphConfigParser) -> None:
    """Register every flag on ``cfg`` (fresh parameter objects), reading user values."""
    _basic_flags(cfg)
    _compile_flags(cfg)
    _debug_flags(cfg)
    _profiling_flags(cfg)
    _rewrite_flags(cfg)
    _plugin_flags(cfg)


def _flags_from_env(env: Mapping[str, str]) -> dict[str, str]:
    flags = parse_config_string(env.get(FLAGS_ENV, ""), source=FLAGS_ENV)
    disabled = env.get(DISABLE_PLUGINS_ENV, "").strip()
    if disabled:
        flags["disable_plugins"] = ":".join(
            part for part in (flags.get("disable_plugins", ""), disabled) if part
        )
    strict = env.get(STRICT_PLUGINS_ENV, "").strip()
    if strict:
        flags["strict_plugins"] = _env_bool(STRICT_PLUGINS_ENV, strict)
    return flags


_TRUE = {"1", "true", "yes", "on", "y", "t"}
_FALSE = {"0", "false", "no", "off", "n", "f"}


def _env_bool(name: str, text: str) -> str:
    """``"True"``/``"False"`` for a boolean environment variable, or a ValueError naming it."""
    low = text.lower()
    if low in _TRUE:
        return "True"
    if low in _FALSE:
        return "False"
    raise ValueError(f"environment variable {name}={text!r} is not a boolean: set it to 1 "
                     "(or true/yes/on) or 0 (or false/no/off), or unset it")


def build_config(environ: Mapping[str, str] | None = None, *, read_rc: bool = True
                 ) -> OpgraphConfigParser:
    """A new parser with every flag, read from ``environ`` (default ``os.environ``).

    Unknown flag names warn, naming them; a bad value for a known flag
    raises ``ValueError`` naming the flag.
    """
    env = os.environ if environ is None else environ
    paths = config_files_from_opgraphrc(env) if read_rc else []
    rc, raw = read_rc_files(paths, env)
    cfg = OpgraphConfigParser(_flags_from_env(env), rc, raw)
    add_all_flags(cfg)
    cfg.warn_unused_flags()
    return cfg


config: OpgraphConfigParser = build_config()
"""The process-wide configuration, read once from the environment and rc files at import."""


def change_flags(*args: Mapping[str, Any], **kwargs: Any) -> _ChangeFlagsDecorator:
    """Temporarily set flags on the global :data:`config` (context manager or decorator).

    ``with change_flags(floatX="float32"):``; dotted names go in a mapping:
    ``change_flags({"traceback.limit": 2})``.
    """
    return _ChangeFlagsDecorator(*args, _root=config, **kwargs)
