"""pytest plugin: run the proof objects in proof files as test items.

Registered through the ``pytest11`` entry point, so it loads in every pytest session of an
environment where symrope is installed; like hypothesis' plugin it is inert unless a project
asks for it, and it imports nothing heavy. Proof files are read with :mod:`ast` at collection:
SymPy is imported only when a proof item runs.

Opt in with the ``symrope_proof_files`` ini option (globs, e.g. ``["proofs/*.py"]`` under
``[tool.pytest.ini_options]``) or with ``pytest --symrope-proofs`` (globs ``proofs/*.py``,
``proof_*.py`` and ``*_proofs.py``). In those files, each top-level function decorated with
:func:`symrope.testing.proof`, imported from ``symrope.testing``, becomes one item per point of
its parameter grid.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib.util
import itertools
import sys
from pathlib import Path

import pytest

DEFAULT_GLOBS = ["proofs/*.py", "proof_*.py", "*_proofs.py"]
DEFAULT_BUDGET = 120.0


def pytest_addoption(parser):
    parser.addini("symrope_proof_files", type="args", default=[],
                  help="globs of files whose @proof functions run as proofs (empty: the "
                       "symrope plugin collects nothing)")
    group = parser.getgroup("symrope")
    group.addoption("--symrope-proofs", action="store_true", default=False,
                    help="collect proof files matching " + ", ".join(DEFAULT_GLOBS))
    group.addoption("--proof-budget", type=float, default=None,
                    help=f"seconds per proof (default {DEFAULT_BUDGET:g})")


def _globs(config) -> list:
    globs = config.getini("symrope_proof_files")
    if not globs and config.getoption("--symrope-proofs"):
        globs = DEFAULT_GLOBS
    return globs


def _is_proof_file(path: Path, config) -> bool:
    if path.suffix != ".py" or path.name == "conftest.py":
        return False
    globs = _globs(config)
    if not globs:
        return False
    try:
        relative = path.relative_to(config.rootpath).as_posix()
    except ValueError:
        relative = path.name
    return any(fnmatch.fnmatch(relative, g) or fnmatch.fnmatch(path.name, g) for g in globs)


def _imports_symrope_proof(tree: ast.Module) -> bool:
    """Whether the file takes its ``proof`` decorator from ``symrope.testing``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "symrope.testing" and \
                any(alias.name == "proof" and alias.asname in (None, "proof")
                    for alias in node.names):
            return True
    return False


def pytest_collect_file(file_path: Path, parent):
    if _is_proof_file(file_path, parent.config):
        return ProofFile.from_parent(parent, path=file_path)
    return None


def _decorator_grid(node: ast.FunctionDef):
    """The @proof(...) decorator's keywords as literals, or None when not decorated."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if name != "proof":
            continue
        options = {}
        for keyword in getattr(decorator, "keywords", []):
            try:
                options[keyword.arg] = ast.literal_eval(keyword.value)
            except ValueError:
                raise ProofCollectionError(
                    f"{node.name}: @proof argument {keyword.arg} must be a literal") from None
        return options
    return None


class ProofCollectionError(Exception):
    pass


class ProofFile(pytest.File):
    def collect(self):
        tree = ast.parse(self.path.read_text(encoding="utf-8"), filename=str(self.path))
        if not _imports_symrope_proof(tree):
            return  # someone else's decorator named "proof": not ours to run
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            options = _decorator_grid(node)
            if options is None:
                continue
            expect = options.pop("expect", "proved")
            budget = options.pop("budget", None)
            axes = {k: v if isinstance(v, (list, tuple)) else [v] for k, v in options.items()}
            for values in itertools.product(*axes.values()):
                params = dict(zip(axes, values))
                label = "-".join(f"{k}={v}" for k, v in params.items())
                yield ProofItem.from_parent(self, name=f"{node.name}[{label}]" if label else node.name,
                                            proof_function=node.name, params=params, expect=expect,
                                            budget=budget)

    def module(self):
        cached = getattr(self, "_module", None)
        if cached is None:
            name = f"symrope_proofs_{abs(hash(str(self.path)))}_{self.path.stem}"
            spec = importlib.util.spec_from_file_location(name, self.path)
            cached = importlib.util.module_from_spec(spec)
            sys.modules[name] = cached
            spec.loader.exec_module(cached)
            self._module = cached
        return cached


class ProofFailure(Exception):
    def __init__(self, report, expect):
        super().__init__(report.explain())
        self.report, self.expect = report, expect


class ProofItem(pytest.Item):
    def __init__(self, *, proof_function, params, expect, budget, **kwargs):
        super().__init__(**kwargs)
        # Not "function": pytest's -k matching reads item.function as a Python function.
        self.proof_function, self.params = proof_function, params
        self.expect, self.budget = expect, budget

    def runtest(self):
        function = getattr(self.parent.module(), self.proof_function)
        if not hasattr(function, "__symrope_proof__"):
            raise ProofCollectionError(f"{self.proof_function} is not decorated with "
                                       "symrope.testing.proof at run time")
        theorem = function(**self.params)
        budget = self.config.getoption("--proof-budget") or self.budget or DEFAULT_BUDGET
        report = theorem.prove(budget=budget)
        if report.verdict != self.expect:
            raise ProofFailure(report, self.expect)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ProofFailure):
            failure = excinfo.value
            lines = [f"expected {failure.expect}, got {failure.report.verdict}",
                     failure.report.explain()]
            return "\n".join(lines)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"proof {self.name}"
