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
import shutil
import subprocess
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


def _find_pyenv_interpreters(versions: tuple[str, ...] = ("3.11", "3.12", "3.13")) -> None:
    """Put pyenv's ``X.Y`` interpreters on PATH when ``pythonX.Y`` does not run from it.

    The machines here have CPython 3.12 and 3.13 under pyenv without selecting them
    (the shim answers "command not found"), and uv must not try to download one (no
    network): each version's ``bin`` is prepended, newest patch release first.
    """
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    extra = []
    for version in versions:
        found = shutil.which(f"python{version}")
        if found and subprocess.run([found, "--version"], capture_output=True).returncode == 0:
            continue
        candidates = sorted(root.glob(f"{version}.*/bin/python{version}"), reverse=True)
        if candidates:
            extra.append(str(candidates[0].parent))
    if extra:
        os.environ["PATH"] = os.pathsep.join([*extra, os.environ.get("PATH", "")])
    os.environ.setdefault("UV_PYTHON_DOWNLOADS", "never")


_find_pyenv_interpreters()
PYTHON = "3.11"
#: The interpreters ``core`` and ``integration`` run on (PyMC 6 needs 3.12; 3.13 is supported
#: by the metadata and checked by hand: docs/testing.md).
PYTHONS = ("3.11", "3.12")
#: What ``integration`` runs on the newer interpreter, to keep CI time: the files that
#: build and run C modules against that interpreter's headers in every mode, the served
#: PyTensor paths (import machinery) and the memory rule; the rest exercises no
#: version-specific code and runs on 3.11.
INTEGRATION_SECOND_PYTHON_FILES = (
    "tests/integration/test_gram_gradients.py",
    "tests/integration/test_function_memory.py",
    "tests/integration/test_mlp_gradient_blas.py",
    "tests/integration/test_seed_examples.py",
    "tests/integration/test_served_submodules.py",
    "tests/integration/test_unaligned_inputs.py",
)
TEST_DEPS = ("pytest>=8", "hypothesis>=6.90", "pytest-xdist>=3.5")
NO_TESTS_COLLECTED = 5  # pytest's exit code when a directory holds no tests yet
# Bytecode is written (an empty PYTHONDONTWRITEBYTECODE turns a caller's setting off): every
# xdist worker and subprocess test would otherwise recompile each imported source.
TEST_ENV = {"OPGRAPH_HYPOTHESIS_PROFILE": "ci", "PYTHONDONTWRITEBYTECODE": ""}


# Sessions long enough that a second pytest-xdist worker pays for itself: a worker
# costs about 3 CPU-seconds (an interpreter importing opgraph and collecting), which
# the short sessions, already running beside another session, do not win back.
XDIST_SESSIONS = frozenset({"integration", "core", "opgraph-c"})


def _base_name(session: nox.Session) -> str:
    """The session's name without its interpreter (``integration-3.12`` -> ``integration``)."""
    return re.sub(r"-\d+\.\d+$", "", session.name)


def _worker_args(session: nox.Session) -> list[str]:
    """``-n N --dist loadfile`` for the long sessions: N from OPGRAPH_TEST_WORKERS (2)."""
    workers = os.environ.get("OPGRAPH_TEST_WORKERS", "2")
    if not workers.isdigit():
        raise ValueError(f"OPGRAPH_TEST_WORKERS must be a whole number, got {workers!r}")
    if int(workers) < 2 or _base_name(session) not in XDIST_SESSIONS:
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

COMPAT = "opgraph-pytensor"
"""The distribution that makes ``import pytensor`` return opgraph (docs/pymc.md).

Sessions that compare with the real PyTensor (bench, conformance) leave it out
and also set ``OPGRAPH_AS_PYTENSOR=0``, so a reused environment cannot route
their ``import pytensor`` to opgraph.
"""
REAL_PYTENSOR_ENV = {"OPGRAPH_AS_PYTENSOR": "0"}


def _without_compat() -> list[LocalPackage]:
    return [p for p in PACKAGES.values() if p.name != COMPAT]


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


@nox.session(python=PYTHONS)
def integration(session: nox.Session) -> None:
    """The core with every local package installed (on 3.12 a version-sensitive subset)."""
    _install(session, list(PACKAGES.values()))
    if not (ROOT / "tests" / "integration").is_dir():
        session.skip("tests/integration does not exist yet")
    paths = ["tests/integration"] if session.python == PYTHON else \
        list(INTEGRATION_SECOND_PYTHON_FILES)
    _pytest(session, *paths, success_codes=(0, NO_TESTS_COLLECTED))


