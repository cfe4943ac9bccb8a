"""The ``x-transformers`` entry: lucidrains' x-transformers ``RotaryEmbedding`` and
``apply_rotary_pos_emb`` (``x_transformers.x_transformers``).

Interleaved pairs (``rotate_half`` there rearranges ``(d r) -> d r`` with ``r = 2``); a partial
rotary rotates the first ``dim`` channels and passes the rest. Its own schedules are plain RoPE
(``base``) and linear interpolation (``interpolation_factor`` divides the float32 angle);
llama3 has no schedule there, so, as users run Llama 3.1 with it, the module's ``inv_freq``
buffer is overwritten with the schedule's frequencies, correctly rounded to float32 (the
summary says so). Schedules whose frequencies follow the sequence length (dynamic, longrope) or
that scale cos/sin (yarn) are not expressible.
"""

from __future__ import annotations

from symrope.audit._real import Library, LiftTarget, theta_argument
from symrope.audit._torch import import_library
from symrope.schedules import RopeConfig, inv_freq


class XTransformersImpl(Library):
    """x-transformers' ``RotaryEmbedding`` forward and ``apply_rotary_pos_emb``."""

    name = "x-transformers"
    imports = ("torch", "x_transformers")
    requirement = "x-transformers>=2.0"
    runs = ("`x_transformers.x_transformers.RotaryEmbedding` (linear: `interpolation_factor`; "
            "llama3: its `inv_freq` overwritten with the schedule's float32 frequencies) and "
            "`apply_rotary_pos_emb`")
    table_is = "the rotation of each pair's first unit vector"
    pairing = "interleaved"
    rope_types = ("default", "linear", "llama3")
    fix_target = ("x_transformers.x_transformers.RotaryEmbedding.forward: einsum of t.double() "
                  "and inv_freq.double() (inv_freq from base in float64), then "
                  "apply_rotary_pos_emb")
    lift = "schedule"
    lift_description = "x_transformers.x_transformers.RotaryEmbedding + apply_rotary_pos_emb"

    def __init__(self, config: RopeConfig) -> None:
        super().__init__(config)
        self.library = import_library("x_transformers.x_transformers", self.name)
        factor = float(config.params.get("factor", 1.0)) if config.rope_type == "linear" else 1.0
        self.module = self.library.RotaryEmbedding(dim=config.rotary_dim, base=theta_argument(config),
                                                   interpolation_factor=factor)
        injected = ""
        if config.rope_type == "llama3":
            torch = self.torch
            with torch.no_grad():
                self.module.inv_freq.copy_(torch.from_numpy(inv_freq(config, "float32")))
            injected = (" overwritten with the llama3 schedule's correctly rounded float32 "
                        "frequencies (x-transformers has no llama3 schedule)")
        from importlib.metadata import version

        self.summary = (f"x-transformers {version('x-transformers')} RotaryEmbedding (the real "
                        f"module): float32 inv_freq{injected}, positions t.type_as(inv_freq) in "
                        f"float32, einsum in float32"
                        + (f" / interpolation_factor {factor:g}" if factor != 1.0 else "")
                        + ", x * cos + rotate_half(x) * sin in float32, cast back")

    def explanation(self, dtype: str) -> str:
        return ("The angle einsum(t, inv_freq) is a float32 product of the float32 position and a "
                "float32 frequency: its rounding grows like p*2^-24 (positions are exact in "
                "float32 up to 2^24); apply_rotary_pos_emb rotates in float32 and casts to "
                f"{dtype}" + ("" if dtype in ("fp32", "fp64") else
                              f", which adds up to half a {dtype} ulp") + ".")

    def _rotate(self, x, positions):
        freqs, scale = self.module(self.torch.from_numpy(positions))   # (1, n, rotary_dim)
        q = x.transpose(0, 1)[None]                                     # (1, heads, n, head_dim)
        return self.library.apply_rotary_pos_emb(q, freqs, scale)[0].transpose(0, 1)

    @classmethod
    def lift_target(cls, config: RopeConfig) -> LiftTarget:
        """The module's forward on the positions themselves (``forward(t)`` takes them) and the
        library's ``apply_rotary_pos_emb`` on q and k."""
        library = import_library("x_transformers.x_transformers", cls.name)
        module = library.RotaryEmbedding(dim=config.head_dim, base=theta_argument(config))

        def x_transformers_rope(q, k, positions):
            freqs, scale = module(positions)
            return (library.apply_rotary_pos_emb(q, freqs, scale),
                    library.apply_rotary_pos_emb(k, freqs, scale))

        return LiftTarget(x_transformers_rope, config.head_dim,
                          "x_transformers.x_transformers.RotaryEmbedding", frequencies=module.inv_freq,
                          schedule=RopeConfig.from_options(head_dim=config.head_dim,
                                                           theta=float(config.theta)))


LIBRARIES = (XTransformersImpl,)
