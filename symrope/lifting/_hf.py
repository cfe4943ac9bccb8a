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
    head_dim: int
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
    config, rotary_class, _layer = _build(transformers, None if config_dict is None
                                          else dict(config_dict), model_type, rope_scaling)
    model_type = model_type or (config_dict or {}).get("model_type") or "llama"
    modeling = importlib.import_module(rotary_class.__module__)
    rope = getattr(config, "rope_parameters", None) or {}
    nested = isinstance(rope, dict) and rope and all(isinstance(v, dict) or v is None
                                                     for v in rope.values())
    layer_types = sorted(k for k, v in rope.items() if v is not None) if nested else [None]
    mrope = None
    for parameters in ([rope] if not nested else [v for v in rope.values() if v]):
        mrope = mrope or parameters.get("mrope_section")
    if mrope is None and "mrope_section" in _source(rotary_class):
        mrope = True  # read from the module once built
    head_dim = (getattr(config, "qk_rope_head_dim", None) or getattr(config, "head_dim", None)
                or config.hidden_size // config.num_attention_heads)
    apply, kind = _apply_function(modeling, config, bool(mrope), rotary_class)
    return HFRope(transformers, config, rotary_class, modeling, model_type, int(head_dim),
                  layer_types, mrope, apply, kind, _outputs_order(modeling))


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

    def build(self):
        from symrope.lifting._symbolic import exact, symbolic

        try:
            module = self.rope.rotary_class(self.rope.config)
        except Exception as error:  # noqa: BLE001 - the class refused the config
            raise LiftUndecided(f"{self.rope.rotary_class.__name__}(config) raised "
                                f"{type(error).__name__}: {_first_line(error)}",
                                op="build") from None
        for name, buffer in list(module.named_buffers(recurse=False)):
            if buffer.dtype.is_floating_point or buffer.dtype.is_complex:
                setattr(module, name, symbolic(exact(buffer), dtype=buffer.dtype))
        return module


def _rope_function(rope: HFRope, layer_type, axes: int, reduce_mrope: bool = False):
    """``(q, k, positions) -> (q_rot, k_rot)`` through the real forward and apply."""
    builder = _Module(rope)
    takes_layer = "layer_type" in inspect.signature(rope.rotary_class.forward).parameters
    split_at = _split_line(rope.modeling)

    def hf_rope_function(q, k, positions):
        import torch

        module = builder.build()
        tokens = q.shape[-2]
        if rope.mrope_section:
            axis_ids = positions.T if axes > 1 else positions[None, :].expand(3, tokens)
            position_ids = axis_ids.reshape(3, 1, tokens)
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
    """Try (batch, heads, seq, dim), then (batch, seq, heads, dim); split partial rotary."""
    head_dim = q.shape[-1]
    rotary = head_dim if width >= head_dim else width
    if rotary < head_dim:
        where = f" ({split_at})" if split_at else ""
        note = (f"partial rotary: {rope.apply.__name__} takes the first {rotary} of "
                f"{head_dim} channels; the attention module splits them off{where} and passes "
                "the rest; symrope splits them the same way (the split is named, not lifted)")
        if note not in rope.notes:
            rope.notes.append(note)
    errors = []
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
            raise LiftUndecided(f"{rope.apply.__name__} returned {type(rotated).__name__}, not "
                                "(q, k)", op="apply")
        if tuple(rotated[0].shape) != tuple(parts[0][0].shape):
            continue
        out = []
        import torch

        for (_, passed), turned in zip(parts, rotated):
            full = torch.cat((turned.to(passed.dtype), passed), dim=-1) if rotary < head_dim \
                else turned
            out.append(full.transpose(1, 2) if transpose else full)
        return tuple(out)
    detail = f"{type(errors[-1]).__name__}: {_first_line(errors[-1])}" if errors else \
        "the output shape never matched q"
    raise LiftUndecided(f"{rope.apply.__name__} could not be applied to q, k of shape "
                        f"{tuple(q.shape)} in either layout ({detail})", op="apply")


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
        schedule = rope_config_of(rope.config, layer_type)
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
        axes = 3 if rope.mrope_section else 1
        name = rope.label + (f" [{layer_type}]" if layer_type else "")
        buffer, schedule = _frequencies(rope, layer_type)
        encoding = lift(_rope_function(rope, layer_type, axes), rope.head_dim,
                        position_dims=axes, name=name + (" (M-RoPE: t, h, w)" if axes > 1 else ""),
                        frequencies=buffer if axes == 1 else None,
                        schedule=schedule if axes == 1 else None, tokens=tokens)
        _annotate(encoding, rope, layer_type)
        lifted.append((f"layer type {layer_type}" if layer_type else "all layers", encoding))
        if axes > 1:
            reduced = lift(_rope_function(rope, layer_type, 1), rope.head_dim, position_dims=1,
                           name=name + " (M-RoPE on text tokens: t = h = w = p)", tokens=tokens)
            _annotate(reduced, rope, layer_type)
            lifted.append(("text tokens t = h = w", reduced))
    return lifted


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
    axes = 3 if rope.mrope_section else 1
    label = name or rope.label + (f" [{chosen}]" if chosen else "")
    encoding = lift(_rope_function(rope, chosen, axes), rope.head_dim, position_dims=axes,
                    name=label, frequencies=buffer if axes == 1 else None,
                    schedule=schedule if axes == 1 else None, tokens=tokens)
    _annotate(encoding, rope, chosen)
    return encoding
