"""The ``timm`` entry: timm's axial 2-D ``RotaryEmbedding``.

The audit runs it along one axis of a ``(1, n)`` grid (1-D RoPE); the lift runs it on 2-D
positions, each axis's ``arange`` handed one coordinate.
"""

from __future__ import annotations

from symrope.audit._real import Library, LiftTarget, position_runs, theta_argument
from symrope.audit._torch import import_library, positions_for_arange
from symrope.errors import UsageError
from symrope.schedules import RopeConfig


class TimmImpl(Library):
    """timm's axial 2-D ``RotaryEmbedding`` (``in_pixels=False``) along the grid's second axis.

    Along one axis of a ``(1, n)`` grid, timm's embedding of dim ``D`` with temperature ``T``
    rotates ``D/4`` pairs at ``T^(-i / (D/4))``: 1-D RoPE with rotary dim ``D/2`` and theta
    ``T``. The audit builds it with ``D = 2 * rotary_dim``, runs ``get_embed`` with the
    module's ``grid_offset`` at each run's first position, and rotates with ``apply_rot_embed``;
    the first axis's channels (position = the offset) are filled with zeros and dropped.
    """

    name = "timm"
    imports = ("torch", "timm")
    requirement = "timm>=1.0"
    runs = ("`timm.layers.RotaryEmbedding(in_pixels=False)` along the second axis of a `(1, n)` "
            "grid (1-D RoPE with rotary dim D/2)")
    table_is = "`apply_rot_embed` on unit vectors"
    lift = "schedule"
    lift_description = "timm.layers.pos_embed_sincos.RotaryEmbedding, 2-D positions"
    pairing = "interleaved"
    rope_types = ("default",)
    fix_target = ("timm.layers.pos_embed_sincos.build_fourier_pos_embed: pos = grid * bands in "
                  "float64 (grid and bands as float64), sin/cos in float64, then cast")

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        self.layers = import_library("timm.layers.pos_embed_sincos", self.name)
        timm = import_library("timm", self.name)
        self.module = self.layers.RotaryEmbedding(dim=2 * config.rotary_dim,
                                                  temperature=theta_argument(config), in_pixels=False)
        self.summary = (f"timm {timm.__version__} RotaryEmbedding (2-D axial, in_pixels=False; the "
                        f"real module, second grid axis): float32 bands and grid, sin/cos of the "
                        f"float32 product, apply_rot_embed cast back")

    def explanation(self, dtype: str) -> str:
        return ("The grid coordinate and the band are float32 and their product is rounded to "
                "float32 (error growing like p*2^-24); sin/cos in float32; apply_rot_embed "
                f"promotes x and casts the result to {dtype}.")

    def _rotate(self, x, positions):
        torch = self.torch
        d = self.rope_config.rotary_dim
        parts = []
        for a, b, first in position_runs(positions):
            self.module.grid_offset = float(first)
            sin, cos = self.module.get_embed([1, b - a])
            wide = torch.zeros(b - a, x.shape[1], 2 * d, dtype=x.dtype)
            wide[..., d:] = x[a:b, :, :d]
            out = self.layers.apply_rot_embed(wide, sin[:, None, :], cos[:, None, :], half=False)
            rotated = x[a:b].clone()
            rotated[..., :d] = out[..., d:]
            parts.append(rotated)
        return torch.cat(parts)

    @classmethod
    def lift_target(cls, config: RopeConfig) -> LiftTarget:
        """timm's axial 2-D ``RotaryEmbedding`` (index grid, temperature bands) and
        ``apply_rot_embed``, on 2-D positions.

        The grid's ``arange`` per axis becomes the two position coordinates
        (``position_dims=2``): an n x n grid whose row and column coordinates are the tokens'
        first and second coordinates, of which the diagonal cells ``(t, t)`` are the tokens.
        """
        sincos = import_library("timm.layers.pos_embed_sincos", cls.name)
        if config.head_dim % 4:
            raise UsageError(f"timm's 2-D RoPE needs head_dim divisible by 4, got {config.head_dim}")
        module = sincos.RotaryEmbedding(dim=config.head_dim, temperature=theta_argument(config),
                                        in_pixels=False).eval()

        def timm_rope(q, k, positions):
            tokens = positions.shape[0]
            axes = [positions[:, 0], positions[:, 1]]
            with positions_for_arange(axes):
                sin_emb, cos_emb = module.get_embed(shape=[tokens, tokens])
            diagonal = [t * tokens + t for t in range(tokens)]  # cell (t, t): token t's (p0, p1)
            sin_emb, cos_emb = sin_emb[diagonal], cos_emb[diagonal]
            return (sincos.apply_rot_embed(q, sin_emb, cos_emb),
                    sincos.apply_rot_embed(k, sin_emb, cos_emb))

        return LiftTarget(timm_rope, config.head_dim,
                          "timm.layers.pos_embed_sincos.RotaryEmbedding (2-D)", position_dims=2)


LIBRARIES = (TimmImpl,)
