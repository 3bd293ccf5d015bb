"""The configuration machinery: typed parameters and the parser that holds them.

This is PyTensor's ``configparser`` API under opgraph's names.  A
:class:`ConfigParam` knows its default, how to turn a user value into a
typed one (``apply``), how to check it (``validate``) and whether it may
change after it was first read.  :class:`OpgraphConfigParser` (alias
``PyTensorConfigParser``) holds the parameters registered with
:meth:`~OpgraphConfigParser.add` and reads user values, in decreasing
priority, from ``OPGRAPH_FLAGS`` and from the rc files named by
``OPGRAPHRC`` (default ``~/.opgraphrc``).

Unlike PyTensor, parameters are not installed on the parser *class*: each
parser instance looks its flags up in its own ``_config_var_dict``, so a
parser built by a test never changes what another parser exposes.  The
flags themselves are defined in :mod:`opgraph.configdefaults`.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from configparser import (
    ConfigParser,
    InterpolationError,
    NoOptionError,
    NoSectionError,
    RawConfigParser,
)
from io import StringIO
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "BoolParam",
    "ConfigAccessViolation",
    "ConfigError",
    "ConfigParam",
    "DeviceParam",
    "EnumStr",
    "FloatParam",
    "IntParam",
    "NamesParam",
    "OpgraphConfigParser",
    "OpgraphConfigWarning",
    "PyTensorConfigParser",
    "PyTensorConfigWarning",
    "StrParam",
    "TypedParam",
    "config_files_from_opgraphrc",
    "normalize_flag_name",
    "parse_config_string",
]

FLAGS_ENV = "OPGRAPH_FLAGS"
RC_ENV = "OPGRAPHRC"
DEFAULT_RC = "~/.opgraphrc"

_F = TypeVar("_F", bound=Callable[..., Any])

# Every flag name ever registered on some parser: lets a parser tell "registered
# elsewhere" (ConfigAccessViolation) from "no such flag".
_REGISTERED_ANYWHERE: set[str] = set()


class ConfigError(ValueError):
    """A flag value could not be used; the message names the flag."""


class ConfigAccessViolation(AttributeError):
    """A flag was read through a parser other than the one it was registered on."""


class OpgraphConfigWarning(UserWarning):
    """Something in the user's configuration was ignored (an unknown flag, an empty item)."""


PyTensorConfigWarning = OpgraphConfigWarning


def normalize_flag_name(name: str) -> str:
    """The attribute name for ``name``: ``"traceback.limit"`` means ``"traceback__limit"``."""
    return name.strip().replace(".", "__")


def _flag_label(name: str | None) -> str:
    return f"configuration variable '{name}'" if name else "configuration variable"


# --- parameters -------------------------------------------------------------------------------


class ConfigParam:
    """One flag: default, conversion (``apply``), check (``validate``), mutability.

    ``default`` may be a callable, evaluated the first time the flag is read
    without a user value (so costly defaults such as compiler detection wait
    until someone needs them).  ``validate`` may raise its own exception or
    return False, which becomes a ``ValueError`` naming the flag.  The current
    value lives in ``val``, set on first read or assignment.
    """

    name: str | None
    doc: str
    in_c_key: bool

    def __init__(
        self,
        default: Any,
        *,
        apply: Callable[[Any], Any] | None = None,
        validate: Callable[[Any], Any] | None = None,
        mutable: bool = True,
    ) -> None:
        self._default = default
        self._apply = apply
        self._validate = validate
        self._mutable = mutable
        self.is_default = True
        self.name = None
        self.doc = ""
        self.in_c_key = True

    @property
    def default(self) -> Any:
        return self._default

    @property
    def mutable(self) -> bool:
        return self._mutable

    def kind(self) -> str:
        """A short description of the accepted values (used by ``str(config)`` and docs)."""
        return "any value"

    def apply(self, value: Any) -> Any:
        """Turn a user value (often a string from the environment) into the flag's value."""
        if callable(self._apply):
            return self._apply(value)
        return value

    def validate(self, value: Any) -> bool:
        """Check an applied value; raise ``ValueError`` naming the flag when it is refused."""
        if callable(self._validate) and self._validate(value) is False:
            raise ValueError(f"Invalid value ({value!r}) for {_flag_label(self.name)}.")
        return True

    def filter(self, value: Any) -> Any:
        """``apply`` then ``validate``; the value the flag would take, without storing it."""
        applied = self.apply(value)
        self.validate(applied)
        return applied

    def _load(self, parser: OpgraphConfigParser, delete_key: bool = False) -> Any:
        """Read the user's value (or the default) into ``val`` the first time."""
        try:
            return self.val
        except AttributeError:
            pass
        try:
            raw = parser.fetch_val_for_key(self.name or "", delete_key=delete_key)
            self.is_default = False
        except KeyError:
            raw = self._default() if callable(self._default) else self._default
        self.__set__(parser, raw)
        return self.val

    def __get__(self, parser: Any, owner: Any = None, delete_key: bool = False) -> Any:
        if parser is None:
            return self
        if self.name not in parser._config_var_dict:
            raise ConfigAccessViolation(
                f"config flag '{self.name}' was registered on a different instance of "
                f"{type(parser).__name__}; it is not readable through the instance "
                f"with id {id(parser)}"
            )
        return self._load(parser, delete_key)

    def __set__(self, parser: Any, value: Any) -> None:
        if not self._mutable and hasattr(self, "val"):
            raise ConfigError(
                f"Can't change the value of {_flag_label(self.name)} after initialization "
                f"(it is read once, at start-up)"
            )
        self.val = self.filter(value)
        self._mirror(parser)

    def _mirror(self, parser: Any) -> None:
        # The parser keeps a copy of each loaded value in its __dict__, so that reading
        # a flag is a plain attribute lookup (config.floatX is read on hot paths).
        if isinstance(parser, OpgraphConfigParser) and self.name:
            parser.__dict__[self.name] = self.val

    def __str__(self) -> str:
        return f"{self.name} ({self.kind()}) "


