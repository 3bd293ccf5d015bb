"""Configuration flags: environment parsing, validation, change_flags."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import opgraph
from opgraph.config import UNKNOWN_FLAGS, Config, change_flags, config, parse_flags


def test_defaults() -> None:
    cfg = Config.from_env({})
    assert cfg.floatX == "float64"
    assert cfg.mode == "FAST_RUN"
    assert cfg.linker == "auto"
    assert cfg.traceback__limit == 8
    assert cfg.optimizer_excluding == ()
    assert cfg.disable_plugins == ()
    assert cfg.strict_plugins is False
    assert cfg.on_opt_error == "warn"
    assert cfg.compiledir.endswith("opgraph")


def test_env_flags_are_parsed_and_typed() -> None:
    cfg = Config.from_env(
        {
            "OPGRAPH_FLAGS": (
                "floatX=float32, mode=FAST_COMPILE,compiledir=/tmp/x,traceback.limit=3,"
                "optimizer_excluding=fusion:inplace,openmp=true,compile_cache_max_mb=5"
            ),
            "OPGRAPH_DISABLE_PLUGINS": "opgraph-c, other",
            "OPGRAPH_STRICT_PLUGINS": "1",
        }
    )
    assert cfg.floatX == "float32"
    assert cfg.mode == "FAST_COMPILE"
    assert cfg.compiledir == "/tmp/x"
    assert cfg.traceback__limit == 3
    assert cfg.optimizer_excluding == ("fusion", "inplace")
    assert cfg.openmp is True
    assert cfg.compile_cache_max_mb == 5
    assert cfg.disable_plugins == ("opgraph-c", "other")
    assert cfg.strict_plugins is True


def test_cc_env_sets_default_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "clang")
    assert Config.from_env({}).cxx == "clang"


def test_env_unknown_flag_warns_naming_it_and_is_kept() -> None:
    with pytest.warns(UserWarning, match="'floatx' is not known"):
        cfg = Config.from_env({"OPGRAPH_FLAGS": "floatx=float32"})
    assert cfg.floatX == "float64"
    assert UNKNOWN_FLAGS["floatx"] == "float32"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("floatX=float8", ["floatX", "float8", "float32"]),
        ("traceback__limit=many", ["traceback__limit", "integer", "many"]),
        ("openmp=perhaps", ["openmp", "boolean", "perhaps"]),
        ("mode", ["name=value"]),
    ],
)
def test_env_bad_value_names_flag_expected_and_given(text: str, words: list[str]) -> None:
    with pytest.raises(ValueError) as info:
        parse_flags(text)
    for word in words:
        assert word in str(info.value)


def test_set_validates_and_leaves_config_unchanged_on_error() -> None:
    cfg = Config.from_env({})
    before = cfg.as_dict()
    with pytest.raises(ValueError, match="floatX"):
        cfg.floatX = "float8"
    with pytest.raises(TypeError, match=r"traceback__limit.*integer.*True"):
        cfg.traceback__limit = True
    with pytest.raises(TypeError, match="openmp"):
        cfg.openmp = 1
    with pytest.raises(AttributeError, match="unknown config flag 'flaotX'"):
        cfg.flaotX = "float32"
    assert cfg.as_dict() == before


def test_strings_are_coerced_like_env_values() -> None:
    cfg = Config.from_env({})
    cfg.traceback__limit = "4"
    cfg.openmp = "yes"
    cfg.optimizer_including = "a,b:c"
    assert (cfg.traceback__limit, cfg.openmp) == (4, True)
    assert cfg.optimizer_including == ("a", "b", "c")
    cfg.optimizer_including = ["x"]
    assert cfg.optimizer_including == ("x",)


def test_dotted_alias() -> None:
    cfg = Config.from_env({})
    setattr(cfg, "traceback.limit", 2)
    assert getattr(cfg, "traceback.limit") == 2 == cfg.traceback__limit


def test_unknown_flag_read_is_clear() -> None:
    with pytest.raises(AttributeError, match="valid flags"):
        _ = config.no_such_flag


def test_change_flags_restores_after_error() -> None:
    old, old_limit = config.floatX, config.traceback__limit
    with pytest.raises(RuntimeError), change_flags(floatX="float16", traceback__limit=1):
        assert config.floatX == "float16"
        assert config.traceback__limit == 1
        raise RuntimeError("boom")
    assert config.floatX == old
    assert config.traceback__limit == old_limit


def test_change_flags_is_all_or_nothing() -> None:
    before = config.as_dict()
    with pytest.raises(ValueError), change_flags(floatX="float32", on_opt_error="explode"):
        pass
    with pytest.raises(AttributeError), change_flags(floatX="float32", bogus=1):
        pass
    assert config.as_dict() == before


def test_change_flags_as_decorator_and_nested() -> None:
    old = config.floatX

    @change_flags({"floatX": "float32"})
    def inner() -> str:
        with config.change_flags(floatX="float16"):
            assert config.floatX == "float16"
        return config.floatX

    assert inner() == "float32"
    assert inner() == "float32"  # reusable
    assert config.floatX == old


def test_module_and_instance_are_interchangeable() -> None:
    # `import opgraph.config` can make opgraph.config the module: it must still act as config.
    import opgraph.config as module

    with change_flags(floatX="float32"):
        assert module.floatX == "float32"
        assert opgraph.config.floatX == "float32"
        module.floatX = "float16"
        assert config.floatX == "float16"
    assert module.change_flags is change_flags


def test_subprocess_env_is_read_at_import() -> None:
    code = "import opgraph; print(opgraph.config.floatX, opgraph.config.mode)"
    env = {"OPGRAPH_FLAGS": "floatX=float32,mode=FAST_COMPILE", "PATH": ""}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["float32", "FAST_COMPILE"]


def test_subprocess_unknown_env_flag_warns_with_flag_name() -> None:
    code = "import opgraph.config"
    env = {"OPGRAPH_FLAGS": "linkr=py", "PATH": ""}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0
    assert "linkr" in out.stderr and "not known" in out.stderr


def test_subprocess_bad_env_value_fails_with_flag_name() -> None:
    code = "import opgraph.config"
    env = {"OPGRAPH_FLAGS": "floatX=float8", "PATH": ""}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "floatX" in out.stderr and "float8" in out.stderr


def test_import_opgraph_is_light() -> None:
    code = (
        "import sys, opgraph\n"
        "heavy = [m for m in ('pluggy', 'numpy', 'attrs', 'opgraph.plugins.manager',"
        " 'opgraph.config') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


_names = st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), max_size=5)


@given(_names)
def test_tag_lists_round_trip(names: list[str]) -> None:
    cfg = Config.from_env({"OPGRAPH_FLAGS": "optimizer_including=" + ":".join(names)})
    assert cfg.optimizer_including == tuple(names)
    cfg.optimizer_excluding = ",".join(names)
    assert cfg.optimizer_excluding == tuple(names)
