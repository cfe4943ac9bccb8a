"""Every docstring example in ``symrope/`` runs as a test, and so do the docs' tutorial
examples (``pycon`` blocks) and the command output pasted there (``console`` blocks).

Modules are found on disk (not by importing the package), one test per module; a module whose
optional dependency (torch, transformers, matplotlib) is missing is skipped, any other import
error fails. ``KNOWN_FAILURES`` names doctests expected to fail (none at present): each entry
must say why, and is reported to the module's owner.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
from pathlib import Path

import pytest
from ci_support import missing
from symrope.audit import libraries

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "symrope"
# matplotlib, and every module a registered real library imports (the registry says which)
OPTIONAL_DEPENDENCIES = {"matplotlib"} | {module.split(".")[0] for library in libraries()
                                          for module in library.imports}
NOT_IMPORTABLE = {"symrope.__main__"}  # importing it runs the command line
KNOWN_FAILURES: dict[str, str] = {}     # module name -> reason (kept empty unless we must)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
MARKDOWN_PAGES = ["docs/tutorial.md", "docs/check.md"]   # their pycon examples run


def _module_names() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        name = ".".join(parts)
        if name not in NOT_IMPORTABLE:
            names.append(name)
    return names


def _require_optional(dependency: str, name: str) -> None:
    if importlib.util.find_spec(dependency) is None:
        missing(f"{name} needs the optional dependency {dependency}", ".ci/run must install it")


def _import_or_skip(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        absent = (error.name or "").split(".")[0]
        if absent in OPTIONAL_DEPENDENCIES:
            missing(f"{name} needs the optional dependency {absent}", ".ci/run must install it")
        raise


def _run(tests: list[doctest.DocTest]) -> tuple[int, str]:
    import io

    output = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in tests:
        runner.run(test, out=output.write)
    return runner.summarize(verbose=False).failed, output.getvalue()


@pytest.mark.parametrize("name", _module_names())
def test_docstring_examples(name):
    if name in KNOWN_FAILURES:
        pytest.xfail(KNOWN_FAILURES[name])
    if name.startswith(("symrope.lifting", "symrope.diff")):  # their examples lift torch code
        _require_optional("torch", name)
    module = _import_or_skip(name)
    tests = [t for t in doctest.DocTestFinder(exclude_empty=True).find(module, name)
             if t.examples]
    failed, report = _run(tests)
    assert failed == 0, f"{failed} failing docstring example(s) in {name}:\n{report}"


def _markdown_doctest(path: Path) -> doctest.DocTest:
    """The ``pycon`` blocks of a MyST page, as one doctest sharing its namespace."""
    lines, inside, found = [], False, False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() == "```pycon":
            inside = found = True
            lines.append("")
        elif inside and line.strip() == "```":
            inside = False
            lines.append("")
        else:  # blank out prose, so failures report the page's own line numbers
            lines.append(line if inside else "")
    assert found, f"{path} has no pycon examples"
    return doctest.DocTestParser().get_doctest("\n".join(lines), {}, path.name, str(path), 0)


@pytest.mark.parametrize("page", MARKDOWN_PAGES)
def test_documentation_examples(page):
    failed, report = _run([_markdown_doctest(ROOT / page)])
    assert failed == 0, f"{failed} failing example(s) in {page}:\n{report}"


def test_the_walk_finds_the_subsystems():
    names = _module_names()
    for expected in ["symrope.engine._verify", "symrope.latex._escape", "symrope.testing"]:
        assert expected in names
