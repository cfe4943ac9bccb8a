"""HF transformers' real rotary code of any model type, wrapped as ``(q, k, positions)``.

The config is built offline by transformers' own config class (``symrope.audit.build_hf_config``:
its defaults, never the raw JSON), the model type's ``*RotaryEmbedding`` is instantiated and its
forward called, and the modeling module's own apply function rotates q and k. What differs
between model types is read from the code, not typed in (here; ``_hf_lift.py`` runs it):

* **the apply function** and its convention, from its parameter names: ``(q, k, cos, sin)``
  (Llama and most), ``(xq, xk, freqs_cis)`` (Llama 4's complex form, laid out
  ``(batch, seq, heads, dim)``), ``(tensor, sin, cos)`` (GPT-J, one tensor at a time); the
  order of the forward's outputs from the attention module's ``a, b = position_embeddings``;
* **per-layer rope** (Gemma 3 sliding/full, any nested ``rope_parameters``): one lift per
  distinct layer type, ``layer_type`` passed to the forward;
* **M-RoPE** (``mrope_section``): three position axes ``(3, batch, seq)``; the text-token
  reduction ``t = h = w`` is a second lift with one axis;
* **a partial rotary split done in the attention module** (StableLM, Phi, GPT-J): when the
  apply function takes only the rotary channels, q and k are split as that module splits them
  (``q[..., :rotary]`` rotated, the rest passed) and the report names the line that does it;
* **a cos/sin table indexed by the position** (GPT-J's ``embed_positions``): the module is
  built with its ``torch.arange`` at the symbolic positions and indexed by token.

Buffers become symbolic copies of their exact values, so a forward that updates them in place
(LongRoPE's switch, dynamic NTK) runs; its branches on the positions are taken both ways.
Whatever cannot be followed is a :class:`LiftUndecided` naming the class and the reason.
"""

from __future__ import annotations

from typing import Any

import importlib
import inspect
import re
from dataclasses import dataclass, field

from symrope.audit import build_hf_config, hf_rotary_class
from symrope.errors import UsageError
from symrope.lifting._errors import LiftUndecided
from symrope.lifting._trace import error_location

__all__ = ["HFRope", "hf_rope", "head_dim_of"]

_EXTRA = "pip install 'symrope[frameworks]'"


def _require(spec: str, *modules: str):
    loaded = []
    for module in modules:
        try:
            loaded.append(importlib.import_module(module))
        except Exception as error:  # noqa: BLE001 - ImportError, or a broken dependency chain
            raise UsageError(f"--impl {spec} needs {module}, which does not import here "
                             f"({type(error).__name__}: {' '.join(str(error).split())[:160]}); "
                             f"{_EXTRA}") from None
    return loaded


@dataclass
class HFRope:
    """One transformers model type's rotary code, as found in its modeling module."""

    transformers: object
    config: object
    rotary_class: type
    modeling: object
    model_type: str
    head_dim: int                    # unused: see head_dims (per layer type)
    layer_types: list
    mrope_section: list | None
    apply: object
    apply_kind: str                  # "cos_sin", "complex" or "single"
    outputs_order: tuple = ("cos", "sin")
    notes: list = field(default_factory=list)

    @property
    def label(self) -> str:
        return (f"{self.rotary_class.__name__}+{self.apply.__name__} (transformers "
                f"{self.transformers.__version__})")


def hf_rope(config_dict: dict | None = None, model_type: str | None = None,
            rope_scaling: dict | None = None) -> HFRope:
    """Read a model type's rotary code: config object, classes, conventions (no lifting yet)."""
    if config_dict is not None and not isinstance(config_dict, dict):
        raise UsageError(f"an HF config must be a JSON object, got {type(config_dict).__name__}")
    _torch, transformers = _require("hf-transformers", "torch", "transformers")
    try:
        config, rotary_class, _layer = build_hf_config(transformers, None if config_dict is None
                                              else dict(config_dict), model_type, rope_scaling)
    except UsageError as error:
        # a model type transformers lists whose own defaults cannot be lifted: no verdict
        # (exit 3), not bad input; an unknown name or a user's config it refuses stays exit 2
        if config_dict is not None or "does not know" in str(error):
            raise
        if "no rotary embedding" not in str(error):
            raise LiftUndecided(f"{model_type}: {error}", op="build") from None
        config, rotary_class = _text_model_rope(transformers, model_type)
    model_type = model_type or (config_dict or {}).get("model_type") or "llama"
    try:
        return _read_rope(transformers, config, rotary_class, model_type)
    except (LiftUndecided, UsageError):
        raise
    except Exception as error:  # noqa: BLE001 - a config object without what rope code reads
        raise LiftUndecided(_encoder_reason(model_type, config) or
                            f"{model_type}: reading {type(config).__name__} and "
                            f"{rotary_class.__name__} failed: {type(error).__name__}: "
                            f"{_first_line(error)}{error_location(error)}", op="build") from None


