"""opgraph.configparser and opgraph.configdefaults: PyTensor's configuration API."""

from __future__ import annotations

import configparser as stdlib_configparser
import pickle
import warnings
from pathlib import Path

import pytest

from opgraph import configdefaults, configparser
from opgraph.configparser import (
    BoolParam,
    ConfigAccessViolation,
    ConfigParam,
    DeviceParam,
    EnumStr,
    FloatParam,
    IntParam,
    NamesParam,
    OpgraphConfigParser,
    OpgraphConfigWarning,
    PyTensorConfigParser,
    StrParam,
    parse_config_string,
)


def _parser(flags: dict[str, str] | None = None, rc: str = "") -> OpgraphConfigParser:
    cfg = stdlib_configparser.ConfigParser()
    cfg.read_string(rc)
    raw = stdlib_configparser.RawConfigParser()
    raw.read_string(rc)
    return OpgraphConfigParser(flags or {}, cfg, raw)


def _is_small(value: int) -> bool:
    return value < 10


def test_pytensor_name_and_keywords() -> None:
    assert PyTensorConfigParser is OpgraphConfigParser
    p = PyTensorConfigParser(
        flags_dict={}, pytensor_cfg=stdlib_configparser.ConfigParser(),
        pytensor_raw_cfg=stdlib_configparser.RawConfigParser(),
    )
    p.add("some__flag", "doc", IntParam(3), in_c_key=False)
    assert p.some__flag == 3


def test_param_apply_validate_and_mutability() -> None:
    param = ConfigParam("X", apply=str.lower, validate=lambda v: v in ("x", "y"))
    assert param.default == "X" and not hasattr(param, "val")
    with pytest.raises(ValueError, match="Invalid value"):
        param.__set__(None, "z")
    assert not hasattr(param, "val")
    param.__set__(None, "Y")
    assert param.val == "y"
    frozen = ConfigParam("a", mutable=False)
    frozen.__set__(None, "a")
    with pytest.raises(ValueError, match="Can't change"):
        frozen.__set__(None, "b")


@pytest.mark.parametrize(
    ("param", "given", "expected"),
    [
        (BoolParam(False), "True", True),
        (BoolParam(False), 0, False),
        (BoolParam(False), "off", False),
        (IntParam(0), " 7 ", 7),
        (IntParam(0), 3.0, 3),
        (FloatParam(0.0), "inf", float("inf")),
        (FloatParam(0.0), 2, 2.0),
        (StrParam(""), 5, "5"),
        (StrParam(""), Path("/a"), "/a"),
        (NamesParam(), "a:b,c", ("a", "b", "c")),
        (NamesParam(), ["x", " "], ("x",)),
        (EnumStr("a", ["b"]), " b", "b"),
        (DeviceParam(), "cpu", "cpu"),
    ],
)
def test_typed_params_convert(param: ConfigParam, given: object, expected: object) -> None:
    assert param.apply(given) == expected


@pytest.mark.parametrize(
    ("param", "given"),
    [
        (BoolParam(False), "maybe"),
        (BoolParam(False), 2),
        (IntParam(0), True),
        (IntParam(0), 1.5),
        (IntParam(0), "x"),
        (FloatParam(0.0), "fast"),
        (StrParam(""), None),
        (NamesParam(), [1]),
        (EnumStr("a", ["b"]), "c"),
        (DeviceParam(), "cuda"),
    ],
)
def test_typed_params_refuse_with_invalid_value(param: ConfigParam, given: object) -> None:
    p = _parser()
    p.add("the_flag", "doc", param, in_c_key=False)
    with pytest.raises(ValueError, match=r"Invalid value.*'the_flag'"):
        param.apply(given)


def test_enumstr_options_must_be_strings() -> None:
    assert EnumStr("a", ["b", "c"]).all == {"a", "b", "c"}
    with pytest.raises(ValueError, match="Non-str value"):
        EnumStr("a", ["b", 3])  # type: ignore[list-item]


def test_add_reads_user_value_and_consumes_it() -> None:
    p = _parser({"mine": "5", "other": "1"})
    p.add("mine", "doc", IntParam(1, _is_small), in_c_key=False)
    assert p.mine == 5
    assert p.unknown_flags() == {"other": "1"}
    with pytest.raises(ValueError, match="Invalid value"):
        _parser({"mine": "50"}).add("mine", "doc", IntParam(1, _is_small), in_c_key=False)


