"""Checks that README.md and docs/ say what the code does, where a program can tell.

``python tools/check_docs.py`` (run by ``nox -s lint``) reads the sources only,
so nothing needs to be installed.  It checks that

* the packages README's install command installs are those of docs/index.md's
  install command, and each one has a row in docs/index.md's package table
  (and each row names a package that exists);
* every mode name (``mode="C"``, mode `FAST_RUN`, ``get_mode("DebugMode")``,
  ``OPGRAPH_FLAGS=mode=...``) and linker name (``linker="cvm"``, linker `c`)
  the pages mention is one the core or a plugin declares, and every
  ``...Linker`` / ``...Mode`` class they name in backquotes is defined;
* every mode and linker a plugin declares has a row in docs/modes.md's tables;
* every option of an ``opgraph <command>`` the pages show exists.

The python blocks of the pages run as tests in the ``integration`` session
(tests/integration/test_docs_examples.py), where every plugin is installed.
Exit status 1 and one line per problem when something is wrong.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIRS = ("core", "plugins", "contrib")

#: ``mode=`` arguments of NumPy/SciPy-style functions and files, not compile modes.
NOT_COMPILE_MODES = frozenset({
    "r", "w", "a", "rb", "wb", "full", "valid", "same", "symmetric", "reflect", "constant",
    "edge", "wrap", "raise", "clip", "mean", "median", "maximum", "minimum", "linear_ramp",
    "reduced", "complete", "economic", "raw", "nearest", "linear",
})


def _pages(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def _sources(root: Path) -> Iterable[Path]:
    for folder in SOURCE_DIRS:
        for path in sorted((root / folder).rglob("*.py")):
            if "tests" not in path.relative_to(root).parts:
                yield path


# -- packages -------------------------------------------------------------------------------

def install_paths(text: str) -> list[str]:
    """The local paths (``.``, ``./plugins/x``) of the first ``pip install`` command."""
    joined = re.sub(r"\\\n\s*", " ", text)
    match = re.search(r"pip install ([^\n&;|]*)", joined)
    if match is None:
        return []
    return [tok.split("[")[0].rstrip("/") for tok in match.group(1).split()
            if tok.startswith(".")]


def distribution(root: Path, rel: str) -> str:
    """The project name in ``rel``'s pyproject.toml (or why there is none)."""
    path = root / rel / "pyproject.toml"
    if not path.is_file():
        return f"<no pyproject.toml in {rel}>"
    return tomllib.loads(path.read_text(encoding="utf-8"))["project"]["name"]


def table_names(text: str) -> list[str]:
    """First-column names of the table whose header starts ``| distribution |``."""
    names, inside = [], False
    for line in text.splitlines():
        if line.startswith("| distribution |"):
            inside = True
        elif inside and line.startswith("|"):
            cell = line.split("|")[1].strip().strip("`")
            if cell and not set(cell) <= {"-", ":"}:
                names.append(cell)
        elif inside:
            break
    return names


def check_packages(root: Path) -> list[str]:
    readme = (root / "README.md").read_text(encoding="utf-8")
    index = (root / "docs" / "index.md").read_text(encoding="utf-8")
    from_readme = {distribution(root, p) for p in install_paths(readme)}
    from_index = {distribution(root, p) for p in install_paths(index)}
    problems = [f"README.md installs {n}, which does not exist" for n in from_readme if "<" in n]
    if from_readme != from_index:
        problems.append("README.md and docs/index.md install different packages: "
                        f"only README {sorted(from_readme - from_index)}, "
                        f"only index {sorted(from_index - from_readme)}")
    rows = table_names(index)
    problems += [f"docs/index.md's package table lacks {n} (README's command installs it)"
                 for n in sorted(from_readme - set(rows))]
    existing = {distribution(root, p.parent.relative_to(root).as_posix())
                for p in root.glob("*/*/pyproject.toml")} | {distribution(root, ".")}
    problems += [f"docs/index.md's package table lists {n}, which is no package here"
                 for n in rows if n not in existing]
    return problems


# -- modes, linkers, classes ----------------------------------------------------------------

def _string_constants(tree: ast.Module) -> dict[str, str]:
    return {t.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def _dict_keys(tree: ast.Module, name: str, consts: dict[str, str]) -> set[str]:
    for node in tree.body:
        target = getattr(node, "target", None) or (getattr(node, "targets", None) or [None])[0]
        if isinstance(target, ast.Name) and target.id == name and isinstance(node.value, ast.Dict):
            return {k.value if isinstance(k, ast.Constant) else consts.get(k.id, "")
                    for k in node.value.keys if isinstance(k, ast.Constant | ast.Name)}
    return set()


def known_names(root: Path) -> tuple[set[str], set[str], set[str]]:
    """(mode names, linker names, class names) the sources declare."""
    modes, linkers, classes = set(), set(), set()
    compile_dir = root / "core/opgraph/compile"
    trees = [ast.parse(p.read_text(encoding="utf-8")) for p in sorted(compile_dir.glob("*.py"))]
    for tree in trees:  # the mode tables: resolver.py (modes), linkers.py (linker names)
        consts = _string_constants(tree)
        modes |= _dict_keys(tree, "STANDARD_MODES", consts)
        modes |= _dict_keys(tree, "PREDEFINED_MODE_TARGETS", consts)
        backends = _dict_keys(tree, "BACKEND_PLUGINS", consts)  # names that raise a clear error
        modes |= {b for b in backends if b.isupper()}
        linkers |= {b for b in backends if b.islower()} | _dict_keys(tree, "LINKER_ALIASES",
                                                                     consts)
    for path in _sources(root):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                classes.add(node.name)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args
                  and isinstance(node.args[0], ast.Constant)):
                if node.func.id == "ModeRecord":
                    modes.add(node.args[0].value)
                elif node.func.id == "LinkerRecord":
                    linkers.add(node.args[0].value)
    return modes, linkers, classes


