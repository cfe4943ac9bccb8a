"""HF transformers' real rotary code of any model type, run and lifted (``lift_hf``,
``lift_hf_all``): the conventions ``_hf.py`` reads off the code become one function
``(q, k, positions) -> (q_rot, k_rot)`` through the real forward and apply function, lifted once
per rope layer type (and, for M-RoPE, once more for text tokens).
"""

from __future__ import annotations

from typing import Any

import inspect

from symrope.errors import UsageError
from symrope.lifting._errors import LiftUndecided
from symrope.lifting._hf import HFRope, _encoder_reason, _first_line, _split_line, hf_rope
from symrope.lifting._encoding import LiftedEncoding
from symrope.lifting._lift import TOKENS, lift
from symrope.lifting._trace import error_location

__all__ = ["lift_hf", "lift_hf_all", "module_frequencies"]


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
                                f"{type(error).__name__}: {_first_line(error)}{error_location(error)}"
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

    from symrope.audit import positions_for_arange

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



# ----------------------------------------------------------------------------- lifts

def module_frequencies(rope: HFRope, layer_type: str | None) -> tuple[Any, Any]:
    """The module's float ``inv_freq`` (for the frequency report) and its exact schedule."""
    from symrope.audit import rope_config_of

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
        buffer, schedule = module_frequencies(rope, layer_type)
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
    buffer, schedule = module_frequencies(rope, chosen)
    axes = rope.axes
    label = name or rope.label + (f" [{chosen}]" if chosen else "")
    encoding = lift(_rope_function(rope, chosen, axes), _lift_dim(rope, chosen, buffer),
                    position_dims=axes,
                    name=label, frequencies=buffer if axes == 1 else None,
                    schedule=schedule if axes == 1 else None, tokens=tokens)
    _annotate(encoding, rope, chosen)
    return encoding