def test_add_checks_a_plain_default_but_not_a_callable_one() -> None:
    p = _parser()
    with pytest.raises(ValueError, match="Invalid value"):
        p.add("bad", "doc", IntParam(50, _is_small), in_c_key=False)
    assert "bad" not in p.flag_names()
    calls: list[int] = []

    def late() -> int:
        calls.append(1)
        return 4

    p.add("lazy", "doc", IntParam(late), in_c_key=False)
    assert calls == []
    assert p.lazy == 4 and p.lazy == 4
    assert calls == [1]


def test_add_refuses_dots_duplicates_and_method_names() -> None:
    p = _parser()
    with pytest.raises(ValueError, match="Dot-based"):
        p.add("a.b", "doc", IntParam(1), in_c_key=False)
    p.add("a__b", "doc", IntParam(1), in_c_key=False)
    with pytest.raises(AttributeError, match="already taken"):
        p.add("a__b", "doc", IntParam(1), in_c_key=False)
    with pytest.raises(AttributeError, match="already taken"):
        p.add("change_flags", "doc", IntParam(1), in_c_key=False)
    with pytest.raises(TypeError, match="ConfigParam"):
        p.add("c", "doc", 3, in_c_key=False)  # type: ignore[arg-type]


def test_flags_of_one_parser_are_not_visible_on_another() -> None:
    first, second = _parser(), _parser()
    first.add("only_on_first", "doc", IntParam(1), in_c_key=False)
    assert not hasattr(second, "only_on_first")
    with pytest.raises(ConfigAccessViolation, match="different instance"):
        _ = second.only_on_first
    with pytest.raises(ConfigAccessViolation):
        first._config_var_dict["only_on_first"].__get__(second)
    assert not hasattr(configdefaults.config, "only_on_first")


def test_rc_file_sections_and_interpolation() -> None:
    rc = "[global]\nname = %(missing)s\n[traceback]\nlimit = 4\n"
    p = _parser(rc=rc)
    assert p.fetch_val_for_key("traceback__limit") == "4"
    assert p.fetch_val_for_key("name") == "%(missing)s"  # raw value when interpolation fails
    with pytest.raises(KeyError):
        p.fetch_val_for_key("absent")


