"""``opgraph.link.numba``: the path exists, building a Numba linker says why it cannot."""

from __future__ import annotations

import pytest

from opgraph.link.basic import Linker
from opgraph.link.numba import NumbaLinker


def test_numba_linker_is_a_linker_class_that_refuses_to_build():
    assert issubclass(NumbaLinker, Linker)
    with pytest.raises(ImportError, match="no Numba linker"):
        NumbaLinker()