class EnumStr(ConfigParam):
    """A string that must be the default or one of ``options``."""

    def __init__(
        self,
        default: str,
        options: Sequence[str],
        validate: Callable[[Any], Any] | None = None,
        mutable: bool = True,
    ) -> None:
        self.all = {default, *options}
        for option in self.all:
            if not isinstance(option, str):
                raise ValueError(f"Non-str value {option!r} for an EnumStr parameter.")
        self._order = (default, *[o for o in options if o != default])
        super().__init__(default, apply=self._choose, validate=validate, mutable=mutable)

    def _choose(self, value: Any) -> str:
        if isinstance(value, str) and value.strip() in self.all:
            return value.strip()
        raise ValueError(
            f"Invalid value ({value!r}) for {_flag_label(self.name)}. "
            f"Valid options are {list(self._order)}"
        )

    def kind(self) -> str:
        return "one of " + ", ".join(self._order)


class TypedParam(ConfigParam):
    """A parameter whose values are converted by one type (str, int, float, bool)."""

    type_name = "value"

    def kind(self) -> str:
        return self.type_name


def _convert(name: str | None, value: Any, convert: Callable[[Any], Any], what: str) -> Any:
    try:
        return convert(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"Invalid value ({value!r}) for {_flag_label(name)}: expected {what}, "
            f"got {type(value).__name__}"
        ) from None


class StrParam(TypedParam):
    """A string (anything given is turned into one with ``str``)."""

    type_name = "str"

    def __init__(self, default: Any, validate: Callable[[Any], Any] | None = None,
                 mutable: bool = True) -> None:
        super().__init__(default, apply=self._to_str, validate=validate, mutable=mutable)

    def _to_str(self, value: Any) -> str:
        if isinstance(value, str | os.PathLike):
            return os.fspath(value) if not isinstance(value, str) else value
        if isinstance(value, int | float):
            return str(value)
        raise ValueError(
            f"Invalid value ({value!r}) for {_flag_label(self.name)}: expected a string, "
            f"got {type(value).__name__}"
        )


def _to_int(value: Any) -> int:
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise TypeError(value)
    if isinstance(value, str):
        return int(value.strip())
    if isinstance(value, int | float):
        return int(value)
    raise TypeError(value)


def _to_float(value: Any) -> float:
    if isinstance(value, bool):
        raise TypeError(value)
    if isinstance(value, str):
        return float(value.strip())
    if isinstance(value, int | float):
        return float(value)
    raise TypeError(value)


class IntParam(TypedParam):
    """An integer; strings are parsed, booleans and fractional floats refused."""

    type_name = "int"

    def __init__(self, default: Any, validate: Callable[[Any], Any] | None = None,
                 mutable: bool = True) -> None:
        super().__init__(default, apply=self._to_int, validate=validate, mutable=mutable)

    def _to_int(self, value: Any) -> int:
        return _convert(self.name, value, _to_int, "an integer")