@nox.session(python=PYTHONS)
def core(session: nox.Session) -> None:
    """The core alone, no plugin installed (tests/pymc need PyMC: sessions pymc*)."""
    _install(session, [])
    _pytest(session, "tests", "--ignore=tests/integration", "--ignore=tests/pymc")


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

    ``nox -s fuzz`` runs 20,000 random graphs, 500 gradient graphs and 20,000 random
    functions (updates, shared outputs, borrow, views, copies) on two workers, then
    5,000 value-and-gradient graphs with linear algebra (``--grad-linalg``, grad_driver.py);
    ``nox -s fuzz -- --graphs 2000 --jobs 1`` (any option of the driver) changes that.
    The CI profile runs inside the ``integration`` session.
    """
    _install(session, list(PACKAGES.values()))
    session.run("python", "-m", "integration.fuzz.driver", *session.posargs,
                env={"PYTHONPATH": str(ROOT / "tests")})


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff over the whole repository, the layer contract (tools/layers.py), mypy, then the
    documentation checks (tools/check_docs.py: package table, mode/linker names, options).

    The contract (docs/architecture.md, "Layers" and "The public API"), in every
    package: upward imports between core layers, ``opgraph_*`` imports from the
    core, hidden imports beyond the recorded debt, import cycles, class-name
    dispatch, plugins importing private or non-public core names or another
    plugin's internals, modules over 800 lines, functions over 120 lines beyond
    the recorded debt, C in Python strings.  It reads the sources only.  mypy
    checks the typed seam listed in pyproject.toml ``[tool.mypy]`` (the plugin
    machinery and the graph contracts), with the core's dependencies installed
    for their types.
    """
    session.install("ruff", "mypy", "attrs>=23.1", "pluggy>=1.3", "numpy>=1.26")
    session.run("ruff", "check", ".", *session.posargs)
    session.run("python", "tools/layers.py", "check")
    session.run("mypy")
    session.run("python", "tools/check_docs.py")


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
    _install(session, _without_compat())
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
    env = dict(REAL_PYTENSOR_ENV)
    pymc_python = _bench_pymc_python(session)
    if pymc_python is not None:
        env["OPGRAPH_BENCH_PYMC_PYTHON"] = str(pymc_python)
    session.run("python", str(script.relative_to(ROOT)), *session.posargs, env=env)


def _bench_pymc_python(session: nox.Session) -> Path | None:
    """A Python 3.12 environment for benchmarks/bench_pymc.py (kept between runs).

    PyMC 6.0.0 (which brings PyTensor 3.0.7) and numba, with every local package and
    the opgraph-pytensor layer: the benchmark runs each case twice in it,
    ``OPGRAPH_AS_PYTENSOR=1`` (opgraph) and ``=0`` (the real PyTensor).  None, with a
    warning, when Python 3.12 or the packages are not available.
    """
    venv = Path(session.create_tmp()) / "pymc-bench-venv"
    python = venv / "bin" / "python"
    local = [arg for pkg in PACKAGES.values() for arg in ("-e", pkg.install_arg())]
    try:
        if not python.exists():
            session.run("uv", "venv", "-q", "--python", PYMC_PYTHON, str(venv), external=True)
        session.run("uv", "pip", "install", "-q", "--python", str(python), "-e", ".",
                    *local, *PYMC_REQUIREMENTS, external=True)
    except CommandFailed:
        session.warn("no Python 3.12 environment with PyMC: bench_pymc is skipped")
        return None
    return python


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
    _install(session, _without_compat())
    # numba only because some PyTensor test files name its warning classes in filters.
    session.install("pytest-timeout", "pytest-mock", "numba")
    out = ROOT / "conformance-report"
    python = Path(session.bin) / "python"
    session.run(
        "bash", str(script), "opgraph", str(out), *(session.posargs or CONFORMANCE_TARGETS),
        env={"PYTHON": str(python), "COLLECT_COUNTS": str(CONFORMANCE / "counts.tsv"),
             **REAL_PYTENSOR_ENV},
        external=True,
    )


# -- PyMC 6 on opgraph (docs/pymc.md) ---------------------------------------------------------

