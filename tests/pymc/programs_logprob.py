"""More PyMC programs: logp/logcdf/icdf of derived variables and model fgraphs.

Each ``@program`` (from ``program_kit``) registers itself when ``programs.py`` imports
this module; the values follow the key prefixes of ``programs.py``'s docstring.
"""

from __future__ import annotations
