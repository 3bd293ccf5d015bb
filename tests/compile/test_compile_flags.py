"""The config flags function() and the debugging modes read (with PyTensor defaults)."""

from __future__ import annotations

import pytest
from compile_toys import TinyLinker, twice

from opgraph.compile import flags
from opgraph.compile.function import function
from opgraph.compile.function import types as types_mod
from opgraph.compile.mode import Mode
from opgraph.compile.prepare import UnusedInputError
from opgraph.config import config
from opgraph.tensor.type import TensorType

dscal = TensorType("float64", ())


def test_flags_have_pytensor_defaults_when_config_lacks_them() -> None:
    for name, default in flags.DEFAULTS.items():
        expected = getattr(config, name) if hasattr(config, name) else default
        assert flags.flag(name) == expected, name
    with pytest.raises(KeyError):
        flags.flag("no_such_flag_anywhere")


def test_function_reads_on_unused_input_and_profile_flags(monkeypatch) -> None:
    x, y = dscal("x"), dscal("y")
    mode = Mode(TinyLinker(), None)
    with pytest.raises(UnusedInputError):
        function([x, y], twice(x), mode=mode)
    settings = {"on_unused_input": "ignore", "profile": True}
    monkeypatch.setattr(types_mod, "flag", settings.__getitem__)
    f = function([x, y], twice(x), mode=mode, name="flagged")
    assert f(1.0, 2.0) == 2.0
    assert f.profile is not None and f.profile.fct_callcount == 1
