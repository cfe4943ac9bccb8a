"""Shared piece of the audit's real-library tests: import a framework or skip (fail under CI).

Named for the audit so that it does not collide with other areas' helpers; it holds no tests.
"""

from __future__ import annotations

import importlib
import os

import pytest


def require_library(module: str):
    """The imported module; skip when it does not import (outside CI); fail when it does not under CI."""
    if module.startswith("keras"):
        os.environ.setdefault("KERAS_BACKEND", "torch")
    try:
        return importlib.import_module(module)
    except Exception as error:  # noqa: BLE001 - ImportError, or a broken install (timm/torchvision)
        if os.environ.get("CI"):
            pytest.fail(f"{module} does not import under CI ({type(error).__name__}: {error}): "
                        ".ci/run must install the [frameworks] extra")
        pytest.skip(f"{module} does not import here ({type(error).__name__}) and CI is not set")
