"""Installs ``opgraph_pytensor.pth`` at the top of site-packages (beside the package).

A ``.pth`` file there runs one import line at interpreter start-up; ours
installs the ``pytensor`` -> ``opgraph`` import finder (a few microseconds,
opgraph itself is not imported).  setuptools has no declarative way to place
a file outside the packages, so ``build_py`` copies it into the build tree,
for wheels and for editable installs alike.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

PTH = "opgraph_pytensor.pth"
HERE = Path(__file__).resolve().parent


class BuildWithPth(build_py):
    """``build_py`` that also places the start-up ``.pth`` file at the wheel's root."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / PTH
        target.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(HERE / "src" / PTH), str(target), preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / PTH)]


class EditableWithPth(editable_wheel):
    """``pip install -e``: the editable wheel carries the start-up ``.pth`` file too.

    The editable wheel holds only setuptools' own path file; its strategy (the
    object writing that file) is wrapped to add ours.  ``_select_strategy`` is
    setuptools' extension point for this (it has no public one).
    """

    def _select_strategy(self, name, tag, build_lib):  # type: ignore[no-untyped-def]
        strategy = super()._select_strategy(name, tag, build_lib)
        content = (HERE / "src" / PTH).read_bytes()

        class WithPth:
            def __enter__(self):  # type: ignore[no-untyped-def]
                strategy.__enter__()
                return self

            def __exit__(self, *exc):  # type: ignore[no-untyped-def]
                return strategy.__exit__(*exc)

            def __call__(self, wheel, files, mapping):  # type: ignore[no-untyped-def]
                strategy(wheel, files, mapping)
                wheel.writestr(PTH, content)

        return WithPth()


setup(cmdclass={"build_py": BuildWithPth, "editable_wheel": EditableWithPth})
