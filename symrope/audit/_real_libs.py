"""The real RoPE modules of torchtune, rotary-embedding-torch, keras-hub and timm (CPU, offline).

Each class builds the library's own module from the audited schedule (theta, rotary dim, and the
scalings the library has) and rotates through the library's own apply path; a schedule the
library cannot express is a one-line UsageError rather than a silent approximation.
"""

from __future__ import annotations

import numpy as np

from symrope.audit._dtypes import widen
from symrope.audit._real import RealImpl, import_library, library_call
from symrope.errors import UsageError
from symrope.schedules import RopeConfig


def _runs(positions: np.ndarray):
    """(start index, stop index, first position) of each run of consecutive positions."""
    cuts = np.flatnonzero(np.diff(positions) != 1) + 1
    starts = np.concatenate([[0], cuts]).astype(int)
    stops = np.concatenate([cuts, [positions.size]]).astype(int)
    return [(a, b, int(positions[a])) for a, b in zip(starts, stops)]


def _theta(config: RopeConfig):
    theta = float(config.theta)
    return int(theta) if theta.is_integer() else theta   # as the libraries' own defaults are typed


# --- torchtune ---------------------------------------------------------------------------------

class TorchtuneImpl(RealImpl):
    """torchtune ``RotaryPositionalEmbeddings`` (``Llama3ScaledRoPE`` for llama3 scaling)."""

    name = "torchtune"
    pairing = "interleaved"
    rope_types = ("default", "llama3")
    partial_rotary = False
    fix_target = ("torchtune.modules.RotaryPositionalEmbeddings.build_rope_cache: compute "
                  "idx_theta = outer(arange, theta) in float64 (theta from base in float64), "
                  "then cache = stack(cos, sin).float()")

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        if config.rope_type == "llama3":
            module = import_library("torchtune.models.llama3_1", self.name)
            params = config.params
            self.module = module.Llama3ScaledRoPE(
                dim=config.head_dim, max_seq_len=4096, base=_theta(config),
                scale_factor=params["factor"], low_freq_factor=params["low_freq_factor"],
                high_freq_factor=params["high_freq_factor"],
                old_context_len=params["original_max_position_embeddings"])
            label = "Llama3ScaledRoPE"
        else:
            module = import_library("torchtune.modules", self.name)
            self.module = module.RotaryPositionalEmbeddings(dim=config.head_dim, max_seq_len=4096,
                                                            base=_theta(config))
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


# --- rotary-embedding-torch --------------------------------------------------------------------

class RotaryEmbeddingTorchImpl(RealImpl):
    """lucidrains' ``rotary_embedding_torch.RotaryEmbedding`` through ``rotate_queries_or_keys``."""

    name = "rotary-embedding-torch"
    pairing = "interleaved"
    rope_types = ("default", "linear")
    fix_target = ("rotary_embedding_torch.RotaryEmbedding.forward: einsum of t.double() and "
                  "freqs.double() (freqs from theta in float64), then apply_rotary_emb")

    def __init__(self, config: RopeConfig, **options):
        super().__init__(config)
        self.library = import_library("rotary_embedding_torch", self.name)
        factor = float(config.params.get("factor", 1.0)) if config.rope_type == "linear" else 1.0
        self._options = dict(dim=config.rotary_dim, theta=_theta(config), interpolate_factor=factor,
                             **options)
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
                         for a, b, first in _runs(positions)])
        freqs = module.forward(seq)
        t = x.transpose(0, 1)   # (heads, n, d): the library's default seq_dim is -2
        return self.library.apply_rotary_emb(freqs, t).transpose(0, 1)


class RotaryEmbeddingTorchXposImpl(RotaryEmbeddingTorchImpl):
    """``RotaryEmbedding(use_xpos=True)`` through ``rotate_queries_and_keys``, one sequence 0..L-1.

    xpos multiplies q by ``scale_i ** ((p - L // 2) / 512)`` and k by its inverse, so the table is
    the query side divided by that scale computed exactly (float64, ``scale_i = (2i + 0.4 d) /
    (1.4 d)``): what is compared is the rotation, relative to the scale the formula intends.
    """

    name = "rotary-embedding-torch-xpos"
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
        from symrope.audit._real import TORCH_DTYPE_NAMES
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


