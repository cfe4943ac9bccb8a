"""The ``rotary-embedding-torch`` entries: lucidrains' ``RotaryEmbedding``, plain and xpos.

The audit rotates through ``get_seq_pos`` / ``forward`` / ``apply_rotary_emb`` (one module per
dtype) and, with xpos, ``rotate_queries_and_keys`` over one whole sequence; the lift calls
``rotate_queries_or_keys`` (``rotate_queries_and_keys``) with the module's cache off, its one
``arange`` per call handed the positions.
"""

from __future__ import annotations

import numpy as np

from symrope.audit._dtypes import widen
from symrope.audit._real import Library, LiftTarget, position_runs, theta_argument
from symrope.audit._torch import import_library, library_call, positions_for_arange
from symrope.errors import UsageError
from symrope.schedules import RopeConfig


class RotaryEmbeddingTorchImpl(Library):
    """lucidrains' ``rotary_embedding_torch.RotaryEmbedding`` through ``rotate_queries_or_keys``."""

    name = "rotary-embedding-torch"
    imports = ("torch", "rotary_embedding_torch")
    requirement = "rotary-embedding-torch>=0.8"
    runs = ("`RotaryEmbedding.get_seq_pos` / `forward` / `apply_rotary_emb`, one module per "
            "dtype")
    table_is = "the rotation of each pair's first unit vector"
    pairing = "interleaved"
    rope_types = ("default", "linear")
    lift = "schedule"
    lift_help = "rotary-embedding-torch[:xpos]"
    lift_description = "rotary_embedding_torch.RotaryEmbedding"
    xpos = False
    fix_target = ("rotary_embedding_torch.RotaryEmbedding.forward: einsum of t.double() and "
                  "freqs.double() (freqs from theta in float64), then apply_rotary_emb")

    def __init__(self, config: RopeConfig, **options):
        super().__init__(config)
        self.library = import_library("rotary_embedding_torch", self.name)
        factor = float(config.params.get("factor", 1.0)) if config.rope_type == "linear" else 1.0
        self._options = dict(dim=config.rotary_dim, theta=theta_argument(config),
                             interpolate_factor=factor, **options)
        # One module per dtype: the library caches freqs by length only, so a bf16 call would
        # leave bf16-rounded positions in the cache for a later fp32 call (a model runs in one).
        self._modules = {}
        self.module = self._module("fp32")
        from importlib.metadata import version

        self.summary = (f"rotary-embedding-torch {version('rotary-embedding-torch')} "
                        f"RotaryEmbedding (the real module): float32 freqs, positions "
                        f"get_seq_pos = (arange + offset) / interpolate_factor in the input's dtype, "
                        f"einsum in float32, x * cos + rotate_half(x) * sin, cast back")

    def _module(self, key):
        if key not in self._modules:
            self._modules[key] = self.library.RotaryEmbedding(**self._options)
        return self._modules[key]

    def explanation(self, dtype: str) -> str:
        text = ("The angle einsum(t, freqs) is a float32 product of the position and a float32 "
                "frequency: its rounding grows like p*2^-24")
        if dtype in ("bf16", "fp16"):
            text += (f"; but rotate_queries_or_keys builds the positions with arange in the input's "
                     f"dtype, so in {dtype} every position above "
                     f"{256 if dtype == 'bf16' else 2048} is rounded"
                     + (" and those above 65504 overflow to inf" if dtype == "fp16" else "")
                     + " -- whole radians of phase error")
        return text + f"; the rotation is done in float32 and cast to {dtype}."

    def _rotate(self, x, positions):
        """``get_seq_pos`` per run of consecutive positions (as ``rotate_queries_or_keys`` builds
        them, in the input's dtype, offset = the run's first position), one ``forward`` and one
        ``apply_rotary_emb`` for all of them."""
        torch = self.torch
        module = self._module(str(x.dtype))
        seq = torch.cat([module.get_seq_pos(b - a, dtype=x.dtype, offset=first)
                         for a, b, first in position_runs(positions)])
        freqs = module.forward(seq)
        t = x.transpose(0, 1)   # (heads, n, d): the library's default seq_dim is -2
        return self.library.apply_rotary_emb(freqs, t).transpose(0, 1)


    @classmethod
    def lift_target(cls, config: RopeConfig) -> LiftTarget:
        """``rotate_queries_or_keys`` (with xpos, ``rotate_queries_and_keys``), with the module's
        cache off so that every call computes, its ``arange`` handed the positions."""
        library = import_library("rotary_embedding_torch", cls.name)
        module = library.RotaryEmbedding(dim=config.head_dim, theta=theta_argument(config),
                                         use_xpos=cls.xpos, cache_if_possible=False)
        xpos = cls.xpos

        def rotary_embedding_torch(q, k, positions):
            # one arange per rotate_* call: the query's and the key's
            with positions_for_arange([positions] if xpos else [positions, positions]):
                if xpos:
                    return module.rotate_queries_and_keys(q, k)
                return module.rotate_queries_or_keys(q), module.rotate_queries_or_keys(k)

        name = "rotary_embedding_torch.RotaryEmbedding" + (" (use_xpos=True)" if xpos else "")
        return LiftTarget(rotary_embedding_torch, config.head_dim, name, frequencies=module.freqs,
                          schedule=RopeConfig.from_options(head_dim=config.head_dim,
                                                           theta=float(config.theta)))


