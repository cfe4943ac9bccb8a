"""One-way layers: no module imports a layer above its own (the command line is the top).

Every ``import`` statement counts, lazy ones inside functions included: a lazy import of a higher
layer is the hidden cycle this test exists to catch.
"""

from __future__ import annotations

import ast
from pathlib import Path

import symrope

PACKAGE = Path(symrope.__file__).parent

# Lower number = lower layer. A module may import its own unit and units of a lower layer only.
LAYERS = {
    "errors": 0,        # the exception types: imported by everything, importing nothing
    "_version": 1, "_cliutil": 1, "_typing": 1, "_parse": 1,
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
