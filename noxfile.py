"""Test sessions: the core alone, each package in isolation, then everything together.

``nox`` runs every test session and lint; ``nox -s bench`` runs the benchmarks.
Package sessions are discovered from the file system: any directory under
``plugins/`` or ``contrib/`` with a ``pyproject.toml`` gets a session named
after the directory, installing the core, that package and the local
packages it depends on (transitively), and running its ``tests/``.

Speed (docs/testing.md, "Running the tests"): two sessions run at once, each
printed whole when it ends (``OPGRAPH_NOX_JOBS=1`` for one at a time; needs a
nox with ``--parallel``, older ones run sequentially); pytest runs on two
xdist workers in the longest sessions (``OPGRAPH_TEST_WORKERS``, 0 for none);
hypothesis uses the ``ci`` profile (conftest.py: fewer derandomized examples,
no deadline); the tests
marked ``slow`` run only in ``nox -s slow``.  The longest sessions are defined
first, so they start first.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import nox
from nox.command import CommandFailed

nox.needs_version = ">=2024.3.2"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True
if hasattr(nox.options, "parallel"):  # nox >= 2026.10: run sessions side by side
    nox.options.parallel = os.environ.get("OPGRAPH_NOX_JOBS", "2")
    nox.options.allow_parallel = True

ROOT = Path(__file__).resolve().parent
PYTHON = "3.11"
TEST_DEPS = ("pytest>=8", "hypothesis>=6.90", "pytest-xdist>=3.5")
NO_TESTS_COLLECTED = 5  # pytest's exit code when a directory holds no tests yet
TEST_ENV = {"OPGRAPH_HYPOTHESIS_PROFILE": "ci"}


# Sessions long enough that a second pytest-xdist worker pays for itself: a worker
# costs about 3 CPU-seconds (an interpreter importing opgraph and collecting), which
# the short sessions, already running beside another session, do not win back.
XDIST_SESSIONS = frozenset({"integration", "core", "opgraph-c"})


def _worker_args(session: nox.Session) -> list[str]:
    """``-n N --dist loadfile`` for the long sessions: N from OPGRAPH_TEST_WORKERS (2)."""
    workers = os.environ.get("OPGRAPH_TEST_WORKERS", "2")
    if not workers.isdigit():
        raise ValueError(f"OPGRAPH_TEST_WORKERS must be a whole number, got {workers!r}")
    if int(workers) < 2 or session.name not in XDIST_SESSIONS:
        return []
    return ["-n", workers, "--dist", "loadfile"]


def _pytest(session: nox.Session, *paths: str, success_codes: tuple[int, ...] = (0,)) -> None:
    """pytest over ``paths`` with the CI settings; the session's arguments go last."""
    session.run("pytest", *paths, *_worker_args(session), *session.posargs,
                env=TEST_ENV, success_codes=list(success_codes))


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return _normalize(match.group(1)) if match else ""


class LocalPackage:
    """A package directory under plugins/ or contrib/ with its declared dependencies."""

    def __init__(self, path: Path) -> None:
        data = tomllib.loads((path / "pyproject.toml").read_text(encoding="utf-8"))
        project = data.get("project", {})
        self.path = path
        self.session_name = path.name
        self.name = _normalize(project.get("name", path.name))
        self.dependencies = [_requirement_name(r) for r in project.get("dependencies", [])]
        extras = project.get("optional-dependencies", {})
        self.has_test_extra = "test" in extras
        # Local packages named in the test extra (e.g. a linker the tests need) count too.
        self.dependencies += [_requirement_name(r) for r in extras.get("test", [])]

    def install_arg(self) -> str:
        rel = self.path.relative_to(ROOT).as_posix()
        return f"./{rel}[test]" if self.has_test_extra else f"./{rel}"


def _discover() -> dict[str, LocalPackage]:
    found: dict[str, LocalPackage] = {}
    for parent in ("plugins", "contrib"):
        for path in sorted((ROOT / parent).glob("*/pyproject.toml")):
            pkg = LocalPackage(path.parent)
            found[pkg.name] = pkg
    return found


PACKAGES = _discover()


def _local_closure(pkg: LocalPackage) -> list[LocalPackage]:
    """``pkg`` and every local package it depends on, directly or not."""
    seen: dict[str, LocalPackage] = {}
    todo = [pkg]
    while todo:
        current = todo.pop()
        if current.name in seen:
            continue
        seen[current.name] = current
        todo.extend(PACKAGES[d] for d in current.dependencies if d in PACKAGES)
    return list(seen.values())


def _install(session: nox.Session, packages: list[LocalPackage]) -> None:
    # One command, so the resolver takes "opgraph" and local plugins from here, not an index.
    args = ["-e", ".[test]"]
    for pkg in packages:
        args += ["-e", pkg.install_arg()]
    session.install(*args, *TEST_DEPS)


@nox.session(python=PYTHON)
def integration(session: nox.Session) -> None:
    """The core with every local package installed."""
    _install(session, list(PACKAGES.values()))
    if not (ROOT / "tests" / "integration").is_dir():
        session.skip("tests/integration does not exist yet")
    _pytest(session, "tests/integration", success_codes=(0, NO_TESTS_COLLECTED))


@nox.session(python=PYTHON)
def core(session: nox.Session) -> None:
    """The core alone, no plugin installed."""
    _install(session, [])
    _pytest(session, "tests", "--ignore=tests/integration")


