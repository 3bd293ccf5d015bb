"""Process-wide configuration flags, read once from the environment.

The flags follow PyTensor's names (``floatX``, ``mode``, ``linker``,
``compiledir``, ``traceback__limit``...).  They are read once, at import,
from ``OPGRAPH_FLAGS`` (``"floatX=float32,mode=FAST_COMPILE"``), plus
``OPGRAPH_DISABLE_PLUGINS`` and ``OPGRAPH_STRICT_PLUGINS``.  Compiled
functions carry the values they were built with (through their Mode), so
changing a flag later never changes an existing function.

Adding a flag is one line in :class:`Config` using one of the ``_*_flag``
helpers below: the helper supplies the default, the validation, the parser
used for strings from the environment, and the documentation.
"""

from __future__ import annotations

import contextlib
import os
import sys
import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

__all__ = [
    "Config",
    "ConfigError",
    "change_flags",
    "config",
    "normalize_flag_name",
    "parse_flags",
]

FLAGS_ENV = "OPGRAPH_FLAGS"
DISABLE_PLUGINS_ENV = "OPGRAPH_DISABLE_PLUGINS"
STRICT_PLUGINS_ENV = "OPGRAPH_STRICT_PLUGINS"

_TRUE = frozenset({"1", "true", "yes", "on", "y", "t"})
_FALSE = frozenset({"0", "false", "no", "off", "n", "f", ""})


UNKNOWN_FLAGS: dict[str, str] = {}
"""Flags from the environment that opgraph does not define, by name (raw values)."""


class ConfigError(ValueError):
    """A flag value from the environment could not be used (names the flag)."""


def normalize_flag_name(name: str) -> str:
    """Return the attribute name for ``name``: ``"a.b"`` is an alias of ``"a__b"``."""
    return name.strip().replace(".", "__")


# --- parsers (strings from the environment -> typed values) -----------------


def _parse_bool(flag: str, text: str) -> bool:
    low = text.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise ValueError(f"config flag {flag!r} expects a boolean (1/0, true/false), got {text!r}")


def _parse_int(flag: str, text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"config flag {flag!r} expects an integer, got {text!r}") from None


def _split_names(text: str) -> tuple[str, ...]:
    """Split a ``"a,b"`` / ``"a:b"`` / ``"a b"`` list, dropping empty items."""
    for sep in (":", " "):
        text = text.replace(sep, ",")
    return tuple(part.strip() for part in text.split(",") if part.strip())


# --- validators (run on every set; message names flag, expected and given) ---


def _check_type(flag: str, value: Any, kind: type | tuple[type, ...], expected: str) -> None:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(
            f"config flag {flag!r} expects {expected}, got {value!r} ({type(value).__name__})"
        )


def _choice_validator(choices: tuple[str, ...]) -> Callable[[Any, attrs.Attribute, Any], None]:
    def check(_inst: Any, attr: attrs.Attribute, value: Any) -> None:
        _check_type(attr.name, value, str, f"one of {choices}")
        if value not in choices:
            raise ValueError(f"config flag {attr.name!r} expects one of {choices}, got {value!r}")

    return check


def _str_validator(_inst: Any, attr: attrs.Attribute, value: Any) -> None:
    _check_type(attr.name, value, str, "a string")


def _nonempty_str_validator(_inst: Any, attr: attrs.Attribute, value: Any) -> None:
    _check_type(attr.name, value, str, "a non-empty string")
    if not value.strip():
        raise ValueError(f"config flag {attr.name!r} expects a non-empty string, got {value!r}")


def _int_validator(minimum: int | None) -> Callable[[Any, attrs.Attribute, Any], None]:
    def check(_inst: Any, attr: attrs.Attribute, value: Any) -> None:
        _check_type(attr.name, value, int, "an integer")
        if minimum is not None and value < minimum:
            raise ValueError(
                f"config flag {attr.name!r} expects an integer >= {minimum}, got {value!r}"
            )

    return check


def _bool_validator(_inst: Any, attr: attrs.Attribute, value: Any) -> None:
    _check_type(attr.name, value, bool, "a boolean")


def _names_validator(_inst: Any, attr: attrs.Attribute, value: Any) -> None:
    _check_type(attr.name, value, tuple, "a comma-separated string or a sequence of names")
    for item in value:
        _check_type(attr.name, item, str, "a sequence of names (strings)")


def _names_converter(value: Any) -> Any:
    """Accept ``"a,b"`` or any sequence of str; anything else goes to the validator."""
    if isinstance(value, str):
        return _split_names(value)
    if isinstance(value, Sequence | frozenset | set) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    return value


def _path_converter(value: Any) -> Any:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, str) and value:
        return os.path.abspath(os.path.expanduser(value))
    return value


# --- field helpers: one line per flag in Config ------------------------------


