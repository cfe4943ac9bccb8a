"""HF transformers' real rotary code of any model type, wrapped as ``(q, k, positions)``.

The config is built offline by transformers' own config class (``symrope.audit._hf._build``:
its defaults, never the raw JSON), the model type's ``*RotaryEmbedding`` is instantiated and its
forward called, and the modeling module's own apply function rotates q and k. What differs
between model types is read from the code, not typed in:

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

(Over 500 lines: each convention above is a few lines read from transformers' code, and they
are kept together so that one model type's whole reading is in one place.)
"""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass, field

from symrope.errors import UsageError
from symrope.lifting._errors import LiftUndecided
from symrope.lifting._lift import TOKENS, LiftedEncoding, lift

__all__ = ["HFRope", "hf_rope", "lift_hf", "lift_hf_all"]


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
    from symrope.audit._hf import _build
    from symrope.lifting._adapters import _require

    if config_dict is not None and not isinstance(config_dict, dict):
        raise UsageError(f"an HF config must be a JSON object, got {type(config_dict).__name__}")
    _torch, transformers = _require("hf-transformers", "torch", "transformers")
    try:
        config, rotary_class, _layer = _build(transformers, None if config_dict is None
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
                            f"{_first_line(error)}{_where(error)}", op="build") from None


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
    from symrope.audit._hf import _rotary_class

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
        return text, _rotary_class(transformers, text_type)
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
    rope.head_dims = {t: _head_dim(config, t) for t in layer_types}
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


def _head_dim(config, layer_type) -> int | None:
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


# ----------------------------------------------------------------------------- the function

class _Module:
    """Builds the rotary module fresh for every run (a branch may update its buffers)."""

    def __init__(self, rope: HFRope, table_positions=None):
        self.rope = rope
        self.table_positions = table_positions

    def build(self, symbolic_buffers: bool = True):
        """The module; its float buffers symbolic copies of their exact values when lifting
        (so an in-place update by a symbolic value runs), its own when the code runs on floats
        (a float64 replay, an audit: real arithmetic, real rounding)."""
        from symrope.lifting._symbolic import exact, symbolic

        try:
            module = self.rope.rotary_class(self.rope.config)
        except Exception as error:  # noqa: BLE001 - the class refused the config
            raise LiftUndecided(_encoder_reason(self.rope.model_type, self.rope.config) or
                                f"{self.rope.rotary_class.__name__}(config) raised "
                                f"{type(error).__name__}: {_first_line(error)}",
                                op="build") from None
        for name, buffer in list(module.named_buffers(recurse=False)):
            if symbolic_buffers and (buffer.dtype.is_floating_point or buffer.dtype.is_complex):
                setattr(module, name, symbolic(exact(buffer), dtype=buffer.dtype))
        return module


def _rope_function(rope: HFRope, layer_type, axes: int, reduce_mrope: bool = False):
    """``(q, k, positions) -> (q_rot, k_rot)`` through the real forward and apply."""
    builder = _Module(rope)
    takes_layer = "layer_type" in inspect.signature(rope.rotary_class.forward).parameters
    split_at = _split_line(rope.modeling)

    def hf_rope_function(q, k, positions):
        from symrope.lifting._symbolic import SymbolicTensor

        lifting = isinstance(positions, SymbolicTensor)
        if not lifting:  # a float64 replay or an audit: the real code on real numbers
            return _run(q, k, positions, lifting)
        try:
            return _run(q, k, positions, lifting)
        except (LiftUndecided, UsageError):
            raise
        except Exception as error:  # noqa: BLE001 - transformers' code refused the inputs
            if isinstance(error, TypeError) and "positional argument" in str(error):
                raise LiftUndecided(f"{rope.rotary_class.__name__}.forward takes no position ids "
                                    f"({_first_line(error)}): a patch-grid rotary that builds "
                                    "its own positions, not liftable as (q, k, positions)",
                                    op="raise") from None
            also = " (it raises on real tensors too: the config's rope parameters do not fit " \
                "its class)" if _raises_on_floats(_run, q, positions) else ""
            raise LiftUndecided(f"{rope.rotary_class.__name__}: the real code raised "
                                f"{type(error).__name__}: {_first_line(error)}{_where(error)}"
                                f"{also}", op="raise") from None

    def _run(q, k, positions, lifting):
        import torch

        module = builder.build(symbolic_buffers=lifting)
        tokens = q.shape[-2]
        if rope.mrope_section:
            count = rope.axes
            axis_ids = positions.T if axes > 1 else positions[None, :].expand(count, tokens)
            position_ids = axis_ids.reshape(count, 1, tokens)
        else:
            position_ids = positions[None, :]
        kwargs = {"layer_type": layer_type} if takes_layer and layer_type else {}
        try:
            outputs = module(torch.zeros(1, 1, tokens, q.shape[-1], dtype=q.dtype),
                             position_ids, **kwargs)
        except LiftUndecided as reason:
            if "symbolic index" not in str(reason) and "table lookup" not in str(reason):
                raise
            outputs = _table_forward(rope, positions, tokens, q.dtype, kwargs)
        return _apply(rope, outputs, q, k, split_at)

    return hf_rope_function


