"""``python -m opgraph_demo.cold MODE``: compile every example once, print the times as JSON.

Run by :func:`opgraph_demo.measure.cold_compile_times` in a fresh process with an
empty compile cache, so the times are those a user meets the first time.
"""

from __future__ import annotations

import json
import sys
import time
import warnings

from opgraph.compile.function import function
from opgraph_demo.examples import build_examples, plugin_states


def main(argv: list[str]) -> int:
    """Compile each example in mode ``argv[0]``; print ``{example: seconds}``."""
    mode = argv[0]
    times: dict[str, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ex in build_examples(plugin_states(), []):
            start = time.perf_counter()
            function(ex.inputs, ex.outputs, mode=mode)
            times[ex.name] = time.perf_counter() - start
    print(json.dumps(times))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