def _flag(
    default: Any,
    validator: Callable[[Any, attrs.Attribute, Any], None],
    parse: Callable[[str, str], Any],
    doc: str,
    converter: Callable[[Any], Any] | None = None,
) -> Any:
    kwargs: dict[str, Any] = {"validator": validator, "metadata": {"parse": parse, "doc": doc}}
    if converter is not None:
        kwargs["converter"] = converter
    if callable(default):
        kwargs["factory"] = default
    else:
        kwargs["default"] = default
    return attrs.field(**kwargs)


def _choice_flag(default: str, choices: tuple[str, ...], doc: str) -> Any:
    return _flag(default, _choice_validator(choices), lambda _f, s: s.strip(), doc)


def _str_flag(default: str | Callable[[], str], doc: str, *, nonempty: bool = False) -> Any:
    validator = _nonempty_str_validator if nonempty else _str_validator
    return _flag(default, validator, lambda _f, s: s.strip(), doc)


def _int_flag(default: int, doc: str, *, minimum: int | None = None) -> Any:
    return _flag(default, _int_validator(minimum), _parse_int, doc)


def _bool_flag(default: bool | Callable[[], bool], doc: str) -> Any:
    return _flag(default, _bool_validator, _parse_bool, doc)


def _names_flag(default: Callable[[], tuple[str, ...]], doc: str) -> Any:
    return _flag(default, _names_validator, lambda _f, s: _split_names(s), doc, _names_converter)


def _path_flag(default: Callable[[], str], doc: str) -> Any:
    return _flag(default, _nonempty_str_validator, lambda _f, s: s.strip(), doc, _path_converter)


def _default_compiledir() -> str:
    return os.path.abspath(os.path.expanduser(os.path.join("~", ".cache", "opgraph")))


def _default_cxx() -> str:
    return os.environ.get("CC", "").strip()


@attrs.define(on_setattr=attrs.setters.NO_OP)
class Config:
    """The flags; set them with ``config.name = value`` or :func:`change_flags`.

    Setting validates first and assigns only on success, so a failed set leaves
    the configuration as it was.  Strings are parsed like environment values,
    so ``config.traceback__limit = "4"`` works.
    """

    floatX: str = _choice_flag(
        "float64", ("float64", "float32", "float16"), "Default dtype of float variables."
    )
    mode: str = _str_flag("FAST_RUN", "Default compilation mode name.", nonempty=True)
    linker: str = _str_flag(
        "auto", "Linker name, or 'auto' to use the mode's preference list.", nonempty=True
    )
    compiledir: str = _path_flag(_default_compiledir, "Directory of the compile cache.")
    compile_cache_max_mb: int = _int_flag(
        1024, "Size limit of the compile cache in MiB (0: no limit).", minimum=0
    )
    traceback__limit: int = _int_flag(
        8, "Frames of creation traceback kept on variables (-1: all, 0: none).", minimum=-1
    )
    optimizer_including: tuple[str, ...] = _names_flag(tuple, "Extra rewrite tags to include.")
    optimizer_excluding: tuple[str, ...] = _names_flag(tuple, "Rewrite tags to exclude.")
    optimizer_requiring: tuple[str, ...] = _names_flag(tuple, "Rewrite tags to require.")
    on_opt_error: str = _choice_flag(
        "warn", ("warn", "raise", "ignore"), "What to do when a rewrite raises."
    )
    compute_test_value: str = _choice_flag("off", ("off",), "Test values: not supported yet.")
    disable_plugins: tuple[str, ...] = _names_flag(tuple, "Plugin names not to load.")
    strict_plugins: bool = _bool_flag(False, "Make a plugin that fails to load fatal.")
    cxx: str = _str_flag(_default_cxx, "C compiler command; '' means autodetect.")
    openmp: bool = _bool_flag(False, "Let generated C code use OpenMP.")
    gcc__cxxflags: str = _str_flag("", "Extra C compiler flags for generated modules.")

    def __setattr__(self, name: str, value: Any) -> None:
        key = normalize_flag_name(name)
        fields = attrs.fields_dict(type(self))
        if key not in fields:
            raise AttributeError(_unknown_flag_message(name))
        object.__setattr__(self, key, _checked_value(self, fields[key], value))

    def __getattr__(self, name: str) -> Any:
        # Only reached for names that are not slots: give the dotted alias or a clear error.
        key = normalize_flag_name(name)
        if key != name and key in attrs.fields_dict(type(self)):
            return getattr(self, key)
        raise AttributeError(_unknown_flag_message(name))

    @classmethod
    def flag_names(cls) -> tuple[str, ...]:
        """All flag names, in declaration order."""
        return tuple(a.name for a in attrs.fields(cls))

    @classmethod
    def flag_doc(cls, name: str) -> str:
        """The one-line documentation of a flag."""
        key = normalize_flag_name(name)
        fields = attrs.fields_dict(cls)
        if key not in fields:
            raise AttributeError(_unknown_flag_message(name))
        return str(fields[key].metadata.get("doc", ""))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """Build a Config from ``OPGRAPH_FLAGS`` and the plugin variables."""
        env = os.environ if environ is None else environ
        values = parse_flags(env.get(FLAGS_ENV, ""), source=FLAGS_ENV)
        disabled = env.get(DISABLE_PLUGINS_ENV, "")
        if disabled.strip():
            extra = _split_names(disabled)
            values["disable_plugins"] = tuple(values.get("disable_plugins", ())) + extra
        strict = env.get(STRICT_PLUGINS_ENV, "")
        if strict.strip():
            values["strict_plugins"] = _parse_bool(STRICT_PLUGINS_ENV, strict)
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        """The current values by flag name."""
        return {name: getattr(self, name) for name in self.flag_names()}

    def change_flags(self, args: Mapping[str, Any] | None = None, /, **kwargs: Any) -> _ChangeFlags:
        """Temporarily set flags of this config (context manager or decorator)."""
        return _ChangeFlags(self, {**(args or {}), **kwargs})