def _raises_on_floats(run, q, positions) -> bool:
    """Whether the same call raises with zeros and integer positions of the same shapes."""
    import torch

    try:
        real_q = torch.zeros(tuple(q.shape), dtype=torch.float32)
        run(real_q, real_q.clone(), torch.zeros(tuple(positions.shape), dtype=torch.int64), False)
    except Exception:  # noqa: BLE001 - any failure is the answer
        return True
    return False


def _table_forward(rope, positions, tokens, dtype, kwargs):
    """A cos/sin table indexed by the position: built at the positions, indexed by token."""
    import copy

    import torch

    from symrope.lifting._adapters import positions_for_arange

    config = copy.deepcopy(rope.config)
    config.max_position_embeddings = tokens
    with positions_for_arange([positions]):
        try:
            module = rope.rotary_class(config)
        except Exception as error:  # noqa: BLE001
            raise LiftUndecided(f"{rope.rotary_class.__name__} indexes a cos/sin table by the "
                                f"position and could not be rebuilt at symbolic positions: "
                                f"{type(error).__name__}: {_first_line(error)}",
                                op="table") from None
    rope.notes.append(f"{rope.rotary_class.__name__} indexes a cos/sin table by the position: "
                      "the table was built by its own code with its torch.arange at the "
                      "symbolic positions, then indexed token by token")
    return module(torch.zeros(1, 1, tokens, 1, dtype=dtype), torch.arange(tokens)[None, :],
                  **kwargs)


def _apply(rope: HFRope, outputs, q, k, split_at):
    """The modeling module's apply function on q and k, in the layout it expects."""
    if rope.apply_kind == "complex":
        return _in_layouts(lambda a, b: rope.apply(a, b, outputs), q, k, rope, split_at,
                           width=2 * outputs.shape[-1])
    first, second = outputs
    cos, sin = (first, second) if rope.outputs_order == ("cos", "sin") else (second, first)
    if rope.apply_kind == "single":
        return _in_layouts(lambda a, b: (rope.apply(a, sin, cos), rope.apply(b, sin, cos)), q, k,
                           rope, split_at, width=2 * sin.shape[-1])
    kwargs = {}
    if "mrope_section" in inspect.signature(rope.apply).parameters:
        kwargs["mrope_section"] = rope.config.rope_parameters["mrope_section"]
    return _in_layouts(lambda a, b: rope.apply(a, b, cos, sin, **kwargs), q, k, rope, split_at,
                       width=cos.shape[-1])


def _in_layouts(call, q, k, rope, split_at, width):
    """Try (batch, heads, seq, dim), then (batch, seq, heads, dim); whole q first, then, when the
    cos/sin are narrower than q, the first ``width`` channels only (a partial rotary split)."""
    import torch

    head_dim = q.shape[-1]
    splits = [head_dim] + ([width] if 0 < width < head_dim else [])
    errors = []
    for rotary in splits:
        for transpose in (False, True):
            a, b = (q.transpose(1, 2), k.transpose(1, 2)) if transpose else (q, k)
            parts = [(a[..., :rotary], a[..., rotary:]), (b[..., :rotary], b[..., rotary:])]
            try:
                rotated = call(parts[0][0], parts[1][0])
            except (LiftUndecided, UsageError):
                raise
            except Exception as error:  # noqa: BLE001 - the layout did not broadcast
                errors.append(error)
                continue
            if not isinstance(rotated, (tuple, list)) or len(rotated) != 2:
                raise LiftUndecided(f"{rope.apply.__name__} returned {type(rotated).__name__}, "
                                    "not (q, k)", op="apply")
            if tuple(rotated[0].shape) != tuple(parts[0][0].shape):
                continue
            if rotary < head_dim:
                _name_the_split(rope, rotary, head_dim, split_at)
            out = []
            for (_, passed), turned in zip(parts, rotated):
                full = torch.cat((turned.to(passed.dtype), passed), dim=-1) \
                    if rotary < head_dim else turned
                out.append(full.transpose(1, 2) if transpose else full)
            return tuple(out)
    detail = f"{type(errors[-1]).__name__}: {_first_line(errors[-1])}" if errors else \
        "the output shape never matched q"
    raise LiftUndecided(f"{rope.apply.__name__} could not be applied to q, k of shape "
                        f"{tuple(q.shape)} in either layout ({detail})", op="apply")


def _name_the_split(rope, rotary, head_dim, split_at) -> None:
    where = f" ({split_at})" if split_at else ""
    note = (f"partial rotary: {rope.apply.__name__} takes the first {rotary} of {head_dim} "
            f"channels; the attention module splits them off{where} and passes the rest; "
            "symrope splits them the same way (the split is named, not lifted)")
    if note not in rope.notes:
        rope.notes.append(note)


def _where(error) -> str:
    """`` at file:line`` of the innermost frame of the library's code in a traceback."""
    import os
    import traceback

    own = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if not os.path.abspath(f.filename).startswith(own)
              and f"{os.sep}torch{os.sep}" not in f.filename]
    return f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""


