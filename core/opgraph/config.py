"""``opgraph.config``: the process-wide flags, and the module that stands for them.

The machinery lives in :mod:`opgraph.configparser` and the flags in
:mod:`opgraph.configdefaults`; this module re-exports them under the names
opgraph code has always used (``from opgraph.config import change_flags,
config``).  Because importing the submodule ``opgraph.config`` makes
``opgraph.config`` the module rather than the parser, the module forwards
flag reads and writes to :data:`config`, so ``opgraph.config.floatX``
means the same thing either way.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from opgraph.configdefaults import (
    DISABLE_PLUGINS_ENV,
    STRICT_PLUGINS_ENV,
    build_config,
    change_flags,
    config,
)
from opgraph.configparser import (
    FLAGS_ENV,
    ConfigError,
    OpgraphConfigParser,
    normalize_flag_name,
    parse_config_string,
)

__all__ = [
    "DISABLE_PLUGINS_ENV",
    "FLAGS_ENV",
    "STRICT_PLUGINS_ENV",
    "Config",
    "ConfigError",
    "build_config",
    "change_flags",
    "config",
    "normalize_flag_name",
    "parse_config_string",
]

Config = OpgraphConfigParser
"""The class of :data:`config` (kept under its old opgraph name)."""


class _ConfigModule(types.ModuleType):
    """The ``opgraph.config`` module, forwarding flag names to :data:`config`."""

    def __getattr__(self, name: str) -> Any:
        return getattr(config, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if normalize_flag_name(name) in config._config_var_dict:
            setattr(config, name, value)
        else:
            super().__setattr__(name, value)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(config.flag_names()))


sys.modules[__name__].__class__ = _ConfigModule
