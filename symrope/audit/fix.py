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

What it changes, per module: ``module.forward`` (an instance attribute shadowing the class's)
and a stack of the patches applied (``module._symrope_rotary_patches``). Patches nest: each
``undo()`` restores what that patch found, in any order (``p1 = patch_rotary(m); p2 =
patch_rotary(m); p2.undo()`` leaves ``m`` patched by ``p1``). The patched forward is a plain
object holding its module and float64 schedule, so a patched model survives ``copy.deepcopy``
(the copy is patched, with its own state) and ``pickle``.
The ``inv_freq`` buffer is left as it is (float32, or whatever ``model.to`` made it): the patch
reads it only to check which schedule the class uses (Llama's default ignores
``partial_rotary_factor``), never its values, which is why a ``model.to(torch.bfloat16)`` no longer
damages the phase. Dynamic and longrope schedules follow the sequence length like transformers'
own update.
"""

from __future__ import annotations

import uuid
from typing import Any, Iterable

from symrope.errors import UsageError

__all__ = ["RotaryPatch", "patch_rotary"]

_STACK = "_symrope_rotary_patches"   # per module: the patches applied, bottom first


class _Layer:
    """One patch on one module: its token, and the ``forward`` it found (None: the class's)."""

    def __init__(self, token: str, previous: Any) -> None:
        self.token, self.previous = token, previous


class RotaryPatch:
    """The modules patched by one :func:`patch_rotary` call, with ``undo()``; a context manager."""

    def __init__(self, modules: Iterable[Any], token: str | None = None) -> None:
        self.modules = list(modules)
        self.token = token or uuid.uuid4().hex

    def undo(self) -> None:
        """Take this patch off every module it patched; patches above or below it stay."""
        for module in self.modules:
            _take_off(module, self.token)
        self.modules = []

    def __enter__(self) -> "RotaryPatch":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.undo()

    def __repr__(self) -> str:
        return f"<RotaryPatch of {len(self.modules)} rotary module(s)>"


def _take_off(module, token: str) -> None:
    stack = module.__dict__.get(_STACK, [])
    index = next((i for i, layer in enumerate(stack) if layer.token == token), None)
    if index is None:
        return                                   # already undone
    layer = stack.pop(index)
    if index == len(stack):                      # it was on top: what it found comes back
        if layer.previous is None:
            module.__dict__.pop("forward", None)
        else:
            module.forward = layer.previous
    else:                                        # the patch above now restores what it found
        stack[index].previous = layer.previous
    if not stack:
        module.__dict__.pop(_STACK, None)


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
    targets = [module for module in _modules(model)
               if type(module).__name__.endswith("RotaryEmbedding") and hasattr(module, "config")
               and any(name.endswith("inv_freq") for name, _ in module.named_buffers())]
    if not targets:
        raise UsageError(f"{type(model).__name__} holds no transformers *RotaryEmbedding module to patch")
    states = [(module, _State(module)) for module in targets]   # all checked before any patch
    patch = RotaryPatch(targets)
    for module, state in states:
        stack = module.__dict__.setdefault(_STACK, [])
        stack.append(_Layer(patch.token, module.__dict__.get("forward")))
        module.forward = _Float64Forward(module, state)
    return patch


def _modules(model):
    return model.modules() if hasattr(model, "modules") else [model]


class _State:
    """A module's schedule in float64, and the sequence length its dynamic update has reached.

    It holds no module objects (torch is imported where it is used), so it copies and pickles.
    """

    def __init__(self, module):
        import torch

        from symrope.audit._hf_config import inv_freq_buffer, rope_config_of

        self.layer_types = getattr(module, "layer_types", None)
        self.configs = {}
        for layer_type in (self.layer_types or [None]):
            name = f"{layer_type}_inv_freq" if layer_type else "inv_freq"
            stored = dict(module.named_buffers()).get(name)
            # the buffer tells which schedule the class uses (not its values: model.to(bf16)
            # may have rounded them, the reason for this patch)
            tolerance = 4e-6 if stored is None or stored.dtype in (torch.float32, torch.float64) \
                else 4 * torch.finfo(stored.dtype).eps
            self.configs[layer_type], _ = rope_config_of(
                module.config, layer_type, inv_freq_buffer(module, layer_type),
                type(module).__name__, tolerance)
        self.original = getattr(module, "original_max_seq_len", None) or \
            module.config.max_position_embeddings
        self.cached = self.original
        self.omegas = {}
        for layer_type in self.configs:
            self._omega(layer_type, None)   # fails now, before patching, if it cannot be evaluated

    def _omega(self, layer_type, seq_len):
        import torch

        from symrope.schedules import inv_freq

        key = (layer_type, seq_len)
        if key not in self.omegas:
            values = inv_freq(self.configs[layer_type], "float64", seq_len)
            self.omegas[key] = torch.tensor(values, dtype=torch.float64)
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


class _Float64Forward:
    """The patched ``forward`` of one module: an object (not a closure), so that a deep copy of
    the module gets its own (bound to the copy) and pickle can store it."""

    def __init__(self, module, state: _State) -> None:
        self.module, self.state = module, state

    def __call__(self, x, position_ids, layer_type=None):
        import torch

        module = self.module
        omega = self.state.omega(position_ids, layer_type).to(x.device)
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
