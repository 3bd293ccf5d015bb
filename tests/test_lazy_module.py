"""opgraph.utils.lazy_module / lazy_scipy_module: import on first attribute access."""

from __future__ import annotations

import subprocess
import sys

import pytest

import opgraph.tensor.elemwise as elemwise_module
from opgraph.utils import lazy_module, lazy_scipy_module


def test_import_happens_on_first_attribute_and_once() -> None:
    name = "json.decoder"
    saved = sys.modules.pop(name, None)
    try:
        lazy = lazy_module(name)
        assert name not in sys.modules
        assert "not loaded" in repr(lazy)
        decoder_cls = lazy.JSONDecoder
        assert name in sys.modules
        assert decoder_cls is sys.modules[name].JSONDecoder
        assert "loaded" in repr(lazy) and "not loaded" not in repr(lazy)
        assert "JSONDecoder" in dir(lazy)
    finally:
        if saved is not None:
            sys.modules[name] = saved


def test_lazy_scipy_module_names_the_submodule() -> None:
    mod = lazy_scipy_module("special")
    assert mod.__name__ == "scipy.special"


def test_missing_attribute_and_bad_name() -> None:
    with pytest.raises(AttributeError):
        _ = lazy_module("json").no_such_thing
    with pytest.raises(TypeError, match="module name"):
        lazy_module(3)  # type: ignore[arg-type]


def test_lazy_package_reaches_an_unimported_submodule() -> None:
    """``opgraph.compile.mode`` works without ``import opgraph.compile.mode`` (PyTensor
    code reaches submodules that way); an unknown name still raises AttributeError."""
    code = ("import sys, opgraph.compile as c; assert 'opgraph.compile.mode' not in sys.modules;"
            " assert c.mode is sys.modules['opgraph.compile.mode'];"
            " assert callable(c.mode.get_default_mode)\n"
            "try:\n    c.no_such_submodule\nexcept AttributeError as e:\n"
            "    assert 'no_such_submodule' in str(e)\nelse:\n    raise SystemExit(1)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_lazy_plain_module_unknown_name_is_attribute_error() -> None:
    """A plain module (no ``__path__``) with lazy exports answers AttributeError for an
    unknown name (``hasattr`` works), never ModuleNotFoundError."""
    assert not hasattr(elemwise_module, "NoSuchPrinterName")
    with pytest.raises(AttributeError, match="NoSuchPrinterName"):
        _ = elemwise_module.NoSuchPrinterName
