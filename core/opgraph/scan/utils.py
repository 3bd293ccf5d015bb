"""Small pieces of the scan API: ``until`` and ``ScanArgs`` (PyTensor's ``scan.utils``)."""

from __future__ import annotations

from typing import Any

from opgraph.scan.args import FieldInfo, ScanArgs
from opgraph.scan.key import InnerGraphKey
from opgraph.tensor.variable import as_tensor_variable

__all__ = ["FieldInfo", "InnerGraphKey", "ScanArgs", "until"]


class until:
    """Stop a scan after the step where ``condition`` is true (a while loop).

    The step function returns it beside its outputs:
    ``return new_x, until(new_x > 10)``.  The condition must be a boolean
    (or integer) scalar; anything else is refused here, when the graph is built.
    """

    def __init__(self, condition: Any) -> None:
        try:
            cond = as_tensor_variable(condition)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"until: condition must be a boolean scalar; got {condition!r:.60}"
                            f" ({exc})") from None
        if cond.type.ndim != 0:
            raise TypeError(f"until: condition must be a boolean scalar; got a "
                            f"{cond.type.ndim}-d tensor {cond.type}")
        if not (cond.type.dtype == "bool" or cond.type.dtype.startswith(("int", "uint"))):
            raise TypeError(f"until: condition must be a boolean scalar; got dtype "
                            f"{cond.type.dtype} ({cond.type})")
        self.condition = cond
