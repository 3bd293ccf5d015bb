"""What PyTensor code finds at ``pytensor.compile.builders``.

This plugin serves ``opgraph.compile.builders`` with this module (the
``opgraph_public_modules`` hook), so ``from opgraph.compile.builders import
OpFromGraph`` gives the same class as ``from opgraph_ofg import OpFromGraph``.
"""

from __future__ import annotations

from opgraph_ofg.op import OpFromGraph

__all__ = ["OpFromGraph"]
