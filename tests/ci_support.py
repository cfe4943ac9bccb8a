"""The one rule for optional test dependencies: skip where they are missing, fail under CI.

A test that needs a tool (pdflatex, coqc) or a library (torch, timm, keras) is skipped on a
developer's machine without it, but CI (the environment variable ``CI`` set) installs every one,
so there a missing dependency is a failure with the fix named, never a silent skip.
Named for what it serves so that it does not collide with other areas' helpers; it holds no tests.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest


def missing(what: str, ci_fix: str) -> NoReturn:
    """Skip (outside CI) or fail (under CI, naming ``ci_fix``) because ``what`` is missing."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} under CI: {ci_fix}")
    pytest.skip(f"{what} (and CI is not set)", allow_module_level=True)  # also at module level


def import_or_skip(name: str, ci_fix: str) -> ModuleType:
    """The real library ``name``; :func:`missing` when it does not import (or its import breaks)."""
    try:
        return importlib.import_module(name)
    except Exception as error:  # noqa: BLE001 - ImportError, or a broken install (timm/torchvision)
        missing(f"{name} does not import ({type(error).__name__}: {error})", ci_fix)
