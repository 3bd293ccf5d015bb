"""What PyTensor code imports from ``pytensor.tensor.rewriting.blockwise``.

The rule itself lives with Blockwise in the core (``opgraph.tensor.blockwise``);
the linear-algebra plugin registers it in the standard database.
"""

from __future__ import annotations

from opgraph.tensor.blockwise import local_useless_blockwise
from opgraph_rewrites.blockwise_passes import local_blockwise_reshape

__all__ = [
    "local_blockwise_reshape",
    "local_useless_blockwise",
    "local_useless_unbatched_blockwise",
]

#: PyTensor's name: a Blockwise without batch dimensions is its core Op.
local_useless_unbatched_blockwise = local_useless_blockwise
