"""Shared pieces of the lift tests: optional framework libraries and small HF configs.

Named ``lift_support`` so that it does not collide with other areas' helpers; it holds no tests.
"""

from __future__ import annotations

from types import ModuleType

from ci_support import import_or_skip


def require_module(name: str) -> ModuleType:
    """Import the real library; skip when it does not import (outside CI), fail under CI."""
    return import_or_skip(name, "CI must install symrope[frameworks]")


def small_llama(**extra) -> dict:
    """An HF Llama config with head_dim 8: the real classes, cheap to check."""
    return {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8,
            "max_position_embeddings": 4096, "rope_theta": 10000.0, **extra}
