"""One-way layers, no import cycles, no private reach-ins, no long module without a reason.

Every ``import`` statement counts, lazy ones inside functions included: a lazy import of a higher
layer is the hidden cycle this test exists to catch. Between modules, an import cycle anywhere
(inside a subpackage too) fails, and so does an import of another subpackage's private module
(``symrope.X._y`` from outside ``X``) unless it is in the short, commented ``ALLOWED_PRIVATE``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import symrope

PACKAGE = Path(symrope.__file__).parent

# Lower number = lower layer. A module may import its own unit and units of a lower layer only.
LAYERS = {
    "errors": 0,        # the exception types: imported by everything, importing nothing
    "_version": 1, "_cliutil": 1, "_typing": 1, "_parse": 1,
    "_exact": 1,        # floats read as the exact rationals they are (the one home)
    "linalg": 2, "schedules": 2,
    "engine": 3,
    "theorems": 4, "checker": 4, "kernel": 4, "audit": 4,
    "lifting": 5,       # lifts real code (torch) into the checker; reuses the audit's adapters
    "latex": 6,         # renders the engine's objects and check reports (by duck typing)
    "diff": 7,          # two lifted implementations compared exactly (above lift and checker)
    "testing": 8, "pytest_plugin": 8,
    "cli": 9,
    "__main__": 10,
}


def _unit(path: Path) -> str:
    """The layer unit of a source file: its subpackage, or its own name at the top level."""
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def _imported_units(tree: ast.AST) -> list[tuple[str, int]]:
    units = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            # no layer can be read off a relative import: it is reported as a violation
            units.append(("relative import", node.lineno))
            continue
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "symrope":
                # a bare 'import symrope' / 'from symrope import x' goes through the package's
                # facade, which re-exports from several layers: only the facade itself may
                units.append((parts[1] if len(parts) > 1 else "symrope", node.lineno))
    return units


def _violations() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        unit = _unit(path)
        if unit == "__init__":
            continue  # the package facade re-exports from every layer, lazily (PEP 562)
        for imported, line in _imported_units(ast.parse(path.read_text(encoding="utf-8"))):
            if imported == unit:
                continue
            if imported == "symrope" or LAYERS.get(imported, 99) >= LAYERS[unit]:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {unit} "
                             f"(layer {LAYERS[unit]}) imports {imported} "
                             f"(layer {LAYERS.get(imported, '?')})")
    return found


def test_every_unit_of_the_package_has_a_layer():
    units = {_unit(path) for path in PACKAGE.rglob("*.py")} - {"__init__"}
    assert units <= set(LAYERS), f"give these a layer: {sorted(units - set(LAYERS))}"


def test_no_module_imports_a_higher_layer():
    assert _violations() == []


def test_the_check_sees_a_lazy_upward_import():
    # the engine's old LaTeX hook, as it was: an import inside a method
    source = "class Verdict:\n    def _latex(self):\n        from symrope.latex import x\n"
    assert _imported_units(ast.parse(source)) == [("latex", 3)]
    assert LAYERS["latex"] > LAYERS["engine"]


def test_the_check_sees_a_relative_import():
    source = "from ..latex import x\nfrom . import y\n"
    assert _imported_units(ast.parse(source)) == [("relative import", 1), ("relative import", 2)]
    assert "relative import" not in LAYERS  # so _violations reports it


def test_no_subsystem_keeps_a_command_module():
    leftovers = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("_cli.py"))
    assert leftovers == [], "commands live in symrope/cli/"


def test_a_check_reports_exit_code_is_the_command_lines():
    # one home for exit codes: the checker's table is the command line's own object
    from symrope._cliutil import EXIT_PROVED, EXIT_REFUTED, EXIT_UNDECIDED, VERDICT_EXIT_CODES
    from symrope.checker._report import EXIT_CODES

    assert EXIT_CODES is VERDICT_EXIT_CODES
    assert EXIT_CODES == {"proved": EXIT_PROVED, "refuted": EXIT_REFUTED,
                                                "undecided": EXIT_UNDECIDED}
    assert (EXIT_PROVED, EXIT_REFUTED, EXIT_UNDECIDED) == (0, 1, 3)


# ----------------------------------------------------------------------------- the module graph

# (importer, imported private module): why the name has no public home. At most 5 entries.
ALLOWED_PRIVATE: dict[tuple[str, str], str] = {
}


LONG_MODULE = 500


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(tree: ast.AST, known) -> list[tuple[str, int]]:
    """``(module, line)`` for each symrope module an import statement loads by name.

    ``from a.b import c`` loads ``a.b.c`` when that is a module, else ``a.b``; a package's
    ``__init__`` that every submodule import runs on the way is not counted as an import of it.
    """
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in known
                     else node.module for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            while parts and ".".join(parts) not in known:
                parts.pop()
            if parts:
                found.append((".".join(parts), node.lineno))
    return found


def _graph(modules: dict[str, Path] | None = None) -> dict[str, dict[str, int]]:
    """``module -> {imported module: first line}`` over the whole package."""
    modules = _modules() if modules is None else modules
    graph = {}
    for name, path in modules.items():
        edges: dict[str, int] = {}
        for imported, line in _imports(ast.parse(path.read_text(encoding="utf-8")), modules):
            if imported != name:
                edges.setdefault(imported, line)
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, dict[str, int]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def _private_reach_ins(graph: dict[str, dict[str, int]]) -> dict[tuple[str, str], int]:
    """``(importer, imported): line`` for each import of ``symrope.X._y`` from outside ``X``."""
    found = {}
    for importer, edges in graph.items():
        for imported, line in edges.items():
            parts = imported.split(".")
            if len(parts) >= 3 and parts[2].startswith("_") and \
                    importer.split(".")[1:2] != parts[1:2]:
                found[(importer, imported)] = line
    return found


def test_no_import_cycle():
    cycles = [sorted(c) for c in _cycles(_graph())]
    assert cycles == [], f"import cycles: {cycles}"


def test_no_private_reach_in_outside_the_allow_list():
    allowed = set(ALLOWED_PRIVATE)
    found = _private_reach_ins(_graph())
    unexpected = [f"{importer} imports {imported} (line {line})"
                  for (importer, imported), line in sorted(found.items())
                  if (importer, imported) not in allowed]
    assert unexpected == [], "give these names a public home (the subpackage's __init__)"


def test_the_allow_list_is_short_and_current():
    assert len(ALLOWED_PRIVATE) <= 5
    assert all(why.strip() for why in ALLOWED_PRIVATE.values())
    found = _private_reach_ins(_graph())
    stale = [pair for pair in ALLOWED_PRIVATE if pair not in found]
    assert stale == [], "an allowed reach-in that no longer exists: delete its entry"


def test_no_long_module_without_a_reason():
    long_ones = []
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > LONG_MODULE and not re.search(r"[Oo]ver 500 lines", text):
            long_ones.append(f"{name}: {text.count(chr(10))} lines")
    assert long_ones == [], "split these, or say why they stay long ('Over 500 lines: ...')"


def test_the_graph_sees_cycles_reach_ins_and_lazy_imports(tmp_path):
    package = tmp_path / "symrope"
    (package / "engine").mkdir(parents=True)
    (package / "checker").mkdir()
    files = {"symrope/__init__.py": "",
             "symrope/engine/__init__.py": "from symrope.engine._a import a\n",
             "symrope/engine/_a.py": "def a():\n    from symrope.engine import _b\n",
             "symrope/engine/_b.py": "from symrope.engine._a import a\n",
             "symrope/checker/__init__.py": "",
             "symrope/checker/_c.py": "from symrope.engine._b import x\nimport symrope.engine\n"}
    for relative, text in files.items():
        (tmp_path / relative).write_text(text)
    modules = {".".join(Path(r).with_suffix("").parts[:-1] if r.endswith("__init__.py")
                        else Path(r).with_suffix("").parts): tmp_path / r for r in files}
    graph = _graph(modules)
    assert graph["symrope.checker._c"] == {"symrope.engine._b": 1, "symrope.engine": 2}
    assert _cycles(graph) == [{"symrope.engine._a", "symrope.engine._b"}]
    assert _private_reach_ins(graph) == {("symrope.checker._c", "symrope.engine._b"): 1}