class RotaryEmbeddingTorchXposImpl(RotaryEmbeddingTorchImpl):
    """``RotaryEmbedding(use_xpos=True)`` through ``rotate_queries_and_keys``, one sequence 0..L-1.

    xpos multiplies q by ``scale_i ** ((p - L // 2) / 512)`` and k by its inverse, so the table is
    the query side divided by that scale computed exactly (float64, ``scale_i = (2i + 0.4 d) /
    (1.4 d)``): what is compared is the rotation, relative to the scale the formula intends.
    """

    name = "rotary-embedding-torch-xpos"
    runs = ("`RotaryEmbedding(use_xpos=True).rotate_queries_and_keys` over one sequence `0..L-1` "
            "(L <= 131072)")
    table_is = "the query side divided by the exact xpos scale"
    lift_help = ""     # spelled with the plain entry: rotary-embedding-torch[:xpos]
    lift_description = "rotary_embedding_torch.RotaryEmbedding(use_xpos=True)"
    lift_aliases = {"rotary-embedding-torch:xpos": "the same (the spelling of earlier versions)"}
    xpos = True
    default_dtype = "fp32"
    scaled_table = True
    _LONGEST = 1 << 17   # one call holds the whole sequence (the scale depends on its length)

    def __init__(self, config: RopeConfig):
        super().__init__(config, use_xpos=True)
        self.length = None
        self._cache = {}
        self.summary = self.summary.replace("RotaryEmbedding (the real module)",
                                            "RotaryEmbedding(use_xpos=True) (the real module)")

    def explanation(self, dtype: str) -> str:
        return ("xpos scales q by scale_i^((p - L/2)/512) and k by the inverse: in float32 the "
                "scales under- and overflow once (L/2)/512 * log(1/0.29) passes ~87 (L ~ 90K), "
                "and the rotation itself has the float32 angle's p*2^-24 rounding.")

    def prepare(self, max_position: int) -> None:
        """Fix the sequence length L = max_position + 1 that the xpos scale is centred on."""
        if max_position + 1 > self._LONGEST:
            raise UsageError(f"{self.name}: the xpos scale depends on the whole sequence, rotated "
                             f"in one call; audit at most {self._LONGEST} positions "
                             f"(--max-position {self._LONGEST - 1})")
        self.length = int(max_position) + 1

    def _rotate(self, x, positions):
        raise UsageError(f"{self.name} rotates q and k together over a whole sequence")

    rotate = None   # q and k are rotated together over the whole sequence: the table stands in

    def table(self, positions, config=None, dtype=None, seq_len=None):
        from symrope.audit._models import dtype_name, validate_positions
        from symrope.audit._torch import TORCH_DTYPE_NAMES
        from symrope.audit._user import _to_numpy

        positions = validate_positions(positions)
        if self.length is None:
            self.prepare(int(positions.max()) if positions.size else 0)
        if positions.size and positions.max() >= self.length:
            raise UsageError(f"{self.name}: position {int(positions.max())} is beyond the sequence "
                             f"length {self.length} the xpos scale was centred on")
        name = dtype_name(self.default_dtype if dtype is None else dtype)
        if name not in self._cache:
            torch = self.torch
            first, second = self.channels()
            q = torch.zeros(1, self.length, self.rope_config.head_dim,
                            dtype=getattr(torch, TORCH_DTYPE_NAMES[name]))
            q[..., first] = 1
            with library_call(torch):
                rotated_q, _ = self._module(name).rotate_queries_and_keys(q, q.clone())
            rotated = _to_numpy(rotated_q[0], self.name, "the rotated q")
            rotated = widen(rotated)
            d = self.rope_config.rotary_dim
            scale = (np.arange(0, d, 2) + 0.4 * d) / (1.4 * d)
            power = (np.arange(self.length) - self.length // 2) / self.module.scale_base
            with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
                exact_scale = scale[None, :] ** power[:, None]
                self._cache[name] = (rotated[:, first] / exact_scale, rotated[:, second] / exact_scale)
        cos, sin = self._cache[name]
        return cos[positions], sin[positions]


LIBRARIES = (RotaryEmbeddingTorchImpl, RotaryEmbeddingTorchXposImpl)
