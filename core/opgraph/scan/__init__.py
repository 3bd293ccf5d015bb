"""Loops over symbolic graphs: ``scan`` and the views built on it (PyTensor's ``pytensor.scan``).

As in PyTensor, ``opgraph.scan(fn, ...)`` calls :func:`scan` while
``opgraph.scan.views`` and friends stay importable: the package module is
callable.
"""

import sys
import types
from typing import Any

from opgraph.scan.basic import scan
from opgraph.scan.checkpoints import scan_checkpoints
from opgraph.scan.op import Scan, ScanInfo
from opgraph.scan.utils import until
from opgraph.scan.views import foldl, foldr, map, reduce

__all__ = ["Scan", "ScanInfo", "foldl", "foldr", "map", "reduce", "scan", "scan_checkpoints",
           "until"]


class _CallableModule(types.ModuleType):
    """The package module, callable as ``scan`` itself (``opgraph.scan(fn, ...)``)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return scan(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
