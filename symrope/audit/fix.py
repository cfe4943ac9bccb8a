"""A fix users apply: make a loaded transformers model's rotary cos/sin come from float64 angles.

``patch_rotary(model)`` replaces, on every ``*RotaryEmbedding`` module of ``model`` (or on the
module itself), the instance's ``forward`` with one that forms ``p * omega`` in float64 from a
float64 ``omega`` (the schedule of the module's own config, evaluated by
:func:`symrope.schedules.inv_freq` in float64), takes cos/sin in float64 (for a bf16/fp16 ``x``:
of the angle reduced to [-pi, pi] in float64, in float32 -- ~2e-7, far below the cast), multiplies
the module's ``attention_scaling`` and casts to ``x.dtype`` once. The returned :class:`RotaryPatch` undoes it
(``patch.undo()``) and is a context manager::

    from symrope.audit.fix import patch_rotary
    with patch_rotary(model):
        model.generate(...)

What it changes, per module: ``module.forward`` (an instance attribute shadowing the class's).
The ``inv_freq`` buffer is left as it is (float32, or whatever ``model.to`` made it): the patch
does not read it, which is also why a ``model.to(torch.bfloat16)`` no longer damages the phase.
Dynamic and longrope schedules follow the sequence length like transformers' own update.
"""

from __future__ import annotations

from typing import Any, Iterable

from symrope.errors import UsageError

__all__ = ["RotaryPatch", "patch_rotary"]


class RotaryPatch:
    """The modules patched by :func:`patch_rotary`, with ``undo()``; a context manager."""

    def __init__(self, modules: Iterable[Any]) -> None:
        self.modules = list(modules)

    def undo(self) -> None:
        """Restore every patched module's class ``forward``."""
        for module in self.modules:
            module.__dict__.pop("forward", None)
            module.__dict__.pop("_symrope_float64_state", None)
        self.modules = []

    def __enter__(self) -> "RotaryPatch":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.undo()

    def __repr__(self) -> str:
        return f"<RotaryPatch of {len(self.modules)} rotary module(s)>"


def patch_rotary(model: Any) -> RotaryPatch:
    """Patch every transformers rotary module in ``model`` to float64 angles, in place.

    Parameters
    ==========
    model : torch.nn.Module
        A transformers model (or one ``*RotaryEmbedding`` module).

    Returns
    =======
    RotaryPatch
        ``.modules`` lists what was patched; ``.undo()`` or leaving a ``with`` block restores it.

    Raises
    ======
    UsageError
        ``model`` holds no transformers rotary module, or one whose schedule symrope cannot
        evaluate (then nothing is patched).

    Examples
    ========
    >>> import torch                                                    # doctest: +SKIP
    >>> from transformers import LlamaConfig                            # doctest: +SKIP
    >>> from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding  # doctest: +SKIP
    >>> rotary = LlamaRotaryEmbedding(LlamaConfig())                    # doctest: +SKIP
    >>> with patch_rotary(rotary) as patch:                             # doctest: +SKIP
    ...     cos, sin = rotary(torch.zeros(1), torch.tensor([[1_000_000]]))
    """
    import torch

    targets = [module for module in _modules(model)
               if type(module).__name__.endswith("RotaryEmbedding") and hasattr(module, "config")
               and any(name.endswith("inv_freq") for name, _ in module.named_buffers())]
    if not targets:
        raise UsageError(f"{type(model).__name__} holds no transformers *RotaryEmbedding module to patch")
    states = [(module, _State(module, torch)) for module in targets]   # all checked before any patch
    for module, state in states:
        module._symrope_float64_state = state
        module.forward = _float64_forward(module, state, torch)
    return RotaryPatch(targets)


def _modules(model):
    return model.modules() if hasattr(model, "modules") else [model]


class _State:
    """A module's schedule in float64, and the sequence length its dynamic update has reached."""

    def __init__(self, module, torch):
        from symrope.audit._hf import rope_config_of

        self.torch = torch
        self.layer_types = getattr(module, "layer_types", None)
        self.configs = {}
        for layer_type in (self.layer_types or [None]):
            self.configs[layer_type] = rope_config_of(module.config, layer_type)
        self.original = getattr(module, "original_max_seq_len", None) or \
            module.config.max_position_embeddings
        self.cached = self.original
        self.omegas = {}
        for layer_type in self.configs:
            self._omega(layer_type, None)   # fails now, before patching, if it cannot be evaluated

    def _omega(self, layer_type, seq_len):
        from symrope.schedules import inv_freq

        key = (layer_type, seq_len)
        if key not in self.omegas:
            values = inv_freq(self.configs[layer_type], "float64", seq_len)
            self.omegas[key] = self.torch.tensor(values, dtype=self.torch.float64)
        return self.omegas[key]

    def omega(self, position_ids, layer_type):
        """omega in float64 for this call (dynamic/longrope: following the length like HF)."""
        rope_type = self.configs[layer_type].rope_type
        if rope_type not in ("dynamic", "longrope"):
            return self._omega(layer_type, None)
        seq_len = int(position_ids.max()) + 1
        if rope_type == "longrope":
            return self._omega(layer_type, seq_len)
        if seq_len > self.cached:                       # grow, as dynamic_frequency_update does
            self.cached = seq_len
        elif seq_len < self.original < self.cached:     # back to the original schedule
            self.cached = self.original
        return self._omega(layer_type, None if self.cached <= self.original else self.cached)


_TWO_PI = 6.283185307179586


def _float64_forward(module, state, torch):
    def forward(x, position_ids, layer_type=None):
        omega = state.omega(position_ids, layer_type).to(x.device)
        angle = position_ids[..., None].to(torch.float64) * omega
        if x.dtype in (torch.bfloat16, torch.float16):
            # For a bf16/fp16 table the float64 angle is reduced to [-pi, pi] in float64 (error
            # ~1e-16 * angle) and its cos/sin taken in float32 (~2e-7 absolute): far below the
            # final cast's half ulp (2^-9 / 2^-12), and several times cheaper than float64 cos.
            angle = angle - _TWO_PI * torch.round(angle * (1 / _TWO_PI))
            angle = angle.to(torch.float32)
        emb = torch.cat((angle, angle), dim=-1)
        scaling = module.attention_scaling if layer_type is None else \
            getattr(module, f"{layer_type}_attention_scaling", None)
        if scaling is None and isinstance(getattr(module, "attention_scaling", None), dict):
            scaling = module.attention_scaling[layer_type]
        scaling = 1.0 if scaling is None else float(scaling)
        return (emb.cos() * scaling).to(x.dtype), (emb.sin() * scaling).to(x.dtype)

    return forward
