"""Shared piece of the audit's real-library tests: import a framework or skip (fail under CI).

Named for the audit so that it does not collide with other areas' helpers; it holds no tests.
"""

from __future__ import annotations

import os
from types import ModuleType

from ci_support import import_or_skip


def require_library(module: str) -> ModuleType:
    """The imported module; skip when it does not import (outside CI); fail when it does not under CI."""
    if module.startswith("keras"):
        os.environ.setdefault("KERAS_BACKEND", "torch")
    return import_or_skip(module, ".ci/run must install the [frameworks] extra")
