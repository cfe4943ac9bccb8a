"""Shared piece of the audit's real-library tests: import a framework or skip (fail under CI),
and the registry's libraries as the tests parametrise them.

Named for the audit so that it does not collide with other areas' helpers; it holds no tests.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

from ci_support import import_or_skip
from symrope.audit import libraries

ROOT = Path(__file__).resolve().parent.parent

#: The libraries built from the audited schedule alone (transformers' class is built from a
#: model's config, whose partial rotary and scalings tests/test_audit_hf.py covers).
SCHEDULE_BUILT = [library for library in libraries() if not library.build_options]


def require_library(module: str) -> ModuleType:
    """The imported module; skip when it does not import (outside CI); fail when it does not under CI."""
    if module.startswith("keras"):
        os.environ.setdefault("KERAS_BACKEND", "torch")
    return import_or_skip(module, f".ci/run must install the extras pyproject.toml names for {module}")


def require_entry(library) -> None:
    """Every module a registered library imports (``library.imports``), or skip / fail."""
    for module in library.imports:
        require_library(module)