# --- keras-hub ---------------------------------------------------------------------------------

class KerasHubImpl(RealImpl):
    """keras-hub ``RotaryEmbedding`` layer on the torch backend, in the layer's compute dtype."""

    name = "keras-hub"
    pairing = "rotate_half"
    rope_types = ("default", "linear")
    partial_rotary = False
    fix_target = ("keras_hub.layers.RotaryEmbedding._compute_cos_sin_embedding: einsum of "
                  "float64 positions and inverse_freq, cos/sin in float64, then cast to the "
                  "compute dtype")

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        keras_hub = import_library("keras_hub", self.name)
        self._layer_class = keras_hub.layers.RotaryEmbedding
        self._factor = float(config.params.get("factor", 1.0)) if config.rope_type == "linear" else 1.0
        self._layers = {}
        self.summary = (f"keras-hub {keras_hub.__version__} RotaryEmbedding (the real layer, torch "
                        f"backend): float32 inverse_freq and einsum angle, cos/sin cast to the "
                        f"compute dtype, x * cos + rotate_half(x) * sin in the compute dtype")

    def explanation(self, dtype: str) -> str:
        text = ("The angle is a float32 einsum of float32 positions and float32 inverse "
                "frequencies (rounding grows like p*2^-24); cos/sin are cast to the compute dtype")
        if dtype in ("bf16", "fp16"):
            text += (f" and the rotation x*cos + rotate_half(x)*sin is computed in {dtype} itself, "
                     f"so each product and the sum round to {dtype}")
        return text + "."

    def _layer(self, torch_dtype):
        key = str(torch_dtype)
        if key not in self._layers:
            policy = {"torch.bfloat16": "bfloat16", "torch.float16": "float16",
                      "torch.float32": "float32", "torch.float64": "float64"}[key]
            kwargs = {"scaling_factor": self._factor} if self._factor != 1.0 else {}
            self._layers[key] = self._layer_class(max_wavelength=_theta(self.rope_config),
                                                  dtype=policy, **kwargs)
        return self._layers[key]

    def _rotate(self, x, positions):
        torch = self.torch
        layer = self._layer(x.dtype)
        out = layer(x[None], positions=torch.from_numpy(positions))
        return torch.as_tensor(out)[0]


# --- timm --------------------------------------------------------------------------------------

class TimmImpl(RealImpl):
    """timm's axial 2-D ``RotaryEmbedding`` (``in_pixels=False``) along the grid's second axis.

    Along one axis of a ``(1, n)`` grid, timm's embedding of dim ``D`` with temperature ``T``
    rotates ``D/4`` pairs at ``T^(-i / (D/4))``: 1-D RoPE with rotary dim ``D/2`` and theta
    ``T``. The audit builds it with ``D = 2 * rotary_dim``, runs ``get_embed`` with the
    module's ``grid_offset`` at each run's first position, and rotates with ``apply_rot_embed``;
    the first axis's channels (position = the offset) are filled with zeros and dropped.
    """

    name = "timm"
    pairing = "interleaved"
    rope_types = ("default",)
    fix_target = ("timm.layers.pos_embed_sincos.build_fourier_pos_embed: pos = grid * bands in "
                  "float64 (grid and bands as float64), sin/cos in float64, then cast")

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        self.layers = import_library("timm.layers.pos_embed_sincos", self.name)
        timm = import_library("timm", self.name)
        self.module = self.layers.RotaryEmbedding(dim=2 * config.rotary_dim,
                                                  temperature=_theta(config), in_pixels=False)
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
        for a, b, first in _runs(positions):
            self.module.grid_offset = float(first)
            sin, cos = self.module.get_embed([1, b - a])
            wide = torch.zeros(b - a, x.shape[1], 2 * d, dtype=x.dtype)
            wide[..., d:] = x[a:b, :, :d]
            out = self.layers.apply_rot_embed(wide, sin[:, None, :], cos[:, None, :], half=False)
            rotated = x[a:b].clone()
            rotated[..., :d] = out[..., d:]
            parts.append(rotated)
        return torch.cat(parts)
