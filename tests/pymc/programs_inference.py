"""More PyMC programs: samplers, variational fits, SMC, predictive draws, transforms.

Each ``@program`` (from ``program_kit``) registers itself when ``programs.py`` imports
this module; the values follow the key prefixes of ``programs.py``'s docstring.
"""

from __future__ import annotations
