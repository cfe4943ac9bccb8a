"""Other libraries' real RoPE code for an HF config, as ``(q, k, positions) -> (q_rot, k_rot)``.

Each port reads the config through transformers' config class (its defaults, as
``hf-transformers`` does), translates the rope settings into the library's own constructor,
builds the library's module and calls its own apply code: nothing of the rotation is re-typed.
A setting the library cannot express is not faked: the port runs what the library can do and
records the settings it *actually* ran (``effective``), so ``symrope diff`` blames the key it
dropped. Where a library takes no explicit positions, its own ``torch.arange`` is handed the
positions (``positions_for_arange``), or its cache rows are indexed by them.

These are plain functions until the registry of implementations (issue 21) lands; each entry of
:data:`PORTS` says what it needs (``distribution==version``, install flags, patches) so the move
is mechanical. Libraries missing here are a :class:`UsageError` naming the install.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from symrope.errors import UsageError

__all__ = ["PORTS", "Port", "lift_port"]


@dataclass
class Port:
    """One library's port: what it runs, how to install it, and its builder."""

    description: str
    distribution: str
    needs: str
    build: object = None
    notes: list = field(default_factory=list)


def _require(port: str, *modules: str):
    entry = PORTS[port]
    loaded = []
    for module in modules:
        try:
            loaded.append(importlib.import_module(module))
        except Exception as error:  # noqa: BLE001 - ImportError or a broken dependency chain
            raise UsageError(f"{port} needs {module}, which does not import here "
                             f"({type(error).__name__}: {' '.join(str(error).split())[:160]}); "
                             f"install: {entry.needs}") from None
    return loaded


def _llama3(settings: dict, port: str) -> dict | None:
    """The llama3 scaling parameters, or None for none; anything else the port cannot run."""
    kind = settings.get("rope_type", "default")
    if kind in (None, "default"):
        return None
    if kind != "llama3":
        raise UsageError(f"{port} runs the default and llama3 rope schedules, not "
                         f"rope_type {kind!r}")
    return {"factor": float(settings.get("factor", 8.0)),
            "low_freq_factor": float(settings.get("low_freq_factor", 1.0)),
            "high_freq_factor": float(settings.get("high_freq_factor", 4.0)),
            "original_max_position_embeddings":
                int(settings.get("original_max_position_embeddings", 8192))}


def _full_rotary(settings: dict, port: str) -> None:
    if float(settings.get("partial_rotary_factor", 1.0)) != 1.0:
        raise UsageError(f"{port}: this port rotates every channel; the config asks "
                         f"partial_rotary_factor {settings['partial_rotary_factor']}")


def _torch_head_first(function):
    """Adapt a library that takes ``(batch, seq, heads, dim)`` to the lift's ``(1, 1, seq, dim)``."""
    def adapted(q, k, positions):
        out_q, out_k = function(q.transpose(1, 2), k.transpose(1, 2), positions)
        return out_q.transpose(1, 2), out_k.transpose(1, 2)
    return adapted


# ----------------------------------------------------------------------------- torchtune

def _torchtune_llama3(settings, head_dim):
    (models,) = _require("torchtune-llama3", "torchtune.models.llama3_1")
    from symrope.lifting import positions_for_arange

    _full_rotary(settings, "torchtune-llama3")
    scaling = _llama3(settings, "torchtune-llama3")
    theta = float(settings["rope_theta"])
    if scaling is None:
        (modules,) = _require("torchtune-llama3", "torchtune.modules")
        module = modules.RotaryPositionalEmbeddings(dim=head_dim, max_seq_len=16, base=theta)
        name = "torchtune.modules.RotaryPositionalEmbeddings"
    else:
        module = models.Llama3ScaledRoPE(
            head_dim, max_seq_len=16, base=theta, scale_factor=scaling["factor"],
            low_freq_factor=scaling["low_freq_factor"],
            high_freq_factor=scaling["high_freq_factor"],
            old_context_len=scaling["original_max_position_embeddings"])
        name = "torchtune.models.llama3_1.Llama3ScaledRoPE"

    def torchtune_rope(q, k, positions):
        # the cache is built from the module's own arange, handed the positions
        with positions_for_arange([positions]):
            module.build_rope_cache(positions.shape[0])
        return module(q), module(k)

    return _torch_head_first(torchtune_rope), name, module.theta, dict(settings)


PORTS: dict[str, Port] = {
    "torchtune-llama3": Port(
        "torchtune.models.llama3_1.Llama3ScaledRoPE (RotaryPositionalEmbeddings without "
        "scaling); cache built at the positions", "torchtune", "torchtune==0.6.1 (in "
        "symrope[frameworks])", _torchtune_llama3),
}


# ----------------------------------------------------------------------------- lifting

def lift_port(port: str, config, model_type, rope_scaling, layer_type=None, tokens=None):
    """Lift a port for an HF config (see the module's docstring)."""
    from symrope.diff._resolve import _describe, _version
    from symrope.diff._settings import hf_settings
    from symrope.lifting import lift
    from symrope.lifting._hf import _frequencies, _head_dim, hf_rope

    rope = hf_rope(config, model_type, rope_scaling)
    chosen = layer_type if layer_type is not None else rope.layer_types[0]
    head_dim = _head_dim(rope.config, chosen)
    if head_dim is None:
        raise UsageError(f"{port}: the config does not say the head dimension")
    settings = hf_settings(rope.config, chosen, head_dim)
    entry = PORTS[port]
    function, name, frequencies, effective = entry.build(settings, head_dim)
    extra = {} if tokens is None else {"tokens": tokens}
    # the exact schedule of what the port ran: the HF config's when it ran all of it
    _, schedule = _frequencies(rope, chosen) if effective == settings else (None, None)
    if frequencies is not None and schedule is not None and \
            getattr(frequencies, "numel", lambda: -1)() == schedule.pairs:
        extra.update(frequencies=frequencies, schedule=schedule)
    encoding = lift(function, head_dim, name=f"{name} ({port})", **extra)
    encoding.schedule = schedule
    notes = list(encoding.lift_info.get("notes", []))
    if effective != settings:
        dropped = sorted(k for k in set(settings) | set(effective)
                         if settings.get(k) != effective.get(k))
        notes.append(f"{port} cannot express {', '.join(dropped)} of the config: it ran "
                     "without them (the diff blames them)")
    encoding.lift_info["notes"] = notes + entry.notes
    _describe(encoding, port, entry.distribution, config, model_type, rope_scaling, effective)
    encoding.lift_info["library"]["version"] = _version(entry.distribution)
    return encoding
