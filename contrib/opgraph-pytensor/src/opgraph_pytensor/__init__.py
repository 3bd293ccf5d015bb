"""``import pytensor`` served by opgraph: unmodified PyTensor clients (PyMC) run on it.

Installed, this distribution places ``opgraph_pytensor.pth`` in site-packages,
which at interpreter start-up puts :class:`~opgraph_pytensor._finder.PyTensorAlias`
at the front of ``sys.meta_path``.  From then on ``import pytensor`` returns
the ``opgraph`` module object and ``import pytensor.x.y`` returns
``opgraph.x.y``: the same objects, so a class has one identity under both
names.  It wins over a PyTensor wheel installed beside it (pip installs one as
PyMC's dependency).  ``OPGRAPH_AS_PYTENSOR=0`` in the environment turns it off
for a process.

This package imports nothing of opgraph at start-up (the ``.pth`` line must
stay cheap); opgraph is imported when ``pytensor`` first is.
"""

from __future__ import annotations

from opgraph_pytensor._finder import (
    ENV_VAR,
    PYTENSOR_VERSION,
    PyTensorAlias,
    adopt_pytensor_settings,
    enabled_by_environment,
    install,
    install_from_environment,
    installed_finder,
    shadowed_pytensor,
    uninstall,
)

__all__ = [
    "ENV_VAR",
    "PYTENSOR_VERSION",
    "PyTensorAlias",
    "adopt_pytensor_settings",
    "enabled_by_environment",
    "install",
    "install_from_environment",
    "installed_finder",
    "shadowed_pytensor",
    "uninstall",
]