def _unknown_flag_message(name: str) -> str:
    valid = ", ".join(Config.flag_names())
    return f"unknown config flag {name!r}; valid flags: {valid}"


def _checked_value(inst: Config, attr: attrs.Attribute, value: Any) -> Any:
    """Parse strings, convert, validate; raise without touching ``inst``."""
    if isinstance(value, str):
        value = attr.metadata["parse"](attr.name, value)
    if attr.converter is not None:
        value = attr.converter(value)
    if attr.validator is not None:
        attr.validator(inst, attr, value)
    return value


def parse_flags(text: str, *, source: str = FLAGS_ENV) -> dict[str, Any]:
    """Parse ``"name=value,name2=value2"`` into typed values.

    Lists inside a value use ``:`` (``optimizer_excluding=fusion:inplace``).
    Raises :class:`ConfigError` naming the flag for an unknown name or a bad value.
    """
    fields = attrs.fields_dict(Config)
    out: dict[str, Any] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        name, sep, raw = item.partition("=")
        key = normalize_flag_name(name)
        if not sep:
            raise ConfigError(f"{source}: expected 'name=value', got {item.strip()!r}")
        if key not in fields:
            # PyTensor-style settings must not crash at import: warn and keep the raw value.
            warnings.warn(
                f"{source}: config flag {name.strip()!r} is not known to opgraph; ignored",
                stacklevel=2,
            )
            UNKNOWN_FLAGS[key] = raw.strip()
            continue
        attr = fields[key]
        try:
            value = attr.metadata["parse"](key, raw)
            if attr.converter is not None:
                value = attr.converter(value)
            attr.validator(None, attr, value)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{source}: {exc}") from None
        out[key] = value
    return out


class _ChangeFlags(contextlib.ContextDecorator):
    """Set flags on enter, restore the old values on exit (also on error)."""

    def __init__(self, cfg: Config, values: Mapping[str, Any]) -> None:
        self._config = cfg
        self._values = dict(values)
        self._saved: list[dict[str, Any]] = []

    def __enter__(self) -> Config:
        cfg = self._config
        fields = attrs.fields_dict(type(cfg))
        new: dict[str, Any] = {}
        for name, value in self._values.items():
            key = normalize_flag_name(name)
            if key not in fields:
                raise AttributeError(_unknown_flag_message(name))
            new[key] = _checked_value(cfg, fields[key], value)  # all checked before any set
        self._saved.append({key: getattr(cfg, key) for key in new})
        for key, value in new.items():
            object.__setattr__(cfg, key, value)
        return cfg

    def __exit__(self, *exc: object) -> None:
        for key, value in self._saved.pop().items():
            object.__setattr__(self._config, key, value)


def change_flags(args: Mapping[str, Any] | None = None, /, **kwargs: Any) -> _ChangeFlags:
    """Temporarily set flags on the global :data:`config`.

    Usable as ``with change_flags(floatX="float32"):`` or as a decorator;
    dotted names go in the mapping: ``change_flags({"traceback.limit": 2})``.
    """
    return _ChangeFlags(config, {**(args or {}), **kwargs})


config: Config = Config.from_env()
"""The process-wide configuration, read once from the environment at import."""


class _ConfigModule(types.ModuleType):
    """Lets the module stand in for :data:`config`.

    Importing the submodule ``opgraph.config`` makes ``opgraph.config`` the
    module rather than the instance; forwarding flag reads and writes keeps
    ``opgraph.config.floatX = "float32"`` meaning the same thing either way.
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(config, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if normalize_flag_name(name) in attrs.fields_dict(Config):
            setattr(config, name, value)
        else:
            super().__setattr__(name, value)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(Config.flag_names()))


sys.modules[__name__].__class__ = _ConfigModule
