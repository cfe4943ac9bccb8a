"""The ``torchtune`` entry: ``RotaryPositionalEmbeddings`` (``Llama3ScaledRoPE`` for llama3).

The audit builds the library's own module from the schedule and rotates through its forward;
the lift rebuilds its cache with the module's own ``build_rope_cache`` over the positions.
"""

from __future__ import annotations

from symrope.audit._real import Library, LiftTarget, theta_argument
from symrope.audit._torch import import_library, positions_for_arange
from symrope.schedules import RopeConfig


class TorchtuneImpl(Library):
    """torchtune ``RotaryPositionalEmbeddings`` (``Llama3ScaledRoPE`` for llama3 scaling)."""

    name = "torchtune"
    imports = ("torch", "torchtune")
    requirement = "torchtune>=0.6"
    runs = "`RotaryPositionalEmbeddings` (`Llama3ScaledRoPE` for llama3)"
    table_is = "its forward on each pair's first unit vector"
    pairing = "interleaved"
    rope_types = ("default", "llama3")
    partial_rotary = False
    survey_cost = 3
    fix_target = ("torchtune.modules.RotaryPositionalEmbeddings.build_rope_cache: compute "
                  "idx_theta = outer(arange, theta) in float64 (theta from base in float64), "
                  "then cache = stack(cos, sin).float()")
    lift = "schedule"
    lift_description = "torchtune.modules.RotaryPositionalEmbeddings"

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        if config.rope_type == "llama3":
            module = import_library("torchtune.models.llama3_1", self.name)
            params = config.params
            self.module = module.Llama3ScaledRoPE(
                dim=config.head_dim, max_seq_len=4096, base=theta_argument(config),
                scale_factor=params["factor"], low_freq_factor=params["low_freq_factor"],
                high_freq_factor=params["high_freq_factor"],
                old_context_len=params["original_max_position_embeddings"])
            label = "Llama3ScaledRoPE"
        else:
            module = import_library("torchtune.modules", self.name)
            self.module = module.RotaryPositionalEmbeddings(dim=config.head_dim, max_seq_len=4096,
                                                            base=theta_argument(config))
            label = "RotaryPositionalEmbeddings"
        self.cached = 4096
        version = getattr(import_library("torchtune", self.name), "__version__", "?")
        self.summary = (f"torchtune {version} {label} (the real module): float32 theta, cache "
                        f"outer(arange, theta) in float32, cos/sin float32, x rotated in float32 "
                        f"and cast back")

    def explanation(self, dtype: str) -> str:
        return ("The cache holds cos/sin of the float32 angle fl32(fl32(p) * fl32(theta)), whose "
                "rounding grows like p*2^-24 (Meta's precompute_freqs_cis, the same numbers); x is "
                f"rotated in float32 and cast to {dtype}"
                + ("" if dtype in ("fp32", "fp64") else f", which adds up to half a {dtype} ulp"))

    def _rotate(self, x, positions):
        torch = self.torch
        needed = int(positions.max()) + 1 if positions.size else 0
        if needed > self.cached:  # the library's own method, grown in powers of two
            self.cached = 1 << (needed - 1).bit_length()
            self.module.build_rope_cache(self.cached)
        out = self.module(x[None], input_pos=torch.from_numpy(positions)[None])
        return out[0]

    @classmethod
    def lift_target(cls, config: RopeConfig) -> LiftTarget:
        """The module's cache rebuilt over the positions (``cache[position] = (cos, sin)``,
        precomputed from ``arange(max_seq_len)`` by the module's own ``build_rope_cache``)."""
        torchtune_modules = import_library("torchtune.modules", cls.name)
        module = torchtune_modules.RotaryPositionalEmbeddings(dim=config.head_dim, max_seq_len=16,
                                                              base=theta_argument(config))

        def torchtune_rope(q, k, positions):
            with positions_for_arange([positions]):
                module.build_rope_cache(positions.shape[0])
            # torchtune's layout is [batch, seq, heads, head_dim]
            return tuple(module(t.transpose(1, 2)).transpose(1, 2) for t in (q, k))

        return LiftTarget(torchtune_rope, config.head_dim, "torchtune RotaryPositionalEmbeddings",
                          frequencies=module.theta,
                          schedule=RopeConfig.from_options(head_dim=config.head_dim,
                                                           theta=float(config.theta)))


LIBRARIES = (TorchtuneImpl,)
