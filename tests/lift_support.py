"""Shared pieces of the lift tests: optional framework libraries and small HF configs.

Named ``lift_support`` so that it does not collide with other areas' helpers; it holds no tests.
"""

from __future__ import annotations

import importlib
import os

import pytest


def require_module(name: str):
    """Import the real library; skip when it does not import (outside CI), fail under CI."""
    try:
        return importlib.import_module(name)
    except Exception as error:  # noqa: BLE001 - ImportError or a broken dependency (timm/torchvision)
        message = f"{name} does not import: {type(error).__name__}: {error}"
        if os.environ.get("CI"):
            pytest.fail(f"{message} (CI must install symrope[frameworks])")
        pytest.skip(message, allow_module_level=True)  # also called at module level


def small_llama(**extra) -> dict:
    """An HF Llama config with head_dim 8: the real classes, cheap to check."""
    return {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8,
            "max_position_embeddings": 4096, "rope_theta": 10000.0, **extra}