_ENCODER_CONFIG = re.compile(r"(Vision|Audio|VQ|Tokenizer|Encoder|Perceiver|BigVGAN|Token2Wav|"
                             r"Adapter|Dit|Sam|Mask|Prompt|Patcher|CTC|Diarization)\w*Config$")


def _encoder_reason(model_type, config) -> str | None:
    """Why a listed model type has no text rope: its config is an encoder's sub-config."""
    name = type(config).__name__
    if _ENCODER_CONFIG.search(name) and "Text" not in name:
        return (f"{model_type}: {name} configures an encoder (vision, audio or a codec) whose "
                "rotary positions are patches or frames, not a text rope; its modeling module's "
                "text rotary class does not apply to it: not lifted")
    return None


def _text_model_rope(transformers, model_type):
    """A composite model whose own modeling file has no text rotary class: its text model's."""
    try:
        text = transformers.AutoConfig.for_model(model_type).get_text_config()
    except Exception as error:  # noqa: BLE001
        raise LiftUndecided(f"{model_type}: its config could not be built ({type(error).__name__}"
                            f": {_first_line(error)})", op="build") from None
    text_type = getattr(text, "model_type", None)
    if not text_type or text_type == model_type:
        raise LiftUndecided(f"{model_type}: transformers' {model_type!r} has only vision/audio "
                            "rotary classes (patch or frame positions of an encoder) and no text "
                            "model of another type: no text rope to lift", op="build")
    try:
        return text, hf_rotary_class(transformers, text_type)
    except UsageError as error:
        raise LiftUndecided(f"{model_type}: its text model {text_type!r}: {error}",
                            op="build") from None


def _read_rope(transformers, config, rotary_class, model_type) -> HFRope:
    modeling = importlib.import_module(rotary_class.__module__)
    rope = getattr(config, "rope_parameters", None) or {}
    nested = isinstance(rope, dict) and rope and all(isinstance(v, dict) or v is None
                                                     for v in rope.values())
    layer_types = sorted(k for k, v in rope.items() if v is not None) if nested else [None]
    used = set(getattr(config, "layer_types", None) or [])
    if nested and used and set(layer_types) & used:  # rope parameters of unused layer types
        layer_types = [t for t in layer_types if t in used]
    mrope = None
    for parameters in ([rope] if not nested else [v for v in rope.values() if v]):
        mrope = mrope or parameters.get("mrope_section")
    if mrope is None and "mrope_section" in _source(rotary_class):
        mrope = True  # read from the module once built
    apply, kind = _apply_function(modeling, config, bool(mrope), rotary_class)
    rope = HFRope(transformers, config, rotary_class, modeling, model_type, 0, layer_types,
                  mrope, apply, kind, _outputs_order(modeling))
    rope.axes = _mrope_axes(rotary_class, mrope) if mrope else 1
    rope.head_dims = {t: head_dim_of(config, t) for t in layer_types}
    rope.notes += _nope_layers(config)
    return rope


def _nope_layers(config) -> list[str]:
    """Layers that skip rope (Llama 4's ``no_rope_layers``), named: the check covers the rest."""
    flags = getattr(config, "no_rope_layers", None)
    if not isinstance(flags, (list, tuple)) or all(flags):
        return []
    skipped = sum(1 for flag in flags if not flag)
    note = (f"{skipped} of {len(flags)} layers use no rope (no_rope_layers = 0): NoPE layers, "
            "not covered by this check")
    if getattr(config, "attn_temperature_tuning", False):
        note += ("; there the attention module scales queries by a position-dependent "
                 "temperature (log1p(floor((p + 1) / floor_scale)) * attn_scale + 1), which is "
                 "not lifted")
    return [note]