def _make_package_session(pkg: LocalPackage) -> None:
    def run_package(session: nox.Session) -> None:
        tests = pkg.path / "tests"
        if not tests.is_dir():
            session.skip(f"{pkg.session_name} has no tests/ directory yet")
        _install(session, _local_closure(pkg))
        _pytest(session, str(tests.relative_to(ROOT)), success_codes=(0, NO_TESTS_COLLECTED))

    run_package.__doc__ = f"{pkg.name} and the local packages it depends on, in isolation."
    nox.session(run_package, python=PYTHON, name=pkg.session_name)


for _pkg in PACKAGES.values():
    _make_package_session(_pkg)


@nox.session(python=PYTHON, default=False)
def slow(session: nox.Session) -> None:
    """Only the tests marked ``slow`` (minutes or gigabytes each), everything installed.

    Not part of a plain ``nox`` run; ``nox -s slow`` runs them all.
    """
    _install(session, list(PACKAGES.values()))
    session.install("pytest-timeout")
    paths = ["tests", *(str((p.path / "tests").relative_to(ROOT)) for p in PACKAGES.values()
                        if (p.path / "tests").is_dir())]
    session.run("pytest", *paths, "-m", "slow", "--run-slow", *session.posargs, env=TEST_ENV,
                success_codes=[0, NO_TESTS_COLLECTED])


@nox.session(python=PYTHON, default=False)
def fuzz(session: nox.Session) -> None:
    """The long differential-fuzz profile (docs/testing.md); not part of a plain ``nox`` run.

    ``nox -s fuzz`` runs 20,000 random graphs and 500 gradient graphs on two workers, then
    5,000 value-and-gradient graphs with linear algebra (``--grad-linalg``, grad_driver.py);
    ``nox -s fuzz -- --graphs 2000 --jobs 1`` (any option of the driver) changes that.
    The CI profile runs inside the ``integration`` session.
    """
    _install(session, list(PACKAGES.values()))
    session.run("python", "-m", "integration.fuzz.driver", *session.posargs,
                env={"PYTHONPATH": str(ROOT / "tests")})


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff over the whole repository, then the layer contract (tools/layers.py).

    The contract (docs/architecture.md, "Layers"): upward imports between core
    layers, ``opgraph_*`` imports from the core, hidden imports beyond the
    recorded debt, class-name dispatch, another plugin's internal modules, and
    modules over 800 lines.  It reads the sources only, so nothing is installed.
    """
    session.install("ruff")
    session.run("ruff", "check", ".", *session.posargs)
    session.run("python", "tools/layers.py", "check")


DOCS_DEPS = ("mkdocs>=1.6", "mkdocs-material>=9.5", "mkdocstrings[python]>=0.26")


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build the documentation site (mkdocs.yml) with warnings as errors.

    The API pages read the sources statically (mkdocstrings ``paths``), so only
    the site tools are installed.  The site goes to .nox/docs/tmp/site.
    """
    session.install(*DOCS_DEPS)
    site = Path(session.create_tmp()) / "site"
    session.run("mkdocs", "build", "--strict", "--site-dir", str(site),
                env={"NO_MKDOCS_2_WARNING": "1"})
    session.log(f"documentation built in {site}")


@nox.session(python=PYTHON, default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks against PyTensor (not part of a plain ``nox`` run).

    ``nox -s bench -- --quick`` shrinks every size for a smoke test; the report goes to
    bench-report/ (``-- --out DIR`` to change it).
    """
    _install(session, list(PACKAGES.values()))
    requirements = ROOT / "benchmarks" / "requirements.txt"
    if requirements.is_file():
        session.install("-r", str(requirements.relative_to(ROOT)))
    try:
        session.install("pytensor==3.0.7")
    except CommandFailed:
        session.warn("PyTensor 3.0.7 could not be installed; comparisons with it are skipped")
    script = ROOT / "benchmarks" / "run.py"
    if not script.is_file():
        session.skip("benchmarks/run.py does not exist yet")
    session.run("python", str(script.relative_to(ROOT)), *session.posargs)


CONFORMANCE = ROOT.parent / "shared" / "conformance"
CONFORMANCE_TARGETS = (
    "tests/graph",
    "tests/compile",
    "tests/test_gradient.py",
    "tests/test_rop.py",
    "tests/test_config.py",
    "tests/test_ifelse.py",
    "tests/test_raise_op.py",
    "tests/test_printing.py",
)


@nox.session(python=PYTHON, default=False)
def conformance(session: nox.Session) -> None:
    """PyTensor 3.0.7's own tests re-pointed at opgraph (needs ../shared/conformance).

    ``nox -s conformance`` runs the graph/compile/gradient files the module map
    targets; ``nox -s conformance -- tests/tensor/test_shape.py`` runs others.
    The per-file table goes to conformance-report/summary.txt.
    """
    script = CONFORMANCE / "run.sh"
    if not script.is_file():
        session.skip(f"{script} not found (the conformance suite lives beside the repository)")
    _install(session, list(PACKAGES.values()))
    # numba only because some PyTensor test files name its warning classes in filters.
    session.install("pytest-timeout", "pytest-mock", "numba")
    out = ROOT / "conformance-report"
    python = Path(session.bin) / "python"
    session.run(
        "bash", str(script), "opgraph", str(out), *(session.posargs or CONFORMANCE_TARGETS),
        env={"PYTHON": str(python), "COLLECT_COUNTS": str(CONFORMANCE / "counts.tsv")},
        external=True,
    )