class FloatParam(TypedParam):
    """A float; strings are parsed (``"inf"`` works)."""

    type_name = "float"

    def __init__(self, default: Any, validate: Callable[[Any], Any] | None = None,
                 mutable: bool = True) -> None:
        super().__init__(default, apply=self._to_float, validate=validate, mutable=mutable)

    def _to_float(self, value: Any) -> float:
        return _convert(self.name, value, _to_float, "a number")


_TRUE = frozenset({"1", "true", "yes", "on", "y", "t"})
_FALSE = frozenset({"0", "false", "no", "off", "n", "f"})


class BoolParam(TypedParam):
    """A boolean: True/False, 1/0, or the strings true/false, yes/no, on/off, 1/0."""

    type_name = "bool"

    def __init__(self, default: Any, validate: Callable[[Any], Any] | None = None,
                 mutable: bool = True) -> None:
        super().__init__(default, apply=self._to_bool, validate=validate, mutable=mutable)

    def _to_bool(self, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            low = value.strip().lower()
            if low in _TRUE:
                return True
            if low in _FALSE:
                return False
        raise ValueError(
            f"Invalid value ({value!r}) for {_flag_label(self.name)}: expected a boolean "
            f"(True/False, 1/0, 'true'/'false')"
        )


def split_names(text: str) -> tuple[str, ...]:
    """Split ``"a:b"``, ``"a,b"`` or ``"a b"`` into names, dropping empty items."""
    for sep in (":", " "):
        text = text.replace(sep, ",")
    return tuple(part.strip() for part in text.split(",") if part.strip())


class NamesParam(TypedParam):
    """A tuple of names; accepts ``"a:b"`` (PyTensor's form), ``"a,b"`` or a sequence of str."""

    type_name = "names"

    def __init__(self, default: Any = (), validate: Callable[[Any], Any] | None = None,
                 mutable: bool = True) -> None:
        super().__init__(default, apply=self._to_names, validate=validate, mutable=mutable)

    def _to_names(self, value: Any) -> tuple[str, ...]:
        if isinstance(value, str):
            return split_names(value)
        if isinstance(value, Iterable) and not isinstance(value, bytes | Mapping):
            items = list(value)
            if all(isinstance(item, str) for item in items):
                return tuple(item.strip() for item in items if item.strip())
        raise ValueError(
            f"Invalid value ({value!r}) for {_flag_label(self.name)}: expected a "
            f"':'-separated string or a sequence of names"
        )


class DeviceParam(ConfigParam):
    """The compute device: only ``"cpu"`` exists (GPU back ends were removed, as in PyTensor)."""

    def __init__(self, default: Any = "cpu", *, mutable: bool = False) -> None:
        super().__init__(default, apply=self._to_device, mutable=mutable)

    def _to_device(self, value: Any) -> str:
        if value == "cpu":
            return value
        raise ValueError(
            f"Invalid value ({value!r}) for {_flag_label(self.name)}: only 'cpu' is supported"
        )

    def kind(self) -> str:
        return "cpu"


# --- the parser ---------------------------------------------------------------------------------


class OpgraphConfigParser:
    """Holds the flags registered with :meth:`add` and their current values.

    Flags read and write as attributes (``config.floatX``); a dotted name is
    an alias of the double-underscore one (``"traceback.limit"``).  Values come
    from ``flags_dict`` (parsed ``OPGRAPH_FLAGS``) first, then from the rc
    file(s), then the flag's default.
    """

    def __init__(
        self,
        flags_dict: dict[str, str],
        opgraph_cfg: ConfigParser | None = None,
        opgraph_raw_cfg: RawConfigParser | None = None,
        *,
        pytensor_cfg: ConfigParser | None = None,
        pytensor_raw_cfg: RawConfigParser | None = None,
        source: str = FLAGS_ENV,
    ) -> None:
        self._flags_dict = flags_dict
        self._opgraph_cfg = opgraph_cfg if opgraph_cfg is not None else (
            pytensor_cfg if pytensor_cfg is not None else ConfigParser())
        self._opgraph_raw_cfg = opgraph_raw_cfg if opgraph_raw_cfg is not None else (
            pytensor_raw_cfg if pytensor_raw_cfg is not None else RawConfigParser())
        self._config_var_dict: dict[str, ConfigParam] = {}
        self._source = source

    # -- attribute access ----------------------------------------------------------------------

    def _param(self, name: str) -> ConfigParam:
        key = normalize_flag_name(name)
        params = self.__dict__.get("_config_var_dict")
        if params is not None and key in params:
            return params[key]
        if key in _REGISTERED_ANYWHERE:
            raise ConfigAccessViolation(
                f"config flag '{key}' was registered on a different instance of "
                f"{type(self).__name__}; it is not readable through the instance "
                f"with id {id(self)}"
            )
        raise AttributeError(self._unknown_message(name))

    def _unknown_message(self, name: str) -> str:
        names = list(self.__dict__.get("_config_var_dict", {}))
        close = difflib.get_close_matches(normalize_flag_name(name), names, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        return (
            f"unknown config flag {name!r}{hint} "
            f"(str(opgraph.config) lists all {len(names)} valid flags)"
        )

    def __getattr__(self, name: str) -> Any:
        # Reached only for a flag not loaded yet (or a dotted alias): loaded values
        # are mirrored in __dict__ by ConfigParam.__set__.
        if name.startswith("_"):  # pickling and copy probe dunders before __dict__ exists
            raise AttributeError(name)
        return self._param(name)._load(self)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        if name in type(self).__dict__:
            raise AttributeError(f"{type(self).__name__}.{name} is a method, not a flag")
        self._param(name).__set__(self, value)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._config_var_dict))

    # -- registration and lookup ------------------------------------------------------------------

    def add(self, name: str, doc: str, configparam: ConfigParam, in_c_key: bool = True) -> None:
        """Register ``configparam`` as flag ``name`` and read its value now.

        A non-callable default, or a user-given value, is checked at once, so
        a bad value fails here naming the flag; a user value is consumed from
        ``flags_dict`` (what is left there at the end is unknown flags).
        """
        if "." in name:
            raise ValueError(f"Dot-based sections were removed. Use double underscores! ({name})")
        if not isinstance(configparam, ConfigParam):
            raise TypeError(
                f"add({name!r}): configparam must be a ConfigParam, "
                f"got {type(configparam).__name__}"
            )
        if name in self._config_var_dict or hasattr(type(self), name):
            raise AttributeError(f"The name {name} is already taken")
        configparam.name = name
        configparam.doc = doc
        configparam.in_c_key = in_c_key
        if not callable(configparam.default) or self._has_user_value(name):
            configparam._load(self, delete_key=True)
        self._config_var_dict[name] = configparam
        _REGISTERED_ANYWHERE.add(name)

    def _has_user_value(self, name: str) -> bool:
        try:
            self.fetch_val_for_key(name)
        except KeyError:
            return False
        return True

    def fetch_val_for_key(self, key: str, delete_key: bool = False) -> str:
        """The user's raw value for ``key`` (flags first, then the rc file); KeyError if none."""
        if key in self._flags_dict:
            return self._flags_dict.pop(key) if delete_key else self._flags_dict[key]
        section, _, option = key.rpartition("__")
        section = section or "global"
        try:
            try:
                return self._opgraph_cfg.get(section, option)
            except InterpolationError:
                return self._opgraph_raw_cfg.get(section, option)
        except (NoOptionError, NoSectionError):
            raise KeyError(key) from None

    def unknown_flags(self) -> dict[str, str]:
        """User flags that no registered parameter consumed, by name."""
        return dict(self._flags_dict)

    def warn_unused_flags(self) -> None:
        """Warn once per user flag that matches no registered parameter, naming it."""
        for key in self._flags_dict:
            close = difflib.get_close_matches(key, list(self._config_var_dict), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            warnings.warn(
                f"{self._source}: config flag {key!r} is not known to opgraph; ignored{hint}",
                OpgraphConfigWarning,
                stacklevel=3,
            )

    # -- reporting ------------------------------------------------------------------------------

    def flag_names(self) -> tuple[str, ...]:
        """All flag names, in registration order."""
        return tuple(self._config_var_dict)

    def as_dict(self) -> dict[str, Any]:
        """The current values by flag name."""
        return {name: getattr(self, name) for name in self._config_var_dict}

    def config_print(self, buf: Any, print_doc: bool = True) -> None:
        """Write every flag, its accepted values, its doc and its value to ``buf``."""
        for param in self._config_var_dict.values():
            print(param, file=buf)
            if print_doc:
                print("    Doc: ", param.doc, file=buf)
            print("    Value: ", param._load(self), file=buf)
            print("", file=buf)

    def __str__(self, print_doc: bool = True) -> str:
        buf = StringIO()
        self.config_print(buf, print_doc=print_doc)
        return buf.getvalue()

    def get_config_hash(self) -> str:
        """A sha256 of the flags marked ``in_c_key``: equal hashes, equal compiled code."""
        lines = (
            f"{name} = {param._load(self)}"
            for name, param in sorted(self._config_var_dict.items())
            if param.in_c_key
        )
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()

    def change_flags(self, *args: Mapping[str, Any], **kwargs: Any) -> _ChangeFlagsDecorator:
        """Set flags for a block (``with``) or a function (decorator), then restore them."""
        return _ChangeFlagsDecorator(*args, _root=self, **kwargs)


PyTensorConfigParser = OpgraphConfigParser
"""PyTensor's name for the parser class: user code that names it keeps working."""


class _ChangeFlagsDecorator:
    """Context manager and decorator behind ``change_flags``.

    Every new value is checked before any is set, so a bad value changes
    nothing; on exit the previous values come back, also after an error.
    """

    def __init__(self, *args: Mapping[str, Any], _root: OpgraphConfigParser | None = None,
                 **kwargs: Any) -> None:
        if _root is None:
            raise TypeError("_ChangeFlagsDecorator needs the config it changes (_root=)")
        values: dict[str, Any] = {}
        for mapping in args:
            if not isinstance(mapping, Mapping):
                raise TypeError(
                    f"change_flags: positional arguments must be mappings of flag names to "
                    f"values, got {type(mapping).__name__}"
                )
            values.update(mapping)
        values.update(kwargs)
        self._root = _root
        self.new_vals = {normalize_flag_name(k): v for k, v in values.items()}
        self.confs = {k: _root._param(k) for k in self.new_vals}
        self._saved: list[dict[str, Any]] = []

    def __call__(self, func: _F) -> _F:
        @functools.wraps(func)
        def wrapper(*a: Any, **kw: Any) -> Any:
            with self:
                return func(*a, **kw)

        return wrapper  # type: ignore[return-value]

    def __enter__(self) -> OpgraphConfigParser:
        root = self._root
        new = {k: p.filter(self.new_vals[k]) for k, p in self.confs.items()}
        old = {k: p._load(root) for k, p in self.confs.items()}
        for key, param in self.confs.items():
            if not param.mutable and new[key] != old[key]:
                raise ConfigError(
                    f"Can't change the value of {_flag_label(key)} after initialization"
                )
        self._saved.append(old)
        for key, param in self.confs.items():
            param.val = new[key]
            param._mirror(root)
        return root

    def __exit__(self, *exc: object) -> None:
        for key, value in self._saved.pop().items():
            param = self.confs[key]
            param.val = value
            param._mirror(self._root)


# --- reading the user's settings ------------------------------------------------------------


def parse_config_string(config_string: str, issue_warnings: bool = True,
                        source: str = FLAGS_ENV) -> dict[str, str]:
    """Parse ``"name=value,name2=value2"`` into raw strings by (normalised) flag name.

    Values stay strings: each flag's parameter converts and checks its own.
    An item without ``=`` is ignored with a warning naming it; a later item
    overrides an earlier one.
    """
    out: dict[str, str] = {}
    for item in config_string.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep:
            if issue_warnings:
                warnings.warn(
                    f"{source}: config item {item!r} has no '=value'; ignored",
                    OpgraphConfigWarning,
                    stacklevel=2,
                )
            continue
        out[normalize_flag_name(name)] = value.strip()
    return out


def config_files_from_opgraphrc(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The rc files to read: ``OPGRAPHRC`` (``os.pathsep``-separated), else ``~/.opgraphrc``.

    Files later in the list take precedence over earlier ones.
    """
    env = os.environ if environ is None else environ
    paths = [Path(p).expanduser() for p in env.get(RC_ENV, DEFAULT_RC).split(os.pathsep) if p]
    if RC_ENV not in env and sys.platform == "win32":
        paths.append(Path("~/.opgraphrc.txt").expanduser())
    return paths


def read_rc_files(paths: Sequence[Path], environ: Mapping[str, str] | None = None
                  ) -> tuple[ConfigParser, RawConfigParser]:
    """Parse the rc files (interpolating ``%(USER)s``, ``%(TMPDIR)s``... and a raw copy)."""
    env = os.environ if environ is None else environ
    defaults = {
        "USER": env.get("USER", Path("~").expanduser().name),
        "LSCRATCH": env.get("LSCRATCH", ""),
        "TMPDIR": env.get("TMPDIR", ""),
        "TEMP": env.get("TEMP", ""),
        "TMP": env.get("TMP", ""),
        "PID": str(os.getpid()),
    }
    cfg = ConfigParser(defaults)
    cfg.read(paths)
    raw = RawConfigParser()
    raw.read(paths)
    return cfg, raw
