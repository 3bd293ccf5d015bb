"""Plugin-served PyTensor paths: one module identity, and a clear error naming the plugin."""

from __future__ import annotations

import colorsys
import subprocess
import sys
import textwrap
import types

import pytest

from opgraph import faces
from opgraph.plugins import PublicModule, hookimpl, loading, make_plugin_manager, manager


def _serving_plugin(module: str, target: str) -> types.SimpleNamespace:
    @hookimpl
    def opgraph_public_modules() -> list[PublicModule]:
        return [PublicModule(module, target)]

    return types.SimpleNamespace(opgraph_public_modules=opgraph_public_modules)


@pytest.fixture
def private_manager(monkeypatch: pytest.MonkeyPatch):
    """Swap the process-wide manager and forget resolved faces for the test."""

    def use(*plugins: object) -> None:
        pm = make_plugin_manager(plugins=list(plugins), disabled=(), strict=False)
        monkeypatch.setattr(loading, "_MANAGER", pm)

    monkeypatch.setattr(faces, "_SERVED", {})
    saved = {k: v for k, v in sys.modules.items() if k.startswith("opgraph.tensor.linalg")}
    for key in saved:
        del sys.modules[key]
    yield use
    for key in [k for k in sys.modules if k.startswith("opgraph.tensor.linalg")]:
        del sys.modules[key]
    sys.modules.update(saved)


def test_face_is_the_plugins_module_object(private_manager) -> None:
    # The json package stands in for a plugin's package: a module with submodules.
    private_manager(("fake", _serving_plugin("opgraph.tensor.linalg", "json")))
    import json
    import json.decoder

    import opgraph.tensor.linalg as face
    import opgraph.tensor.linalg.decoder as sub

    assert face is json
    assert sub is json.decoder
    assert face.decoder.JSONDecoder is json.decoder.JSONDecoder


def test_missing_face_names_the_distribution(private_manager) -> None:
    private_manager()
    with pytest.raises(ModuleNotFoundError, match=r"opgraph-linalg.*not installed") as info:
        import opgraph.tensor.linalg  # noqa: F401
    assert info.value.name == "opgraph.tensor.linalg"


def test_jax_link_path_names_opgraph_jax_when_missing(private_manager, monkeypatch) -> None:
    # opgraph.link.jax is served by the opgraph-jax backend plugin (there is no core stub)
    for key in [k for k in sys.modules if k.startswith("opgraph.link.jax")]:
        monkeypatch.delitem(sys.modules, key)
    private_manager()
    with pytest.raises(ModuleNotFoundError, match=r"opgraph-jax.*not installed") as info:
        import opgraph.link.jax  # noqa: F401
    assert info.value.name == "opgraph.link.jax"


def test_plugin_may_serve_a_path_the_core_does_not_list(private_manager) -> None:
    private_manager(("fake", _serving_plugin("opgraph.tensor.extra_face_demo", "colorsys")))

    import opgraph.tensor.extra_face_demo as face

    assert face is colorsys
    assert "opgraph.tensor.extra_face_demo" in faces._SERVED


def test_a_served_submodule_is_an_attribute_of_its_parent(private_manager) -> None:
    # ``pt.linalg`` without importing ``opgraph.tensor.linalg`` first, as in PyTensor
    private_manager(("fake", _serving_plugin("opgraph.tensor.extra_face_attr", "colorsys")))

    assert faces.provided_name("opgraph.tensor", "extra_face_attr") is colorsys


def test_ordinary_missing_module_is_a_plain_import_error(private_manager) -> None:
    private_manager()
    with pytest.raises(ModuleNotFoundError):
        import opgraph.no_such_module_here  # noqa: F401


def test_two_plugins_serving_one_path_is_reported(private_manager) -> None:
    private_manager(
        ("a", _serving_plugin("opgraph.tensor.linalg", "json")),
        ("b", _serving_plugin("opgraph.tensor.linalg", "colorsys")),
    )
    with (
        pytest.warns(manager.OpgraphPluginWarning),
        pytest.raises(ModuleNotFoundError, match="declared by several plugins") as info,
    ):
        import opgraph.tensor.linalg  # noqa: F401
    assert "'a'" in str(info.value) and "'b'" in str(info.value)


def test_public_module_record_checks_paths() -> None:
    with pytest.raises(TypeError, match="dotted module path"):
        PublicModule("opgraph.tensor.linalg", "not a module")


def test_import_opgraph_installs_finder_once_and_stays_light() -> None:
    code = textwrap.dedent(
        """
        import sys, opgraph, importlib
        importlib.reload(opgraph)
        from opgraph.faces import FaceFinder
        print(sum(isinstance(f, FaceFinder) for f in sys.meta_path))
        print('pluggy' in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["2", "False"]


def _name_plugin(module: str, target: str, names: tuple[str, ...]) -> types.SimpleNamespace:
    @hookimpl
    def opgraph_public_modules() -> list[PublicModule]:
        return [PublicModule(module, target, names=names)]

    return types.SimpleNamespace(opgraph_public_modules=opgraph_public_modules)


def test_plugin_provides_names_of_a_core_module(private_manager) -> None:
    private_manager(("fake", _name_plugin("opgraph.tensor", "math", ("erf", "lgamma"))))
    import math

    assert faces.provided_name("opgraph.tensor", "erf") is math.erf
    assert faces.provided_name("opgraph.tensor", "lgamma") is math.lgamma


def test_expected_name_without_its_plugin_is_a_placeholder_naming_it(private_manager) -> None:
    private_manager()
    erf = faces.provided_name("opgraph.tensor", "erf")
    assert isinstance(erf, faces.MissingPluginName)
    with pytest.raises(ImportError, match=r"opgraph-special, which is not installed"):
        erf(1.0)
    with pytest.raises(ImportError, match="opgraph-special"):
        erf.nin  # noqa: B018 - any use says what is missing
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        faces.provided_name("opgraph.tensor", "not_a_name")


def test_two_plugins_providing_one_name_conflict_only_there(private_manager) -> None:
    private_manager(
        ("a", _name_plugin("opgraph.tensor", "math", ("erf", "gamma"))),
        ("b", _name_plugin("opgraph.tensor", "cmath", ("erf",))),
    )
    import math

    with pytest.warns(manager.OpgraphPluginWarning, match="opgraph.tensor.erf"):
        assert faces.provided_name("opgraph.tensor", "gamma") is math.gamma
    with pytest.raises(ImportError, match="declared by several plugins"):
        faces.provided_name("opgraph.tensor", "erf")(0.0)


def test_record_names_must_be_identifiers() -> None:
    with pytest.raises(TypeError, match="identifiers"):
        PublicModule("opgraph.tensor", "math", names=("not a name",))
    assert PublicModule("opgraph.tensor", "math", names="erf").keys() == ("opgraph.tensor.erf",)
