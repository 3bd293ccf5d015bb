"""The ``opgraph`` command line."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from collections.abc import Iterator

import pytest

import opgraph
from opgraph import cli
from opgraph.graph.op import Op
from opgraph.plugins import LinkerRecord, ModeRecord, PublicModule, hookimpl, make_plugin_manager
from opgraph.plugins import loading as manager_module


@pytest.fixture
def private_manager(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make the global manager a private one holding a good and a broken plugin."""

    @hookimpl
    def opgraph_linkers() -> list[LinkerRecord]:
        return [LinkerRecord("py", "json:dumps", backend="py")]

    @hookimpl
    def opgraph_modes() -> list[ModeRecord]:
        return [ModeRecord("FAST_COMPILE", ("py",))]

    @hookimpl
    def broken_linkers() -> list[LinkerRecord]:
        raise RuntimeError("kaboom")

    good = types.SimpleNamespace(opgraph_linkers=opgraph_linkers, opgraph_modes=opgraph_modes)
    bad = types.SimpleNamespace(opgraph_linkers=broken_linkers)
    pm = make_plugin_manager(plugins=[("good", good), ("bad", bad)], disabled=(), strict=False)
    monkeypatch.setattr(manager_module, "_MANAGER", pm)
    yield


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"opgraph {opgraph.__version__}"


def test_console_script_module_runs() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "opgraph.cli", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "opgraph 0.1.0"


def test_plugins_json_parses_with_whatever_is_installed(capsys: pytest.CaptureFixture[str]) -> None:
    manager_module.reset_plugin_manager()
    try:
        assert cli.main(["plugins", "--json"]) == 0
    finally:
        manager_module.reset_plugin_manager()
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, list)
    for row in data:
        assert {"name", "distribution", "version", "hooks", "status", "error"} <= set(row)


def test_plugins_json_content(private_manager: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["plugins", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["good"]["linkers"] == ["py"] and rows["good"]["modes"] == ["FAST_COMPILE"]
    assert rows["good"]["backends"] == ["py"] and rows["good"]["status"] == "ok"
    assert rows["bad"]["status"] == "failed" and "kaboom" in rows["bad"]["error"]


def test_plugins_table(private_manager: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["PLUGIN", "DISTRIBUTION", "STATUS", "HOOKS", "PROVIDES"]
    assert "linkers: py; modes: FAST_COMPILE; backends: py" in out
    assert "bad (failed): opgraph_linkers raised RuntimeError: kaboom" in out


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 2
    assert "plugins" in capsys.readouterr().out


def test_register_subcommand(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "SUBCOMMANDS", cli.SUBCOMMANDS.copy())

    def setup(parser) -> None:
        parser.add_argument("--n", type=int, default=1)

    def run(args) -> int:
        print("hello" * args.n)
        return 3

    cli.register_subcommand("hello", "say hello", setup, run)
    with pytest.raises(ValueError, match="already registered"):
        cli.register_subcommand("hello", "again", setup, run)
    assert cli.main(["hello", "--n", "2"]) == 3
    assert capsys.readouterr().out.strip() == "hellohello"
    assert cli.SUBCOMMANDS.origin("hello") == __name__  # who registered it
    cli.SUBCOMMANDS["dumps"] = cli.Subcommand("lazy run", lambda p: None, "json:dumps")
    with pytest.raises(TypeError):  # json.dumps(args) fails: proves the string was loaded
        cli.main(["dumps"])


def test_closed_pipe_ends_quietly() -> None:
    code = (
        "import sys, opgraph.cli as cli\n"
        "def spam(args):\n"
        "    for i in range(200000):\n"
        "        print(i)\n"
        "    return 0\n"
        "cli.register_subcommand('spam', 'many lines', lambda p: None, spam)\n"
        "sys.exit(cli.main(['spam']))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what `| head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert first.strip() == b"0"
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_subcommand_of_a_missing_plugin_names_it(
    private_manager: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["demo"]) == 2
    err = capsys.readouterr().err
    assert "opgraph-demo" in err and "not installed" in err


class _ServedOp(Op):
    """An Op the fake plugin below serves."""

    __props__ = ()

    def perform(self, node, inputs, output_storage) -> None:
        output_storage[0][0] = inputs[0]


@pytest.fixture
def rewriting_plugin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A plugin (a module of package ``fakeplug``) with rewrites, Ops and a backend impl."""
    ops_module = types.ModuleType("fakeplug.ops")
    _ServedOp.__module__ = "fakeplug.ops"
    ops_module.ServedOp = _ServedOp
    ops_module.served_op = _ServedOp()
    ops_module.not_an_op = len
    monkeypatch.setitem(sys.modules, "fakeplug.ops", ops_module)
    plugin = types.ModuleType("fakeplug.plugin")

    @hookimpl
    def opgraph_register_rewrites(db) -> None:
        for name in ("a", "b", "c"):
            db["canonicalize"].register(name, object(), "fast_run")
        db.register("d", object(), "fast_run", phase="inplace")

    @hookimpl
    def opgraph_public_modules() -> list[PublicModule]:
        return [PublicModule("opgraph.fakeplug", "fakeplug.ops")]

    @hookimpl
    def opgraph_op_impl(op, backend):
        """C for the served op."""

    plugin.opgraph_register_rewrites = opgraph_register_rewrites
    plugin.opgraph_public_modules = opgraph_public_modules
    plugin.opgraph_op_impl = opgraph_op_impl
    pm = make_plugin_manager(plugins=[("fake", plugin)], disabled=(), strict=False)
    monkeypatch.setattr(manager_module, "_MANAGER", pm)
    yield


def test_plugins_counts_rewrites_and_lists_ops(
    rewriting_plugin: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["plugins", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["status"] == "ok", row["error"]
    assert row["rewrites"] == ["total: 4", "canonicalize: 3", "inplace: 1"]
    assert row["ops"] == ["ServedOp", "served_op"]
    assert row["op_impls"] == ["C for the served op"]
    assert cli.main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "rewrites: 4 (canonicalize 3, inplace 1); ops: ServedOp, served_op" in out
    assert "backend impls: C for the served op" in out


def test_a_failing_rewrite_registration_is_reported(
    rewriting_plugin: None, capsys: pytest.CaptureFixture[str]
) -> None:
    pm = manager_module._MANAGER
    plugin = pm.get_plugin("fake")

    @hookimpl
    def opgraph_register_rewrites(db) -> None:
        raise RuntimeError("no database for you")

    pm.unregister(plugin)
    plugin.opgraph_register_rewrites = opgraph_register_rewrites
    pm.register(plugin, name="fake")
    assert cli.main(["plugins", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["status"] == "failed"
    assert "opgraph_register_rewrites raised RuntimeError: no database for you" in row["error"]
