"""The ``hf-transformers`` entry: transformers' real rotary classes, audited offline.

``hf_transformers_impl(config_dict)`` or ``hf_transformers_impl(model_type="qwen2")`` builds the
model type's config object directly from transformers' own config class (``AutoConfig.for_model``:
no hub access; :mod:`symrope.audit._hf_config`), instantiates that model's ``*RotaryEmbedding``
class, and runs its forward for the requested positions with an ``x`` of the requested dtype;
vectors are rotated with the same modeling module's ``apply_rotary_pos_emb``. Environment knobs
act on the real module: ``cast_module`` (``module.to(dtype)``, which casts the ``inv_freq``
buffer), ``autocast`` (``torch.autocast("cpu", dtype)`` around forward) and ``tf32`` (emulated:
CPU has no TF32, so ``inv_freq`` and the position ids are rounded to TF32's 10 explicit mantissa
bits before the real forward multiplies them in float32). ``fixed=True`` audits the module
patched by :func:`symrope.audit.fix.patch_rotary` (the survey's ``hf-transformers+fix``).
The lift reads the same classes through ``symrope.lifting`` (``lift = "hf-config"``).
"""

from __future__ import annotations

import importlib

import numpy as np

from symrope.audit._hf_config import build_hf_config, built_module, inv_freq_buffer, rope_config_of
from symrope.audit._models import dtype_name, validate_positions
from symrope.audit._real import Library
from symrope.audit._torch import (TORCH_DTYPE_NAMES, import_library, library_call,
                                  tensor_to_numpy)
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

__all__ = ["HFTransformersImpl", "hf_transformers_impl", "round_to_tf32"]

_CHUNK = 1 << 16  # positions per forward call: bounded memory for long audits
_TF32_DROPPED_BITS = 13   # float32 keeps 23 fraction bits, TF32 10


def round_to_tf32(values: np.ndarray) -> np.ndarray:
    """Round float32 values to TF32 (10 fraction bits, ties to even), as float32.

    Examples
    ========
    >>> import numpy as np
    >>> round_to_tf32(np.array([2049.0, 2051.0, 4097.0], dtype=np.float32)).tolist()
    [2048.0, 2052.0, 4096.0]
    """
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    kept = (bits >> _TF32_DROPPED_BITS) & 1
    bits = (bits + (1 << (_TF32_DROPPED_BITS - 1)) - 1 + kept) >> _TF32_DROPPED_BITS << _TF32_DROPPED_BITS
    return bits.astype(np.uint32).view(np.float32)


def hf_transformers_impl(config_dict: dict | None = None, model_type: str | None = None,
                         rope_scaling: dict | None = None, *, cast_module: str | None = None,
                         autocast: str | None = None, tf32: bool = False,
                         fixed: bool = False) -> "HFTransformersImpl":
    """The real transformers rotary embedding for an HF config, behind ``table(...)``.

    Parameters
    ==========

    config_dict : dict, optional
        An HF ``config.json`` dict. ``model_type`` selects the model's own rotary class
        (``qwen2`` -> ``Qwen2RotaryEmbedding``); without one, Llama's is used.
    model_type : str, optional
        Instead of a dict: the model type's default config (transformers' own config class).
    rope_scaling : dict, optional
        Replaces the config's rope parameters (``{"rope_type": "yarn", "factor": 4, ...}``);
        the config's ``rope_theta`` is kept unless given.
    cast_module, autocast : str, optional
        ``"bf16"`` or ``"fp16"``: ``module.to(dtype)`` / ``torch.autocast("cpu", dtype)``.
    tf32 : bool
        Emulate a TF32 product of ``inv_freq`` and the positions (labelled as emulated).
    fixed : bool
        Audit the module as patched by :func:`symrope.audit.fix.patch_rotary`.

    Raises
    ======

    UsageError
        torch or transformers is not installed, the model type has no RoPE, or transformers
        refuses the config.
    """
    if config_dict is not None and not isinstance(config_dict, dict):
        raise UsageError(f"an HF config must be a JSON object, got {type(config_dict).__name__}")
    transformers = import_library("transformers", "hf-transformers")
    config_object, rotary_class, layer_type = build_hf_config(transformers, config_dict, model_type, rope_scaling)
    return HFTransformersImpl(config_object, rotary_class, transformers, layer_type=layer_type,
                              cast_module=cast_module, autocast=autocast, tf32=tf32, fixed=fixed)


