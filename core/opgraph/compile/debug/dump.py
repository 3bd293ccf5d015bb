"""``function_dump``: pickle the arguments of a ``function()`` call to reproduce it elsewhere.

``function(**pickle.load(f))`` rebuilds the same function, which makes a
self-contained bug report.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["function_dump"]


def function_dump(
    filename: str | Path,
    inputs: Iterable[Any],
    outputs: Any = None,
    mode: Any = None,
    updates: Any = None,
    givens: Any = None,
    no_default_updates: bool = False,
    accept_inplace: bool = False,
    name: str | None = None,
    rebuild_strict: bool = True,
    allow_input_downcast: bool | None = None,
    profile: Any = None,
    on_unused_input: str | None = None,
    extra_tag_to_remove: Iterable[str] | None = None,
    trust_input: bool = False,
) -> None:
    """Write ``dict(inputs=..., outputs=..., ...)`` to ``filename`` with pickle.

    ``extra_tag_to_remove``: tag attributes to strip from the variables first
    (things that do not pickle).
    """
    kwargs = {
        "inputs": list(inputs), "outputs": outputs, "mode": mode, "updates": updates,
        "givens": givens, "no_default_updates": no_default_updates,
        "accept_inplace": accept_inplace, "name": name, "rebuild_strict": rebuild_strict,
        "allow_input_downcast": allow_input_downcast, "profile": profile,
        "on_unused_input": on_unused_input, "trust_input": trust_input,
    }
    for tag_name in extra_tag_to_remove or ():
        for var in kwargs["inputs"]:
            tag = getattr(var, "tag", None)
            if tag is not None and hasattr(tag, tag_name):
                delattr(tag, tag_name)
    with Path(filename).open("wb") as f:
        pickle.dump(kwargs, f, protocol=pickle.HIGHEST_PROTOCOL)
