"""The real RoPE code of installed libraries, wrapped as ``(q, k, positions) -> (q_rot, k_rot)``.

Each adapter instantiates the library's own module and calls its own apply function; nothing
is re-typed. Where a library takes no explicit positions (it calls ``torch.arange(seq_len)``
itself, or precomputes a cache from ``arange``), :class:`PositionsForArange` hands that one
``arange`` call the positions tensor instead, so the library's own code computes the angles
from the (symbolic) positions.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from symrope.errors import UsageError
from symrope.lifting._lift import LiftedEncoding, lift

__all__ = ["IMPLS", "lift_impl", "lift_torchtune", "lift_timm", "lift_rotary_embedding_torch",
           "positions_for_arange", "positions_for_arange_class"]

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


_MODE_CLASS = None


def positions_for_arange_class():
    """``PositionsForArange``: while active, ``torch.arange(n)`` returns the next of the given
    position tensors (only a call whose single length argument equals that tensor's length is
    replaced, in order; every other call runs unchanged). Built on first use: torch is imported
    only then."""
    global _MODE_CLASS
    if _MODE_CLASS is None:
        import torch
        from torch.overrides import TorchFunctionMode

        class PositionsForArange(TorchFunctionMode):
            __doc__ = positions_for_arange_class.__doc__

            def __init__(self, positions: Iterable) -> None:
                super().__init__()
                self.queue = list(positions)

            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                if func is torch.arange and self.queue and len(args) == 1 and \
                        args[0] == self.queue[0].shape[0]:
                    positions = self.queue.pop(0)
                    dtype = kwargs.get("dtype")
                    return positions.to(dtype) if dtype is not None else positions
                return func(*args, **kwargs)

        _MODE_CLASS = PositionsForArange
    return _MODE_CLASS


def positions_for_arange(positions: Iterable) -> Any:
    """A ``PositionsForArange`` mode over ``positions`` (see :func:`positions_for_arange_class`)."""
    return positions_for_arange_class()(positions)


# ----------------------------------------------------------------------------- torchtune

def lift_torchtune(head_dim: int = 64, base: float = 10_000) -> LiftedEncoding:
    """torchtune's ``RotaryPositionalEmbeddings`` (interleaved pairs), cache built from positions.

    torchtune precomputes ``cache[position] = (cos, sin)`` from ``arange(max_seq_len)``; the
    lift rebuilds that cache with the module's own ``build_rope_cache`` over the positions.
    """
    from symrope.schedules import RopeConfig

    (torchtune_modules,) = _require("torchtune", "torchtune.modules")
    module = torchtune_modules.RotaryPositionalEmbeddings(dim=head_dim, max_seq_len=16,
                                                          base=base)

    def torchtune_rope(q, k, positions):
        with positions_for_arange([positions]):
            module.build_rope_cache(positions.shape[0])
        # torchtune's layout is [batch, seq, heads, head_dim]
        return tuple(module(t.transpose(1, 2)).transpose(1, 2) for t in (q, k))

    return lift(torchtune_rope, head_dim, name="torchtune RotaryPositionalEmbeddings",
                frequencies=module.theta,
                schedule=RopeConfig.from_options(head_dim=head_dim, theta=float(base)))


# ----------------------------------------------------------------------------- rotary-embedding-torch

def lift_rotary_embedding_torch(head_dim: int = 64, xpos: bool = False) -> LiftedEncoding:
    """lucidrains' ``RotaryEmbedding`` (``rotate_queries_or_keys``; with xpos,
    ``rotate_queries_and_keys``), with its cache off so that every call computes."""
    from symrope.schedules import RopeConfig

    (library,) = _require("rotary-embedding-torch", "rotary_embedding_torch")
    module = library.RotaryEmbedding(dim=head_dim, use_xpos=xpos, cache_if_possible=False)

    def rotary_embedding_torch(q, k, positions):
        # one arange per rotate_* call: the query's and the key's
        with positions_for_arange([positions] if xpos else [positions, positions]):
            if xpos:
                return module.rotate_queries_and_keys(q, k)
            return module.rotate_queries_or_keys(q), module.rotate_queries_or_keys(k)

    name = "rotary_embedding_torch.RotaryEmbedding" + (" (use_xpos=True)" if xpos else "")
    return lift(rotary_embedding_torch, head_dim, name=name, frequencies=module.freqs,
                schedule=RopeConfig.from_options(head_dim=head_dim, theta=10000.0))


# ----------------------------------------------------------------------------- timm

def lift_timm(head_dim: int = 64) -> LiftedEncoding:
    """timm's axial 2-D ``RotaryEmbedding`` (index grid, temperature bands) and ``apply_rot_embed``.

    The grid's ``arange`` per axis becomes the two position coordinates (``position_dims=2``):
    an n x n grid whose row and column coordinates are the tokens' first and second
    coordinates, of which the diagonal cells ``(t, t)`` are the tokens.
    """
    (sincos,) = _require("timm", "timm.layers.pos_embed_sincos")
    if head_dim % 4:
        raise UsageError(f"timm's 2-D RoPE needs head_dim divisible by 4, got {head_dim}")
    module = sincos.RotaryEmbedding(dim=head_dim, in_pixels=False).eval()

    def timm_rope(q, k, positions):
        tokens = positions.shape[0]
        axes = [positions[:, 0], positions[:, 1]]
        with positions_for_arange(axes):
            sin_emb, cos_emb = module.get_embed(shape=[tokens, tokens])
        diagonal = [t * tokens + t for t in range(tokens)]  # cell (t, t): token t's (p0, p1)
        sin_emb, cos_emb = sin_emb[diagonal], cos_emb[diagonal]
        return (sincos.apply_rot_embed(q, sin_emb, cos_emb),
                sincos.apply_rot_embed(k, sin_emb, cos_emb))

    return lift(timm_rope, head_dim, position_dims=2,
                name="timm.layers.pos_embed_sincos.RotaryEmbedding (2-D)")


IMPLS = {
    "hf-transformers": "the config's model type: *RotaryEmbedding + apply_rotary_pos_emb "
                       "(needs --config)",
    "torchtune": "torchtune.modules.RotaryPositionalEmbeddings",
    "timm": "timm.layers.pos_embed_sincos.RotaryEmbedding, 2-D positions",
    "rotary-embedding-torch": "rotary_embedding_torch.RotaryEmbedding",
    "rotary-embedding-torch-xpos": "rotary_embedding_torch.RotaryEmbedding(use_xpos=True)",
    "rotary-embedding-torch:xpos": "the same (the spelling of earlier versions)",
}


def lift_impl(spec: str, config: dict | None = None, head_dim: int | None = None) -> LiftedEncoding:
    """The lifted encoding of a named implementation (see ``IMPLS``).

    Examples
    ========

    >>> from symrope.lifting import lift_impl
    >>> lift_impl("jax-rope")
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: unknown --impl 'jax-rope': one of hf-transformers, torchtune, timm, rotary-embedding-torch, rotary-embedding-torch-xpos, rotary-embedding-torch:xpos, or module:function / file.py:function
    """
    if spec not in IMPLS:
        raise UsageError(f"unknown --impl {spec!r}: one of {', '.join(IMPLS)}, or "
                         "module:function / file.py:function")
    if spec == "hf-transformers":
        if config is None:
            raise UsageError("--impl hf-transformers needs --config FILE.json (an HF config)")
        if head_dim is not None:
            raise UsageError("--head-dim does not apply to hf-transformers: the config sets it")
        from symrope.lifting._hf import lift_hf

        return lift_hf(config)
    if config is not None:
        raise UsageError(f"--config applies only to --impl hf-transformers, not {spec}")
    dim = 64 if head_dim is None else head_dim
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2 or dim % 2:
        raise UsageError(f"--head-dim must be a positive even integer, got {dim!r}")
    if spec == "torchtune":
        return lift_torchtune(dim)
    if spec == "timm":
        return lift_timm(dim)
    return lift_rotary_embedding_torch(dim, xpos=spec.endswith("xpos"))
