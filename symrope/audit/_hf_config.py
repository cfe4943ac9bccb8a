"""transformers' side of a model's RoPE, read offline: its config object and rotary class.

One home for what the audit (``hf-transformers``), the fix (:func:`symrope.audit.fix.patch_rotary`)
and the lift (``symrope.lifting``) read from an installed transformers: the config object that a
config dict or a model type makes (``AutoConfig.for_model``: transformers' own defaults, no hub
access), the model type's ``*RotaryEmbedding`` class, the schedule a built module computes (read
against its own ``inv_freq``), and the model types that have a rotary class. The transformers
module is passed in (or imported by :func:`rope_model_types`); nothing here imports torch.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from symrope.audit._torch import import_library
from symrope.errors import UsageError
from symrope.schedules import RopeConfig, inv_freq, validate_hf_config, validate_rope_parameters

__all__ = ["build_hf_config", "built_module", "hf_rotary_class", "inv_freq_buffer",
           "rope_config_of", "rope_model_types"]


def rope_model_types() -> list[str]:
    """The model types of the installed transformers whose modeling file has a ``*RotaryEmbedding``.

    Found by reading the modeling sources (importing ~200 modules would take minutes).
    """
    transformers = import_library("transformers", "hf-transformers")
    from transformers.models.auto.configuration_auto import (CONFIG_MAPPING_NAMES,
                                                              model_type_to_module_name)

    root = Path(transformers.__file__).parent / "models"
    found = []
    for model_type in sorted(CONFIG_MAPPING_NAMES):
        module = model_type_to_module_name(model_type).replace(".", "/")
        path = root / module / f"modeling_{module.split('/')[-1]}.py"
        if path.is_file() and "RotaryEmbedding(nn.Module)" in path.read_text(encoding="utf-8"):
            found.append(model_type)
    return found



def built_module(rotary_class: type, config_object: Any) -> Any:
    """``rotary_class(config_object)``; the class refusing the config is one line."""
    try:
        return rotary_class(config_object)
    except Exception as error:  # noqa: BLE001 - the class refused this config
        text = str(error).splitlines()[0] if str(error) else ""
        raise UsageError(f"{rotary_class.__name__} could not be built from the config: "
                         f"{type(error).__name__}: {text[:200]}") from None


def inv_freq_buffer(module: Any, layer_type: str | None) -> np.ndarray | None:
    """The module's ``inv_freq`` (``{layer_type}_inv_freq`` per layer type) as float64, or None."""
    name = f"{layer_type}_inv_freq" if layer_type else "inv_freq"
    buffer = dict(module.named_buffers()).get(name)
    if buffer is None:
        return None
    return buffer.detach().cpu().double().numpy()


_SAME_SCHEDULE = 4e-6   # relative: ~64 float32 ulps, far below what tells two schedules apart


def rope_config_of(config_object: Any, layer_type: str | None = None, buffer: np.ndarray | None = None,
                   class_name: str = "the rotary class",
                   tolerance: float = _SAME_SCHEDULE) -> tuple[RopeConfig, list[str]]:
    """The schedule a transformers rotary module computes, and notes where it is not what the
    config seems to say.

    The config object is read as :meth:`RopeConfig.from_hf` reads a config (one layer type's
    parameters and head_dim where it has several). With the module's ``buffer``, that reading is
    checked against it: a class whose default schedule ignores ``partial_rotary_factor``
    (Llama's rotates the whole head) is audited as it builds its table, with a note; a buffer
    that is no schedule of the config is one line, never an audit against the wrong reference.
    ``tolerance`` (relative) is how close a reading must come to the buffer (wider for a buffer
    cast to bf16, as :func:`symrope.audit.fix.patch_rotary` may meet it).
    """
    per_layer = getattr(config_object, "per_layer_config", None)
    source = config_object
    if layer_type is not None and per_layer is not None:
        try:
            source = per_layer[layer_type]
        except Exception:  # noqa: BLE001 - a config without per-layer overrides
            source = config_object
    document = source.to_dict()
    rope = document.get("rope_parameters")
    if layer_type is not None and isinstance(rope, dict) and isinstance(rope.get(layer_type), dict):
        document["rope_parameters"] = rope[layer_type]
    config = RopeConfig.from_hf(document)
    if buffer is None:
        return config, []
    candidates = [(config, [])]
    if config.rotary_dim != config.head_dim and config.rope_type != "proportional":
        whole = RopeConfig(head_dim=config.head_dim, rotary_dim=config.head_dim, theta=config.theta,
                           rope_type=config.rope_type, params=config.params,
                           max_position_embeddings=config.max_position_embeddings)
        candidates.append((whole, [f"{class_name} ignores partial_rotary_factor "
                                   f"{config.rotary_dim / config.head_dim:g} for rope type "
                                   f"{config.rope_type!r}: it rotates all {config.head_dim} channels, "
                                   f"and that is what is audited"]))
    for candidate, notes in candidates:
        if candidate.pairs != buffer.size:
            continue
        expected = np.asarray(inv_freq(candidate, "float64"))
        if np.all(np.abs(expected - buffer) <= tolerance * np.abs(expected)):
            return candidate, notes
    raise UsageError(f"{class_name}'s inv_freq ({buffer.size} frequencies) is not the schedule "
                     f"its config describes ({config.describe()}; {config.pairs} frequencies): "
                     f"symrope cannot name its exact values, so it does not audit it")


