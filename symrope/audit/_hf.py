"""The real HF transformers rotary embedding class as an audited implementation (offline).

``hf_transformers_impl(config_dict)`` builds the model type's config object directly
(``AutoConfig.for_model(model_type, **config)``, or ``LlamaConfig`` when the dict names no known
type) -- no hub access -- instantiates that model's ``*RotaryEmbedding`` class, and runs its
forward for the requested positions with an ``x`` of the requested dtype. torch and transformers
are imported only inside these functions, so ``symrope audit`` without ``--impl hf-transformers``
never loads them.
"""

from __future__ import annotations

import importlib

import numpy as np

from symrope.audit._models import dtype_name, validate_positions
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

_CHUNK = 1 << 16  # positions per forward call: bounded memory for long audits
_TORCH_DTYPE_NAMES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "fp64": "float64"}


def hf_transformers_impl(config_dict: dict) -> "HFTransformersImpl":
    """The real transformers rotary embedding for an HF config dict, behind ``table(...)``.

    Parameters
    ==========

    config_dict : dict
        An HF ``config.json`` dict. ``model_type`` selects the model's own rotary class
        (``qwen2`` -> ``Qwen2RotaryEmbedding``); without one, Llama's is used.

    Raises
    ======

    UsageError
        torch or transformers is not installed, or the config is refused by transformers.
    """
    if not isinstance(config_dict, dict):
        raise UsageError(f"an HF config must be a JSON object, got {type(config_dict).__name__}")
    torch, transformers = _import_torch_and_transformers()
    config_object, rotary_class = _build(transformers, dict(config_dict))
    return HFTransformersImpl(config_dict, config_object, rotary_class, torch, transformers)


class HFTransformersImpl:
    """One transformers rotary embedding module, audited through its own forward."""

    name = "hf-transformers"
    default_dtype = "bf16"
    fix = "fp64-angle"

    def __init__(self, config_dict, config_object, rotary_class, torch, transformers):
        self.rope_config = RopeConfig.from_hf(config_dict)
        self._config_object = config_object
        self._rotary_class = rotary_class
        self._torch = torch
        self.summary = (f"transformers {transformers.__version__} {rotary_class.__name__} "
                        f"(torch {torch.__version__}), built offline from the config")
        self.explanation = ("The real class: float32 inv_freq and angle p*omega (error growing "
                            "like p*2^-24), float32 cos/sin times the attention factor, cast to "
                            "the model dtype -- what the 'hf' model reproduces step by step.")

    def __repr__(self) -> str:
        return f"<HFTransformersImpl {self._rotary_class.__name__}>"

    def table(self, positions, config: RopeConfig | None = None, dtype: str | None = None,
              seq_len: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(cos, sin)`` per pair as the class's forward returns them in ``dtype``.

        ``config`` must describe the same schedule as the dict the class was built from (it
        is only checked); ``seq_len`` has :func:`symrope.schedules.inv_freq`'s meaning: the
        module's dynamic/longrope update runs once at that length, then every chunk goes
        through the undecorated forward so that chunking cannot change the frequencies.
        """
        from symrope.audit._user import _per_pair, _to_numpy

        torch = self._torch
        positions = validate_positions(positions)
        if config is not None and config.rotary_dim != self.rope_config.rotary_dim:
            raise UsageError(f"the HF config rotates {self.rope_config.rotary_dim} channels but the "
                             f"audit config {config.rotary_dim}")
        name = dtype_name(self.default_dtype if dtype is None else dtype)
        torch_dtype = getattr(torch, _TORCH_DTYPE_NAMES[name])
        module = self._rotary_class(self._config_object)
        x = torch.zeros(1, dtype=torch_dtype)
        forward = getattr(type(module).forward, "__wrapped__", type(module).forward)
        with torch.no_grad():
            if seq_len is not None:
                module(x, torch.tensor([[seq_len - 1]], dtype=torch.int64))  # the runtime update
            cos_parts, sin_parts = [], []
            for start in range(0, positions.shape[0], _CHUNK):
                chunk = torch.from_numpy(positions[start:start + _CHUNK])[None, :]
                cos, sin = forward(module, x, chunk)
                cos_parts.append(_per_pair(_to_numpy(cos, self.name, "cos"), chunk.shape[1],
                                           self.rope_config, self.name, "cos"))
                sin_parts.append(_per_pair(_to_numpy(sin, self.name, "sin"), chunk.shape[1],
                                           self.rope_config, self.name, "sin"))
        if not cos_parts:
            empty = np.empty((0, self.rope_config.rotary_dim // 2), dtype=np.float32)
            return empty, empty.copy()
        return np.concatenate(cos_parts), np.concatenate(sin_parts)


def _import_torch_and_transformers():
    try:
        torch = importlib.import_module("torch")
        transformers = importlib.import_module("transformers")
    except ImportError as error:
        raise UsageError(f"--impl hf-transformers needs torch and transformers "
                         f"(pip install 'symrope[torch]'): {error}") from None
    return torch, transformers


def _build(transformers, config_dict: dict):
    model_type = config_dict.pop("model_type", None) or "llama"
    try:
        config_object = transformers.AutoConfig.for_model(model_type, **config_dict)
    except ValueError as error:
        raise UsageError(f"transformers does not know model_type {model_type!r}: "
                         f"{str(error).splitlines()[0]}") from None
    except Exception as error:  # noqa: BLE001 - transformers' own validation
        raise UsageError(f"transformers refused the config: {type(error).__name__}: "
                         f"{str(error).splitlines()[0] if str(error) else ''}") from None
    return config_object, _rotary_class(transformers, model_type)


def _rotary_class(transformers, model_type: str):
    module_name = model_type.replace("-", "_")
    try:
        modeling = importlib.import_module(f"transformers.models.{module_name}.modeling_{module_name}")
    except ImportError:
        modeling = None
    candidates = [] if modeling is None else [
        getattr(modeling, name) for name in dir(modeling)
        if name.endswith("RotaryEmbedding") and not name.startswith("_")]
    candidates = [c for c in candidates if isinstance(c, type)]
    if not candidates:
        raise UsageError(f"transformers' {model_type!r} model has no *RotaryEmbedding class")
    # the plain class (LlamaRotaryEmbedding) before variants (...DynamicNTKScalingRotaryEmbedding)
    candidates.sort(key=lambda c: len(c.__name__))
    return candidates[0]
