"""Every hook's docstring example runs, and passes, as a doctest."""

import doctest

import pytest

import opgraph.plugins.hookspecs as hookspecs


def _tests():
    finder = doctest.DocTestFinder(exclude_empty=True)
    return {t.name.rsplit(".", 1)[-1]: t for t in finder.find(hookspecs)}


@pytest.mark.parametrize("hookname", hookspecs.HOOK_NAMES)
def test_hook_docstring_example_runs(hookname):
    test = _tests().get(hookname)
    assert test is not None and test.examples, f"{hookname} has no >>> example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=lambda text: pytest.fail(f"{hookname} example:\n{text}"))
    assert result.failed == 0 and result.attempted == len(test.examples)


def test_every_hookspec_is_listed():
    specs = {n for n in dir(hookspecs) if n.startswith("opgraph_")}
    assert specs == set(hookspecs.HOOK_NAMES)
