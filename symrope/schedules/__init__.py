"""Frequency schedules of rotary position embeddings, written once for several number systems.

The formulas of HF transformers' rope types (default, linear, dynamic NTK, YaRN, llama3,
LongRoPE, partial rotary) evaluated exactly (SymPy), at any precision (mpmath), in float64,
and with a framework's float32 semantics. See ``README.md`` in this folder.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from symrope.schedules._config import (CONFIG_FIELDS, ROPE_FIELDS, ROPE_TYPES, RopeConfig,
                                       llama31_8b, validate_hf_config, validate_rope_parameters)
from symrope.schedules._contexts import CONTEXT_NAMES, ScheduleContext, get_context
from symrope.schedules._formulas import attention_factor, inv_freq

# The closed forms are SymPy numbers: imported on first use (PEP 562), so that the audit, which
# reads schedules in floats and mpmath, never pays for SymPy's import.
_CLOSED_FORMS = ("parse_base", "parse_dimension", "rope_frequencies", "xpos_scales")

if TYPE_CHECKING:  # pragma: no cover
    from symrope.schedules._closed_forms import (parse_base, parse_dimension, rope_frequencies,
                                                 xpos_scales)

__all__ = [
    "CONFIG_FIELDS",
    "CONTEXT_NAMES",
    "ROPE_FIELDS",
    "ROPE_TYPES",
    "RopeConfig",
    "ScheduleContext",
    "attention_factor",
    "get_context",
    "inv_freq",
    "llama31_8b",
    "parse_base",
    "parse_dimension",
    "rope_frequencies",
    "validate_hf_config",
    "validate_rope_parameters",
    "xpos_scales",
]


def __getattr__(name: str) -> object:
    if name not in _CLOSED_FORMS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("symrope.schedules._closed_forms"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
