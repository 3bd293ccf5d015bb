"""PyTensor's C / CVM / VM Mode objects compile with the linkers they name."""

from __future__ import annotations

import numpy as np

import opgraph
import opgraph.tensor as pt
from opgraph.compile.mode import CVM, VM, C


def test_c_cvm_vm_modes_compile_with_their_linkers() -> None:
    x = pt.dvector("x")
    for mode, linker in ((VM, "VMLinker"), (CVM, "CVMLinker"), (C, "CLinker")):
        f = opgraph.function([x], pt.exp(x).sum(), mode=mode)
        assert type(f.maker.linker).__name__ == linker
        np.testing.assert_allclose(f(np.zeros(3)), 3.0)