def build_hf_config(transformers: ModuleType, config_dict: dict | None, model_type: str | None,
                    rope_scaling: dict | None) -> tuple[Any, type, str | None]:
    """transformers' config object and rotary class for a config dict or a model type, the
    fields symrope reads checked first (one line, as every command reports them: transformers
    would fail later, with a traceback, on a string where a number belongs)."""
    if config_dict is not None and model_type is not None:
        raise UsageError("give either an HF config or --model-type, not both")
    if config_dict is not None:
        validate_hf_config(config_dict)
        if config_dict.get("model_type") is not None and not isinstance(config_dict["model_type"], str):
            raise UsageError(f"model_type must be a string, got {config_dict['model_type']!r}")
    if rope_scaling is not None:
        validate_rope_parameters(rope_scaling, "--rope-scaling")
    if config_dict is None:
        if model_type is None:
            model_type = "llama"
        config_dict = {}
    else:
        config_dict = dict(config_dict)
        model_type = config_dict.pop("model_type", None) or "llama"
    rotary_class = hf_rotary_class(transformers, model_type)
    try:
        config_object = transformers.AutoConfig.for_model(model_type, **config_dict)
    except ValueError as error:
        raise UsageError(f"transformers does not know model_type {model_type!r}: "
                         f"{str(error).splitlines()[0]}") from None
    except Exception as error:  # noqa: BLE001 - transformers' own validation
        raise UsageError(f"transformers refused the config: {type(error).__name__}: "
                         f"{str(error).splitlines()[0] if str(error) else ''}") from None
    if hasattr(config_object, "get_text_config"):
        config_object = config_object.get_text_config()
    rope = getattr(config_object, "rope_parameters", None)
    layer_type = None
    if isinstance(rope, dict) and rope and all(isinstance(v, dict) for v in rope.values()):
        layer_type = "full_attention" if "full_attention" in rope else sorted(rope)[0]
    if rope_scaling is not None:
        target = rope[layer_type] if layer_type else rope
        theta = (target or {}).get("rope_theta", getattr(config_object, "rope_theta", 10000.0))
        new = {"rope_theta": theta, **rope_scaling}
        # the model's partial rotary is part of the model, not of the scaling: phi rotates 16 of
        # its 32 channels under any --rope-scaling, as transformers builds it from a config file
        partial = (target or {}).get("partial_rotary_factor",
                                     getattr(config_object, "partial_rotary_factor", None))
        if partial is not None:
            new.setdefault("partial_rotary_factor", partial)
        new.setdefault("rope_type", new.pop("type", "default"))
        if layer_type:
            rope[layer_type] = new
        else:
            config_object.rope_parameters = new
        if "original_max_position_embeddings" in new and new["rope_type"] in ("dynamic", "longrope"):
            config_object.max_position_embeddings = max(
                config_object.max_position_embeddings, int(new["original_max_position_embeddings"]))
    return config_object, rotary_class, layer_type


def hf_rotary_class(transformers: ModuleType, model_type: str) -> type:
    """The model type's text ``*RotaryEmbedding`` class (UsageError: an unknown model type, or
    "not a RoPE config" for one without a rotary class)."""
    from transformers.models.auto.configuration_auto import (CONFIG_MAPPING_NAMES,
                                                              model_type_to_module_name)

    if model_type not in CONFIG_MAPPING_NAMES:
        raise UsageError(f"transformers does not know model_type {model_type!r}")
    module_name = model_type_to_module_name(model_type)
    try:
        modeling = importlib.import_module(
            f"transformers.models.{module_name}.modeling_{module_name.split('.')[-1]}")
    except ImportError:
        modeling = None
    candidates = [] if modeling is None else [
        getattr(modeling, name) for name in dir(modeling)
        if name.endswith("RotaryEmbedding") and not name.startswith("_")
        and "Vision" not in name and getattr(getattr(modeling, name), "__module__", "") == modeling.__name__]
    candidates = [c for c in candidates if isinstance(c, type)]
    if not candidates:
        raise UsageError(f"not a RoPE config: transformers' {model_type!r} model has no rotary "
                         f"embedding (*RotaryEmbedding class)")
    # the plain class (LlamaRotaryEmbedding) before variants (...DynamicNTKScalingRotaryEmbedding)
    candidates.sort(key=lambda c: len(c.__name__))
    return candidates[0]