_MODE_PATTERNS = (
    re.compile(r"\bmode\s*=\s*[\"'](\w+)[\"']"),
    re.compile(r"\bget_mode\(\s*[\"'](\w+)[\"']"),
    re.compile(r"\bmode `\"?(\w+)\"?`"),
    re.compile(r"(?:[\"',]|FLAGS=)mode=(\w+)"),  # flag strings: OPGRAPH_FLAGS="mode=FAST_RUN"
)
_LINKER_PATTERNS = (
    re.compile(r"\blinker\s*=\s*[\"']([\w|]+)[\"']"),
    re.compile(r"\blinker `\"?([\w|]+)\"?`"),
    re.compile(r"(?:[\"',]|FLAGS=)linker=([\w|]+)"),
)
_CLASS_PATTERN = re.compile(r"`(?:[\w.]+\.)?([A-Z]\w*(?:Linker|Mode))(?:\(\))?`")


def _page_declared(text: str) -> set[str]:
    """Names a page declares itself (an example registering a mode or linker)."""
    return set(re.findall(r"(?:ModeRecord|LinkerRecord|register_mode|register_linker)"
                          r"\(\s*[\"']([^\"']+)[\"']", text))


def check_tables(root: Path) -> list[str]:
    """Every mode and linker a plugin declares has a row in docs/modes.md's tables."""
    modes_md = root / "docs" / "modes.md"
    if not modes_md.is_file():
        return []
    rows = " ".join(line.split("|")[1] for line in modes_md.read_text(encoding="utf-8")
                    .splitlines() if line.startswith("| `"))
    listed = set(re.findall(r"`([^`]+)`", rows))
    declared = _plugin_records(root)
    return [f"docs/modes.md: no table row for the {kind} {name!r} ({where} declares it)"
            for kind, name, where in declared if name not in listed]


def _plugin_records(root: Path) -> list[tuple[str, str, str]]:
    """(mode or linker, name, package) for each record a plugin or contrib package declares."""
    found = []
    for path in _sources(root):
        rel = path.relative_to(root).parts
        if rel[0] == "core":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("ModeRecord", "LinkerRecord") and node.args
                    and isinstance(node.args[0], ast.Constant)):
                kind = "mode" if node.func.id == "ModeRecord" else "linker"
                found.append((kind, node.args[0].value, rel[1]))
    return found


def check_names(root: Path) -> list[str]:
    modes, linkers, classes = known_names(root)
    upper_modes = {m.upper() for m in modes}
    problems = []
    for page in _pages(root):
        text = page.read_text(encoding="utf-8")
        local = _page_declared(text)
        rel = page.relative_to(root)
        for k, line in enumerate(text.splitlines(), 1):
            for pattern in _MODE_PATTERNS:
                for name in pattern.findall(line):
                    if (name.upper() in upper_modes or name in local or name in NOT_COMPILE_MODES
                            or name.upper().startswith("NO_SUCH") or not name[0].isalpha()):
                        continue
                    problems.append(f"{rel}:{k}: mode {name!r} is declared nowhere")
            for pattern in _LINKER_PATTERNS:
                for name in pattern.findall(line):
                    if name not in linkers and name not in local:
                        problems.append(f"{rel}:{k}: linker {name!r} is declared nowhere")
            for name in _CLASS_PATTERN.findall(line):
                if name not in classes and name != "Mode":
                    problems.append(f"{rel}:{k}: class {name} is defined nowhere")
    return problems


# -- command-line options -------------------------------------------------------------------

def check_options(root: Path) -> list[str]:
    """``opgraph <command> --option`` on a page: the option is declared in the sources."""
    options: set[str] = set()
    for path in _sources(root):
        options |= set(re.findall(r"add_argument\(\s*\"(--[\w-]+)\"",
                                  path.read_text(encoding="utf-8")))
    problems = []
    for page in _pages(root):
        for k, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for command in re.findall(r"`(opgraph [a-z]+[^`]*)`", line):
                for opt in re.findall(r"(?<!\w)(--[\w-]+)", command):
                    if opt not in options and opt != "--help":
                        problems.append(f"{page.relative_to(root)}:{k}: `{command}`: option "
                                        f"{opt} does not exist")
    return problems


def main(argv: list[str] | None = None) -> int:
    root = Path(argv[0]).resolve() if argv else ROOT
    problems = (check_packages(root) + check_names(root) + check_tables(root)
                + check_options(root))
    for p in problems:
        print(p)
    print(f"{len(problems)} documentation problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