def test_parse_config_string() -> None:
    assert parse_config_string(" a=1, b.c = x=y ,,a=2") == {"a": "2", "b__c": "x=y"}
    with pytest.warns(OpgraphConfigWarning, match="'lonely'"):
        assert parse_config_string("lonely,a=1") == {"a": "1"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parse_config_string("lonely", issue_warnings=False)


def test_rc_files_from_env(tmp_path: Path) -> None:
    env = {"OPGRAPHRC": f"{tmp_path / 'a'}:{tmp_path / 'b'}"}
    assert configparser.config_files_from_opgraphrc(env) == [tmp_path / "a", tmp_path / "b"]
    assert configparser.config_files_from_opgraphrc({})[0].name == ".opgraphrc"


def test_pickling_keeps_values_and_refuses_lambdas() -> None:
    cfg = configdefaults.build_config({"OPGRAPH_FLAGS": "floatX=float32"}, read_rc=False)
    restored = pickle.loads(pickle.dumps(cfg))
    assert restored.as_dict() == cfg.as_dict()
    assert restored.floatX == "float32"
    p = _parser()
    p.add("with_lambda", "doc", IntParam(1, lambda v: v > 0), in_c_key=False)
    with pytest.raises((AttributeError, pickle.PicklingError), match="lambda"):
        pickle.dumps(p)


def test_short_platform() -> None:
    short = configdefaults.short_platform
    assert short("5.15.0-91-generic", "Linux-5.15.0-91-generic-x86_64-with-glibc2.35") == (
        "Linux-5.15--generic-x86_64-with-glibc2.35"
    )
    assert short("4.18.0-477.10.1.el8_8.x86_64", "Linux-4.18.0-477.10.1.el8_8.x86_64-x86_64") == (
        "Linux-4.18-el8_8.x86_64-x86_64"
    )
    assert short("22.1.0", "macOS-13.0-arm64") == "macOS-13.0-arm64"  # no '-': unchanged
    assert short("6.1-rc1", "Linux-6.1-rc1-x86_64") == "Linux-6.1-rc1-x86_64"  # X.Y only


def test_filters(tmp_path: Path) -> None:
    assert configdefaults._filter_base_compiledir("~/x") == Path.home() / "x"
    target = tmp_path / "new" / "dir"
    assert configdefaults._filter_compiledir(str(target)) == target
    assert target.is_dir()
    a_file = tmp_path / "a-file"
    a_file.write_text("keep")
    # not a usable directory: accepted (the compile cache warns and falls back), never an error
    assert configdefaults._filter_compiledir(str(a_file)) == a_file
    assert configdefaults._filter_compiledir(str(a_file / "sub")) == a_file / "sub"
    assert a_file.read_text() == "keep"
    assert configdefaults._filter_mode("FAST_COMPILE") == "FAST_COMPILE"
    with pytest.raises(ValueError, match="Expected one of"):
        configdefaults._filter_mode("fast")
    with pytest.raises(ValueError, match="Expected one of"):
        configdefaults._filter_mode(3)
    assert configdefaults._filter_vm_lazy("None") is None
    assert configdefaults._filter_vm_lazy("False") is False
    with pytest.raises(ValueError, match="vm__lazy"):
        configdefaults._filter_vm_lazy("sometimes")


def test_compiledir_format_is_checked() -> None:
    with pytest.raises(ValueError, match="compiledir_format"):
        configdefaults.build_config(
            {"OPGRAPH_FLAGS": "compiledir_format=%(nope)s"}, read_rc=False
        )


def test_every_pytensor_flag_exists() -> None:
    # PyTensor 3.0.7's flag names (opgraph adds a few of its own).
    pytensor_flags = {
        "floatX", "warn_float64", "cast_policy", "print_global_stats", "unpickle_function",
        "mode", "linker", "allow_gc", "optimizer", "optimizer_verbose",
        "optimizer_verbose_ignore", "compiler_verbose", "on_opt_error", "on_unused_input",
        "cxx", "gcc_version_str", "gcc__cxxflags", "nocleanup", "cmodule__warn_no_version",
        "cmodule__remove_gxx_opt", "cmodule__compilation_warning", "cmodule__preload_cache",
        "cmodule__age_thresh_use", "cmodule__debug", "compile__wait", "compile__timeout",
        "tensor__cmp_sloppy", "lib__amdlibm", "tensor__insert_inplace_optimizer_validate_nb",
        "traceback__limit", "traceback__compile_limit", "warn__ignore_bug_before",
        "exception_verbosity", "check_input", "NanGuardMode__nan_is_error",
        "NanGuardMode__inf_is_error", "NanGuardMode__big_is_error", "NanGuardMode__action",
        "DebugMode__patience", "DebugMode__check_c", "DebugMode__check_py",
        "DebugMode__check_finite", "DebugMode__check_strides",
        "DebugMode__warn_input_not_reused", "DebugMode__check_preallocated_output",
        "DebugMode__check_preallocated_output_ndim", "profiling__time_thunks",
        "profiling__n_apply", "profiling__n_ops", "profiling__output_line_width",
        "profiling__min_memory_size", "profiling__min_peak_memory", "profiling__destination",
        "profiling__debugprint", "profiling__ignore_first_call", "on_shape_error", "openmp",
        "openmp_elemwise_minsize", "optimizer_excluding", "optimizer_including",
        "optimizer_requiring", "optdb__position_cutoff", "optdb__max_use_ratio",
        "cycle_detection", "check_stack_trace", "profile", "profile_optimizer",
        "profile_memory", "vm__lazy", "numba__fastmath", "numba__cache", "compiledir_format",
        "base_compiledir", "compiledir", "blas__ldflags", "blas__check_openmp",
        "scan__allow_gc", "scan__allow_output_prealloc",
    }
    assert len(pytensor_flags) == 78
    assert pytensor_flags <= set(configdefaults.config.flag_names())
    for name in pytensor_flags:  # every default is valid and readable
        getattr(configdefaults.config, name)