class HFTransformersImpl(Library):
    """One transformers rotary embedding module, audited through its own forward."""

    name = "hf-transformers"
    imports = ("torch", "transformers")
    requirement = "transformers>=4.45"
    runs = ("the model type's `*RotaryEmbedding` (`--model-type NAME`, or `--config FILE`, or the "
            "schedule flags as a `LlamaConfig`), built offline from transformers' own config "
            "class, every rope type (`--rope-scaling`)")
    table_is = ("the forward's `(cos, sin)`; vectors are rotated by the modeling module's "
                "`apply_rotary_pos_emb`")
    pairing = "rotate_half"
    build_options = frozenset({"hf_config", "model_type", "rope_scaling", "cast_module",
                               "autocast", "tf32", "fixed"})
    survey_cost = 2
    variants = {"hf-transformers+fix": {"fixed": True}}
    lift = "hf-config"
    lift_help = "hf-transformers (with --config)"
    lift_description = ("the config's model type: *RotaryEmbedding + apply_rotary_pos_emb "
                        "(needs --config)")

    @classmethod
    def build(cls, config: RopeConfig, *, hf_config: dict | None = None,
              model_type: str | None = None, rope_scaling: dict | None = None,
              cast_module: str | None = None, autocast: str | None = None, tf32: bool = False,
              fixed: bool = False) -> "HFTransformersImpl":
        """The class of ``model_type`` (with ``rope_scaling``), else of the HF config
        ``hf_config``, else Llama's built from ``config``."""
        knobs = {"cast_module": cast_module, "autocast": autocast, "tf32": tf32}
        if model_type is not None:
            return hf_transformers_impl(None, model_type, rope_scaling, fixed=fixed, **knobs)
        document = hf_config if hf_config is not None else dict(config.hf_dict(), model_type="llama")
        return hf_transformers_impl(document, fixed=fixed, **knobs)

    def __init__(self, config_object, rotary_class, transformers, layer_type=None,
                 cast_module=None, autocast=None, tf32=False, fixed=False):
        # the schedule is read off the module transformers builds (its float32 inv_freq), so the
        # reference is the schedule the class really uses, whatever the config seems to say
        rope_config_of(config_object, layer_type)   # symrope's one-line errors before the class's
        buffer = inv_freq_buffer(built_module(rotary_class, config_object), layer_type)
        rope_config, self.notes = rope_config_of(config_object, layer_type, buffer,
                                                 rotary_class.__name__)
        super().__init__(rope_config)
        torch = self.torch
        self._config_object = config_object
        self._rotary_class = rotary_class
        self._layer_type = layer_type
        self.cast_module = dtype_name(cast_module) if cast_module else None
        self.autocast = dtype_name(autocast) if autocast else None
        for flag, value in (("--cast-module", self.cast_module), ("--autocast", self.autocast)):
            if value not in (None, "bf16", "fp16"):
                raise UsageError(f"{flag} takes bf16 or fp16, got {value}")
        self.tf32 = bool(tf32)
        self.fixed = bool(fixed)
        self._transformers = transformers
        self.modeling = importlib.import_module(rotary_class.__module__)
        self._layouts: dict[str, str] = {}     # "cos"/"sin" -> the module's column layout
        self.module = self._new_module()
        knobs = [f"module.to(torch.{TORCH_DTYPE_NAMES[self.cast_module]})"] if self.cast_module else []
        knobs += [f"torch.autocast('cpu', {TORCH_DTYPE_NAMES[self.autocast]})"] if self.autocast else []
        knobs += ["TF32 product of inv_freq and positions (EMULATED: operands rounded to 10 "
                  "mantissa bits; CPU has no TF32)"] if self.tf32 else []
        knobs += ["patched by symrope.audit.fix.patch_rotary (float64 angle)"] if self.fixed else []
        self.knobs = knobs
        if self.fixed:
            self.name = "hf-transformers+fix"
        layer = f" [{layer_type}]" if layer_type else ""
        self.summary = (f"transformers {transformers.__version__} {rotary_class.__name__}{layer} "
                        f"(torch {torch.__version__}), built offline from "
                        f"{type(config_object).__name__}" + "".join(f"; {k}" for k in knobs))
        self.fix = None if self.fixed else "hf-transformers+fix"
        self.fix_target = (f"{rotary_class.__module__}.{rotary_class.__name__}.forward: the "
                           f"angle position_ids.float() * inv_freq is float32 -- form it in "
                           f"float64 from a float64 inv_freq (symrope.audit.fix.patch_rotary(model) "
                           f"does this in place, with undo)")

    def __repr__(self) -> str:
        return f"<HFTransformersImpl {self._rotary_class.__name__}>"

    def phase_reference(self) -> "HFTransformersImpl | None":
        """The same module as built, without the knobs: its phase is float32 from a float32
        ``inv_freq`` (what a field report's "float32-phase reference" is). None without knobs."""
        if not (self.cast_module or self.autocast or self.tf32):
            return None
        return HFTransformersImpl(self._config_object, self._rotary_class, self._transformers,
                                  layer_type=self._layer_type, fixed=self.fixed)

    def explanation(self, dtype: str) -> str:
        if self.fixed:
            return ("Patched: the angle p*omega is formed in float64 from a float64 omega, cos/sin "
                    f"in float64, one cast to {dtype}: what is left is that cast.")
        parts = []
        if self.cast_module:
            parts.append(f"module.to({self.cast_module}) rounds the inv_freq buffer to "
                         f"{self.cast_module}: a frequency error of up to "
                         f"{'2^-9' if self.cast_module == 'bf16' else '2^-12'} relative per pair, "
                         f"a phase error growing like p*omega*2^-9 (radians by a few thousand "
                         f"positions)")
        if self.tf32:
            parts.append("TF32 (emulated) keeps 11 significant bits of omega and of the position: "
                         "positions above 2048 are rounded, so nearby tokens share a phase")
        if self.autocast:
            parts.append(f"torch.autocast({self.autocast}) is active around forward, but this "
                         f"forward multiplies elementwise in float32 (autocast narrows matmuls), "
                         f"so it changes nothing here")
        ending = {"fp32": "returns them as they are (fp32)", "fp64": "widens them to fp64"}.get(
            dtype, f"casts to {dtype}")
        parts.append("the real class forms the angle p*omega in float32 from a float32 omega "
                     "(error growing like p*2^-24), takes float32 cos/sin times the attention factor "
                     f"and {ending}")
        text = "; ".join(parts)
        return (text if text.startswith("module.") else text[0].upper() + text[1:]) + "."

    def _new_module(self):
        torch = self.torch
        module = built_module(self._rotary_class, self._config_object)
        if self.cast_module:
            module = module.to(getattr(torch, TORCH_DTYPE_NAMES[self.cast_module]))
        if self.tf32:
            with torch.no_grad():
                for name, buffer in module.named_buffers():
                    if name.endswith("inv_freq") and buffer.dtype == torch.float32:
                        buffer.copy_(torch.from_numpy(round_to_tf32(buffer.numpy())))
        if self.fixed:
            from symrope.audit.fix import patch_rotary

            patch_rotary(module)
        return module

    def _forward(self, x, position_ids):
        try:
            return self._forward_unchecked(x, position_ids)
        except UsageError:
            raise
        except Exception as error:  # noqa: BLE001 - e.g. an M-RoPE class wants 3-D position ids
            message = str(error).splitlines()[0][:160] if str(error) else ""
            raise UsageError(f"{self._rotary_class.__name__}.forward(x, position_ids) failed with "
                             f"1-D position ids: {type(error).__name__}: {message}") from None

    def _forward_unchecked(self, x, position_ids):
        torch = self.torch
        module = self.module
        kwargs = {"layer_type": self._layer_type} if self._layer_type else {}
        if self.fixed:
            forward = module.forward   # the patch replaces the instance's forward
        else:
            wrapped = type(module).forward
            forward = getattr(wrapped, "__wrapped__", wrapped).__get__(module)
        if self.autocast:
            with torch.autocast("cpu", dtype=getattr(torch, TORCH_DTYPE_NAMES[self.autocast])):
                return forward(x, position_ids, **kwargs)
        return forward(x, position_ids, **kwargs)

    def _position_ids(self, positions):
        torch = self.torch
        if self.tf32:
            positions = round_to_tf32(positions.astype(np.float32)).astype(np.int64)
        return torch.from_numpy(positions)[None, :]

    def prepare_seq_len(self, seq_len):
        """Run the module's dynamic/longrope update once at ``seq_len`` (then chunks cannot)."""
        torch = self.torch
        self.module = self._new_module()
        with library_call(torch):
            x = torch.zeros(1, dtype=torch.float32)
            kwargs = {"layer_type": self._layer_type} if self._layer_type else {}
            self.module(x, torch.tensor([[seq_len - 1]], dtype=torch.int64), **kwargs)

    def table(self, positions, config: RopeConfig | None = None, dtype: str | None = None,
              seq_len: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(cos, sin)`` per pair as the class's forward returns them in ``dtype``.

        ``seq_len`` has :func:`symrope.schedules.inv_freq`'s meaning: the module's
        dynamic/longrope update runs once at that length, then every chunk goes through the
        undecorated forward so that chunking cannot change the frequencies.
        """

        torch = self.torch
        positions = validate_positions(positions)
        if config is not None and config.rotary_dim != self.rope_config.rotary_dim:
            raise UsageError(f"the HF config rotates {self.rope_config.rotary_dim} channels but the "
                             f"audit config {config.rotary_dim}")
        name = dtype_name(self.default_dtype if dtype is None else dtype)
        x = torch.zeros(1, dtype=getattr(torch, TORCH_DTYPE_NAMES[name]))
        if seq_len != getattr(self, "_seq_len", None):
            if seq_len is not None:
                self.prepare_seq_len(seq_len)
            else:
                self.module = self._new_module()
            self._seq_len = seq_len
        cos_parts, sin_parts = [], []
        with library_call(torch):
            for start in range(0, positions.shape[0], _CHUNK):
                chunk = positions[start:start + _CHUNK]
                result = self._forward(x, self._position_ids(chunk))
                if not isinstance(result, (tuple, list)) or len(result) != 2:
                    raise UsageError(f"{self._rotary_class.__name__}.forward returned "
                                     f"{type(result).__name__}, not (cos, sin): not auditable")
                cos, sin = result
                cos_parts.append(self._per_pair(cos, chunk.shape[0], "cos"))
                sin_parts.append(self._per_pair(sin, chunk.shape[0], "sin"))
        if not cos_parts:
            empty = np.empty((0, self.rope_config.pairs), dtype=np.float32)
            return empty, empty.copy()
        if len(cos_parts) == 1:
            return cos_parts[0], sin_parts[0]
        return np.concatenate(cos_parts), np.concatenate(sin_parts)

    def _per_pair(self, tensor, n: int, what: str) -> np.ndarray:
        """One column per pair, as numpy in the tensor's own dtype (bf16 as ml_dtypes').

        The module's layout (HF's ``cat(freqs, freqs)``, an interleaved duplicate, or one
        column per pair) is checked on the first call, on every column; after that the pairs'
        columns are sliced out of the tensor before it leaves torch (a bf16 tensor's bits are
        viewed, not converted).
        """
        from symrope.audit._user import _per_pair, _to_numpy

        layout = self._layouts.get(what)
        if layout is None:
            table = _to_numpy(tensor, self.name, what)
            per_pair = _per_pair(table, n, self.rope_config, self.name, what)
            width, pairs = table.shape[-1], per_pair.shape[-1]
            layout = ("pairs" if width == pairs else
                      "halves" if np.array_equal(table.reshape(-1, width)[:, :pairs],
                                                 per_pair.reshape(-1, pairs)) else "interleaved")
            self._layouts[what] = layout
            return per_pair
        pairs = self.rope_config.pairs
        tensor = tensor.reshape(n, tensor.shape[-1])
        if layout == "halves":
            tensor = tensor[:, :pairs]
        elif layout == "interleaved":
            tensor = tensor[:, 0::2]
        return tensor_to_numpy(self.torch, tensor)

    def _rotate(self, x, positions):
        """The modeling module's own ``apply_rotary_pos_emb`` with the forward's cos/sin."""
        cos, sin = self._forward(x, self._position_ids(positions))
        apply = getattr(self.modeling, "apply_rotary_pos_emb", None)
        if apply is None:
            raise UsageError(f"{self.modeling.__name__} has no apply_rotary_pos_emb to rotate with")
        rotary = self.rope_config.rotary_dim
        q = x.transpose(0, 1)[None]                       # (1, heads, n, head_dim)
        def rotate(part):
            if _single_tensor(apply):     # apply(x, cos, sin) (Gemma 4 and a few others)
                return apply(part, cos, sin)
            return apply(part, part, cos, sin)[0]

        try:
            if rotary == x.shape[-1]:
                rotated = rotate(q)
            else:  # partial rotary: the models rotate the first rotary_dim channels, pass the rest
                rotated = q.clone()
                rotated[..., :rotary] = rotate(q[..., :rotary])
        except Exception as error:  # noqa: BLE001 - the library's apply refuses its own table
            text = str(error).splitlines()[0][:160] if str(error) else ""
            raise UsageError(f"{self.modeling.__name__}.{apply.__name__} failed on "
                             f"{self._rotary_class.__name__}'s cos/sin: {type(error).__name__}: "
                             f"{text}") from None
        return rotated[0].transpose(0, 1)


def _single_tensor(apply) -> bool:
    """Whether the modeling module's apply takes one tensor, ``apply(x, cos, sin)``."""
    import inspect

    try:
        names = list(inspect.signature(apply).parameters)
    except (TypeError, ValueError):
        return False
    return len(names) > 1 and names[1] == "cos"



LIBRARIES = (HFTransformersImpl,)