def _first_line(error) -> str:
    text = " ".join(str(error).split())
    return text[:200] or "no message"


# ----------------------------------------------------------------------------- lifts

def _frequencies(rope: HFRope, layer_type):
    """The module's float ``inv_freq`` (for the frequency report) and its exact schedule."""
    from symrope.audit._hf import rope_config_of

    try:
        module = rope.rotary_class(rope.config)
    except Exception:  # noqa: BLE001 - reported by the lift itself
        return None, None
    name = f"{layer_type}_inv_freq" if layer_type else "inv_freq"
    buffer = getattr(module, name, None)
    if buffer is None:
        return None, None
    try:
        # read against the module's own buffer, as the audit does (Llama's default schedule
        # ignores partial_rotary_factor)
        schedule, _ = rope_config_of(rope.config, layer_type,
                                     buffer.detach().to("cpu").double().numpy())
    except (UsageError, KeyError, TypeError, ValueError):
        return buffer, None
    if schedule.pairs != buffer.numel():
        return buffer, None
    return buffer, schedule


def lift_hf_all(config_dict: dict | None = None, model_type: str | None = None,
                rope_scaling: dict | None = None, tokens: int = TOKENS) -> list:
    """Every lift a model type needs: ``[(label, encoding)]``.

    One per distinct rope layer type; M-RoPE adds the text-token reduction ``t = h = w``.
    """
    rope = hf_rope(config_dict, model_type, rope_scaling)
    lifted = []
    for layer_type in rope.layer_types:
        axes = rope.axes
        name = rope.label + (f" [{layer_type}]" if layer_type else "")
        buffer, schedule = _frequencies(rope, layer_type)
        head_dim = _lift_dim(rope, layer_type, buffer)
        encoding = lift(_rope_function(rope, layer_type, axes), head_dim,
                        position_dims=axes, name=name + (" (M-RoPE: t, h, w)" if axes > 1 else ""),
                        frequencies=buffer if axes == 1 else None,
                        schedule=schedule if axes == 1 else None, tokens=tokens)
        _annotate(encoding, rope, layer_type)
        base = f"layer type {layer_type}" if layer_type else "all layers"
        lifted.append((f"{base}, M-RoPE axes" if axes > 1 else base, encoding))
        if axes > 1:
            reduced = lift(_rope_function(rope, layer_type, 1), head_dim, position_dims=1,
                           name=name + " (M-RoPE on text tokens: t = h = w = p)", tokens=tokens)
            _annotate(reduced, rope, layer_type)
            lifted.append((f"{base}, text tokens t = h = w", reduced))
    return lifted


def _lift_dim(rope: HFRope, layer_type, buffer) -> int:
    """The q, k width to lift: the config's head dimension, never narrower than what rotates."""
    configured = rope.head_dims.get(layer_type)
    rotated = 2 * buffer.numel() if buffer is not None else None
    if configured is None and rotated is None:
        raise LiftUndecided(_encoder_reason(rope.model_type, rope.config) or
                            f"{rope.model_type}: neither the config nor "
                            f"{rope.rotary_class.__name__} says the head dimension", op="build")
    return max(d for d in (configured, rotated) if d is not None)


def _annotate(encoding: LiftedEncoding, rope: HFRope, layer_type) -> None:
    info = encoding.lift_info
    info["model_type"] = rope.model_type
    info["layer_type"] = layer_type
    info["config_class"] = type(rope.config).__name__
    info["notes"] = list(dict.fromkeys(info.get("notes", []) + rope.notes))
    if rope.mrope_section:
        info["mrope_section"] = rope.mrope_section if rope.mrope_section is not True else None


def lift_hf(config_dict: dict | None = None, name: str | None = None,
            model_type: str | None = None, rope_scaling: dict | None = None,
            layer_type: str | None = None, tokens: int = TOKENS) -> LiftedEncoding:
    """The model type's real rotary class and apply function, lifted (one layer type).

    The config is built offline from transformers' own config class (no download); the
    module's float32 ``inv_freq`` is compared with the exact schedule of the config object.
    ``layer_type`` picks one of a per-layer rope's layer types (default: the first).
    """
    rope = hf_rope(config_dict, model_type, rope_scaling)
    if layer_type is not None and layer_type not in rope.layer_types:
        raise UsageError(f"layer type {layer_type!r} has no rope parameters here; one of "
                         f"{', '.join(map(str, rope.layer_types))}")
    chosen = layer_type if layer_type is not None else rope.layer_types[0]
    buffer, schedule = _frequencies(rope, chosen)
    axes = rope.axes
    label = name or rope.label + (f" [{chosen}]" if chosen else "")
    encoding = lift(_rope_function(rope, chosen, axes), _lift_dim(rope, chosen, buffer),
                    position_dims=axes,
                    name=label, frequencies=buffer if axes == 1 else None,
                    schedule=schedule if axes == 1 else None, tokens=tokens)
    _annotate(encoding, rope, chosen)
    return encoding
