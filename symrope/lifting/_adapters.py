"""The real libraries of the registry (``symrope.audit.libraries()``), lifted by name.

Each liftable entry hands its own code over as ``(q, k, positions) -> (q_rot, k_rot)``
(``Library.lift_target``: the library's module instantiated, its own apply function called,
nothing re-typed); transformers' classes (``lift = "hf-config"``) are read for a config by
``_hf.py`` and lifted by ``_hf_lift.py``. Where a library takes no explicit positions, its entry
hands its ``torch.arange`` the positions (``symrope.audit.positions_for_arange``).
"""

from __future__ import annotations

from symrope.audit import Library, libraries, lift_specs
from symrope.errors import UsageError
from symrope.lifting._encoding import LiftedEncoding
from symrope.lifting._lift import lift
from symrope.schedules import RopeConfig

__all__ = ["IMPLS", "lift_impl", "lift_library", "registered"]

#: ``symrope check --impl`` names of the liftable libraries -> what is lifted (the registry's).
IMPLS = lift_specs()


def lift_library(library: type[Library], config: RopeConfig, tokens: int | None = None,
                 whole_schedule: bool = False) -> LiftedEncoding:
    """The lifted encoding of a registered library built for ``config`` (its ``lift_target``);
    ``tokens``: the lift's symbolic sequence length (its default where None).

    With ``whole_schedule`` (``symrope diff`` given an HF config), a target built for less than
    ``config`` (an entry whose lift builds plain RoPE of the config's theta, the ``check --impl``
    case) is a one-line UsageError, never a lift of another schedule than the one asked."""
    target = library.lift_target(config)
    if whole_schedule and not _builds(target.schedule, config):
        raise UsageError(f"{library.name}'s lift builds plain RoPE of a head dimension and theta "
                         f"only, not the {config.rope_type} schedule of this config"
                         + (f" (rotary_dim {config.rotary_dim} of {config.head_dim})"
                            if config.rotary_dim != config.head_dim else ""))
    extra = {} if tokens is None else {"tokens": tokens}
    return lift(target.function, target.head_dim, position_dims=target.position_dims,
                name=target.name, frequencies=target.frequencies,
                schedule=target.schedule, **extra)


def _builds(built: RopeConfig | None, asked: RopeConfig) -> bool:
    """Whether a target's schedule is the one asked (the context length counts only for the
    types whose frequencies follow it: dynamic NTK, YaRN and LongRoPE's implicit factor)."""
    if built is None:
        return False
    fields = ("head_dim", "rotary_dim", "theta", "rope_type", "params")
    if asked.rope_type in ("dynamic", "yarn", "longrope"):
        fields += ("max_position_embeddings",)
    return all(getattr(built, field) == getattr(asked, field) for field in fields)


def registered(spec: str) -> type[Library] | None:
    """The liftable registry entry ``spec`` names (its name or a lift alias), or None."""
    for library in libraries():
        if library.lift is not None and (spec == library.name or spec in library.lift_aliases):
            return library
    return None


def lift_impl(spec: str, config: dict | None = None, head_dim: int | None = None) -> LiftedEncoding:
    """The lifted encoding of a named implementation (see ``IMPLS``): a library's own code for
    plain RoPE (theta 10000) of ``head_dim`` (default 64), or transformers' class for the HF
    ``config``.

    Examples
    ========

    >>> from symrope.lifting import lift_impl
    >>> lift_impl("jax-rope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: unknown --impl 'jax-rope': one of hf-transformers, torchtune, ..., or module:function / file.py:function
    """
    library = registered(spec)
    if library is None:
        raise UsageError(f"unknown --impl {spec!r}: one of {', '.join(IMPLS)}, or "
                         "module:function / file.py:function")
    if library.lift == "hf-config":
        if config is None:
            raise UsageError(f"--impl {spec} needs --config FILE.json (an HF config)")
        if head_dim is not None:
            raise UsageError(f"--head-dim does not apply to {spec}: the config sets it")
        from symrope.lifting._hf_lift import lift_hf

        return lift_hf(config)
    if config is not None:
        owners = ", ".join(lib.name for lib in libraries() if lib.lift == "hf-config")
        raise UsageError(f"--config applies only to --impl {owners}, not {spec}")
    dim = 64 if head_dim is None else head_dim
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 2 or dim % 2:
        raise UsageError(f"--head-dim must be a positive even integer, got {dim!r}")
    return lift_library(library, RopeConfig.from_options(head_dim=dim, theta=10000.0))
