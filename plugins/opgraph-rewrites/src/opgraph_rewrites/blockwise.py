"""What PyTensor code imports from ``pytensor.tensor.rewriting.blockwise``.

The rule itself lives with Blockwise in the core (``opgraph.tensor.blockwise``);
the linear-algebra plugin registers it in the standard database.
"""

from __future__ import annotations

from opgraph.tensor.blockwise import local_useless_blockwise

__all__ = ["local_useless_blockwise"]
