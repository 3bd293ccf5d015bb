"""The global config: environment parsing, validation, change_flags, the module face."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import opgraph
from opgraph.config import Config, build_config, change_flags, config
from opgraph.configparser import OpgraphConfigWarning


def _cfg(flags: str = "", **env: str) -> Config:
    return build_config({"OPGRAPH_FLAGS": flags, **env}, read_rc=False)


def test_defaults() -> None:
    cfg = _cfg()
    assert cfg.floatX == "float64"
    assert cfg.mode == "FAST_RUN"
    assert cfg.linker == "auto"
    assert cfg.traceback__limit == 8
    assert cfg.optimizer_excluding == ()
    assert cfg.disable_plugins == ()
    assert cfg.strict_plugins is False
    assert cfg.on_opt_error == "warn"
    assert cfg.on_unused_input == "raise"
    assert cfg.cast_policy == "custom"
    assert cfg.allow_gc is True
    assert cfg.vm__lazy is None
    assert cfg.base_compiledir.name == "opgraph"


def test_env_flags_are_parsed_and_typed(tmp_path: Path) -> None:
    cfg = _cfg(
        f"floatX=float32, mode=FAST_COMPILE,compiledir={tmp_path / 'x'},traceback.limit=3,"
        "optimizer_excluding=fusion:inplace,openmp=true,compile_cache_max_mb=5,"
        "optdb__max_use_ratio=2.5,vm__lazy=True",
        OPGRAPH_DISABLE_PLUGINS="opgraph-c, other",
        OPGRAPH_STRICT_PLUGINS="1",
    )
    assert cfg.floatX == "float32"
    assert cfg.mode == "FAST_COMPILE"
    assert cfg.compiledir == tmp_path / "x"
    assert cfg.compiledir.is_dir()  # created on first use
    assert cfg.traceback__limit == 3
    assert cfg.optimizer_excluding == ("fusion", "inplace")
    assert cfg.openmp is True
    assert cfg.compile_cache_max_mb == 5
    assert cfg.optdb__max_use_ratio == 2.5
    assert cfg.vm__lazy is True
    assert cfg.disable_plugins == ("opgraph-c", "other")
    assert cfg.strict_plugins is True


def test_disable_plugins_env_adds_to_the_flag() -> None:
    cfg = _cfg("disable_plugins=a", OPGRAPH_DISABLE_PLUGINS="b")
    assert cfg.disable_plugins == ("a", "b")


def test_cc_env_sets_default_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "clang")
    assert _cfg().cxx == "clang"


def test_default_compiler_is_the_one_found_on_path(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert _cfg().cxx == ""  # none found: '' (the C plugin reports what is missing)
    fake = tmp_path / "gcc"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    assert _cfg().cxx == str(fake)


def test_env_unknown_flag_warns_naming_it_and_is_kept() -> None:
    with pytest.warns(OpgraphConfigWarning, match=r"'floatx' is not known.*'floatX'"):
        cfg = _cfg("floatx=float32")
    assert cfg.floatX == "float64"
    assert cfg.unknown_flags() == {"floatx": "float32"}


def test_item_without_value_warns() -> None:
    with pytest.warns(OpgraphConfigWarning, match="'mode' has no '=value'"):
        cfg = _cfg("mode")
    assert cfg.mode == "FAST_RUN"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("floatX=float8", ["floatX", "float8", "float32"]),
        ("traceback__limit=many", ["traceback__limit", "integer", "many"]),
        ("openmp=perhaps", ["openmp", "boolean", "perhaps"]),
        ("on_unused_input=shout", ["on_unused_input", "shout", "warn"]),
        ("mode=FASTEST", ["mode", "FASTEST", "FAST_RUN"]),
        ("traceback__limit=-2", ["traceback__limit", "-2"]),
    ],
)
def test_env_bad_value_names_flag_expected_and_given(text: str, words: list[str]) -> None:
    with pytest.raises(ValueError) as info:
        _cfg(text)
    for word in words:
        assert word in str(info.value)


def test_set_validates_and_leaves_config_unchanged_on_error() -> None:
    cfg = _cfg()
    before = cfg.as_dict()
    with pytest.raises(ValueError, match="floatX"):
        cfg.floatX = "float8"
    with pytest.raises(ValueError, match=r"traceback__limit.*integer"):
        cfg.traceback__limit = True
    with pytest.raises(ValueError, match="openmp"):
        cfg.openmp = 2
    with pytest.raises(AttributeError, match=r"unknown config flag 'flaotX'.*'floatX'"):
        cfg.flaotX = "float32"
    with pytest.raises(AttributeError, match="method"):
        cfg.add = 1
    assert cfg.as_dict() == before


def test_immutable_flag_refuses_a_change() -> None:
    cfg = _cfg()
    with pytest.raises(ValueError, match="Can't change"):
        cfg.compile__wait = 9
    with pytest.raises(ValueError, match="Can't change"), cfg.change_flags(compile__wait=9):
        pass
    assert cfg.compile__wait == 5


def test_strings_are_coerced_like_env_values() -> None:
    cfg = _cfg()
    cfg.traceback__limit = "4"
    cfg.openmp = "yes"
    cfg.optimizer_including = "a,b:c"
    assert (cfg.traceback__limit, cfg.openmp) == (4, True)
    assert cfg.optimizer_including == ("a", "b", "c")
    cfg.optimizer_including = ["x"]
    assert cfg.optimizer_including == ("x",)


def test_dotted_alias() -> None:
    cfg = _cfg()
    setattr(cfg, "traceback.limit", 2)
    assert getattr(cfg, "traceback.limit") == 2 == cfg.traceback__limit


def test_unknown_flag_read_is_clear() -> None:
    with pytest.raises(AttributeError, match="unknown config flag 'no_such_flag'"):
        _ = config.no_such_flag


def test_rc_file_is_read_and_env_wins(tmp_path: Path) -> None:
    rc = tmp_path / "rc"
    rc.write_text("[global]\nfloatX = float32\nmode = FAST_COMPILE\n[traceback]\nlimit = 2\n")
    env = {"OPGRAPHRC": str(rc), "OPGRAPH_FLAGS": "mode=FAST_RUN"}
    cfg = build_config(env)
    assert (cfg.floatX, cfg.mode, cfg.traceback__limit) == ("float32", "FAST_RUN", 2)


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
    assert "cast_policy" in dir(module)


def test_config_hash_follows_c_key_flags_only() -> None:
    cfg = _cfg()
    h0 = cfg.get_config_hash()
    with cfg.change_flags(on_opt_error="raise"):  # not in the C key
        assert cfg.get_config_hash() == h0
    with cfg.change_flags(floatX="float32"):  # in the C key
        assert cfg.get_config_hash() != h0
    assert cfg.get_config_hash() == h0


def test_str_lists_every_flag_with_value() -> None:
    cfg = _cfg("floatX=float32")
    text = str(cfg)
    for name in cfg.flag_names():
        assert f"\n{name} (" in "\n" + text
    assert "Value:  float32" in text


def test_subprocess_env_is_read_at_import() -> None:
    code = "import opgraph; print(opgraph.config.floatX, opgraph.config.mode)"
    env = {"OPGRAPH_FLAGS": "floatX=float32,mode=FAST_COMPILE", "PATH": "", "OPGRAPHRC": ""}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["float32", "FAST_COMPILE"]


def test_subprocess_pytensor_flags_do_not_crash_import() -> None:
    code = "import opgraph.config as c; print(c.config.on_unused_input, c.config.allow_gc)"
    flags = "on_unused_input=ignore,allow_gc=False,device=cpu,linkr=py"
    env = {"OPGRAPH_FLAGS": flags, "PATH": "", "OPGRAPHRC": ""}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ignore", "False"]
    assert "'linkr' is not known" in out.stderr and "'linker'" in out.stderr
    assert "'device' is not known" in out.stderr


def test_subprocess_bad_env_value_fails_with_flag_name() -> None:
    code = "import opgraph.config"
    env = {"OPGRAPH_FLAGS": "floatX=float8", "PATH": "", "OPGRAPHRC": ""}
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


def test_import_opgraph_config_stays_light() -> None:
    code = (
        "import sys, opgraph.config\n"
        "print(','.join(m for m in ('numpy', 'pluggy', 'opgraph.graph') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


_names = st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), max_size=5)


@given(_names)
def test_tag_lists_round_trip(names: list[str]) -> None:
    cfg = _cfg("optimizer_including=" + ":".join(names))
    assert cfg.optimizer_including == tuple(names)
    cfg.optimizer_excluding = ",".join(names)
    assert cfg.optimizer_excluding == tuple(names)