PYMC_PYTHON = "3.12"  # PyMC 6 requires Python >= 3.12
#: PyMC and, for the PyTensor reference, a released numba (a pre-release may not import).
PYMC_REQUIREMENTS = ("pymc==6.0.0", "numba<0.63.0b0")
PYMC_TEST_DEPS = ("pytest>=8", "pytest-timeout", "pytest-mock", "matplotlib", "scipy>=1.11",
                  "numpyro")  # tests/pymc/test_numpyro.py: PyMC's numpyro sampler on opgraph-jax
#: PyTensor names PyMC imports that are reported, not failed, by the check (none left:
#: sparse, xtensor and the JAX dispatcher have landed).
PYMC_PENDING_NAMES: tuple[str, ...] = ()
PYMC_SDIST = ROOT.parent / "shared" / "pymc" / "run.sh"


def _install_pymc(session: nox.Session) -> None:
    _install(session, list(PACKAGES.values()))
    session.install(*PYMC_REQUIREMENTS, *PYMC_TEST_DEPS)
    session.run("python", "-c", "import opgraph, pytensor; assert pytensor is opgraph, "
                "pytensor.__file__; print('pytensor ->', pytensor.__file__)")


@nox.session(python=PYMC_PYTHON, name="pymc-quick")
def pymc_quick(session: nox.Session) -> None:
    """PyMC 6.0.0 on opgraph, quickly: import, logp/dlogp, find_MAP, short NUTS, prior draws."""
    _install_pymc(session)
    session.run("pytest", "tests/pymc/test_quick.py", "-p", "no:cacheprovider",
                *session.posargs, env=TEST_ENV)


def _reference_venv(session: nox.Session) -> Path:
    """A second environment with PyMC 6.0.0 on PyTensor 3.0.7 itself (kept between runs)."""
    venv = Path(session.create_tmp()) / "pytensor-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        session.run("python", "-m", "venv", str(venv))
    session.run(str(python), "-m", "pip", "install", "-q", *PYMC_REQUIREMENTS, *PYMC_TEST_DEPS,
                external=True)
    return python


def _passed(summary: Path) -> int:
    """N of the ``N passed, M failed`` line run.sh prints last."""
    match = re.search(r"(\d+) passed, (\d+) failed", summary.read_text(encoding="utf-8"))
    if match is None:
        raise RuntimeError(f"{summary} holds no 'N passed, M failed' line")
    return int(match.group(1))


@nox.session(python=PYMC_PYTHON, default=False)
def pymc(session: nox.Session) -> None:
    """PyMC 6.0.0 on opgraph against PyMC 6.0.0 on PyTensor 3.0.7 (opt-in; tens of minutes).

    1. every name PyMC imports from pytensor resolves (tools/pytensor_names.py);
    2. tests/pymc/programs.py runs in both environments and every value is compared
       (tests/pymc/test_programs.py with OPGRAPH_PYMC_REFERENCE);
    3. PyMC's own sdist tests (../shared/pymc/run.sh) in both; opgraph must pass at least
       as many.  Reports go to pymc-report/.
    """
    _install_pymc(session)
    pending = [arg for p in PYMC_PENDING_NAMES for arg in ("--pending", p)]
    session.run("python", "tools/pytensor_names.py", "pymc", *pending)
    out = ROOT / "pymc-report"
    out.mkdir(exist_ok=True)
    reference = _reference_venv(session)
    ref_json = out / "pytensor-programs.json"
    session.run(str(reference), "tests/pymc/programs.py", "--out", str(ref_json), external=True,
                success_codes=[0, 1])
    session.run("pytest", "tests/pymc", "-p", "no:cacheprovider", *session.posargs,
                env={**TEST_ENV, "OPGRAPH_PYMC_REFERENCE": str(ref_json)})
    if not PYMC_SDIST.is_file():
        session.warn(f"{PYMC_SDIST} not found: PyMC's sdist tests are skipped")
        return
    runs = {"opgraph": Path(session.bin) / "python", "pytensor": reference}
    for name, python in runs.items():
        with open(out / f"sdist-{name}.txt", "w", encoding="utf-8") as fh:
            session.run("bash", str(PYMC_SDIST), str(out / f"sdist-{name}"), external=True,
                        env={"PYTHON": str(python)}, stdout=fh)
    mine, ref = _passed(out / "sdist-opgraph.txt"), _passed(out / "sdist-pytensor.txt")
    session.log(f"PyMC sdist tests: opgraph {mine} passed, PyTensor 3.0.7 {ref} passed")
    if mine < ref:
        session.error(f"opgraph passes fewer PyMC tests than PyTensor ({mine} < {ref})")