def _mrope_axes(rotary_class, mrope) -> int:
    """Position axes of an M-RoPE forward: its ``position_ids.expand(N, ...)``, else 3."""
    match = re.search(r"position_ids\.expand\(\s*(\d+)", _source(rotary_class.forward))
    if match:
        return int(match.group(1))
    return len(mrope) if isinstance(mrope, (list, tuple)) else 3


def head_dim_of(config: Any, layer_type: str | None) -> int | None:
    """The config's head dimension (per layer type where the config has per-layer ones)."""
    sources = []
    try:
        if layer_type is not None and hasattr(config, "per_layer_config"):
            sources.append(config.per_layer_config[layer_type])
    except Exception:  # noqa: BLE001 - no per-layer configs keyed by layer type
        pass
    sources.append(config)
    for source in sources:
        for attribute in ("qk_rope_head_dim", "head_dim"):
            try:
                value = getattr(source, attribute, None)
            except Exception:  # noqa: BLE001 - transformers' per-layer attribute guard
                value = None
            if isinstance(value, int) and value > 0:
                return value
        try:
            return source.hidden_size // source.num_attention_heads
        except Exception:  # noqa: BLE001
            continue
    return None


def _source(obj) -> str:
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return ""


_APPLY_CALL = re.compile(r"\b(apply_\w*rot\w*)\s*\(")


def _apply_function(modeling, config, mrope: bool, rotary_class):
    """The apply function the text attention calls, and its calling convention."""
    source = _source(modeling)
    called = [name for name in dict.fromkeys(_APPLY_CALL.findall(source))
              if "vision" not in name and hasattr(modeling, name)
              and re.search(rf"^\s*(?:\w+(?:\s*,\s*\w+)*\s*=\s*)?{name}\(", source, re.M)]
    preference = ["apply_rotary_pos_emb_interleave"] if getattr(config, "rope_interleave",
                                                                False) else []
    preference += ["apply_multimodal_rotary_pos_emb"] if mrope else []
    preference += ["apply_rotary_pos_emb", "apply_rotary_emb"]
    ordered = [n for n in preference if n in called] + [n for n in called if n not in preference]
    ordered += [n for n in preference if n not in ordered and hasattr(modeling, n)]
    for name in ordered:
        function = getattr(modeling, name)
        parameters = list(inspect.signature(function).parameters)
        if len(parameters) >= 4 and {"cos", "sin"} <= set(parameters[2:4]):
            return function, "cos_sin"
        if len(parameters) >= 3 and "freqs_cis" in parameters[2] or \
                len(parameters) >= 3 and "freqs" in parameters[2]:
            return function, "complex"
        if len(parameters) >= 3 and {"sin", "cos"} <= set(parameters[1:3]):
            return function, "single"
    raise LiftUndecided(f"{modeling.__name__} has no apply function symrope can call "
                        f"(found {', '.join(called) or 'none'}; expected (q, k, cos, sin), "
                        f"(xq, xk, freqs_cis) or (tensor, sin, cos)) for "
                        f"{rotary_class.__name__}", op="apply")


def _outputs_order(modeling) -> tuple:
    """``sin, cos = position_embeddings`` (GPT-J) or ``cos, sin = ...`` (the rest)."""
    match = re.search(r"(\w+)\s*,\s*(\w+)\s*=\s*position_embeddings\b", _source(modeling))
    if match and "sin" in match.group(1) and "cos" in match.group(2):
        return ("sin", "cos")
    return ("cos", "sin")


def _split_line(modeling) -> str | None:
    """Where the attention module slices the rotary channels off (``file:line``), if it does."""
    try:
        lines, _ = inspect.getsourcelines(modeling)
    except (OSError, TypeError):
        return None
    pattern = re.compile(r"\[[^\]]*:\s*self\.rotary_\w+\s*\]")
    for number, line in enumerate(lines, start=1):
        if pattern.search(line):
            return f"{inspect.getsourcefile(modeling)}:{number}"
    return None



def _first_line(error) -> str:
    text = " ".join(str(error).split())
    return text[:200] or "no message"
