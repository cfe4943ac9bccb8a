"""The real HF transformers rotary classes as audited implementations (offline).

``hf_transformers_impl(config_dict)`` or ``hf_transformers_impl(model_type="qwen2")`` builds the
model type's config object directly from transformers' own config class (``AutoConfig.for_model``:
no hub access), instantiates that model's ``*RotaryEmbedding`` class, and runs its forward for the
requested positions with an ``x`` of the requested dtype; vectors are rotated with the same
modeling module's ``apply_rotary_pos_emb``. Environment knobs act on the real module:
``cast_module`` (``module.to(dtype)``, which casts the ``inv_freq`` buffer), ``autocast``
(``torch.autocast("cpu", dtype)`` around forward) and ``tf32`` (emulated: CPU has no TF32, so
``inv_freq`` and the position ids are rounded to TF32's 10 explicit mantissa bits before the
real forward multiplies them in float32). ``fixed=True`` audits the module patched by
:func:`symrope.audit.fix.patch_rotary`.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

from symrope.audit._models import dtype_name, validate_positions
from symrope.audit._real import (TORCH_DTYPE_NAMES, RealImpl, import_library, library_call,
                                 tensor_to_numpy)
from symrope.errors import UsageError
from symrope.schedules import RopeConfig, inv_freq, validate_hf_config, validate_rope_parameters

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


def rope_model_types() -> list[str]:
    """The model types of the installed transformers whose modeling file has a ``*RotaryEmbedding``.

    Found by reading the modeling sources (importing ~200 modules would take minutes).
    """
    transformers = import_library("transformers", "hf-transformers")
    from transformers.models.auto.configuration_auto import (CONFIG_MAPPING_NAMES,
                                                              model_type_to_module_name)

    root = Path(transformers.__file__).parent / "models"
    found = []
    for model_type in sorted(CONFIG_MAPPING_NAMES):
        module = model_type_to_module_name(model_type).replace(".", "/")
        path = root / module / f"modeling_{module.split('/')[-1]}.py"
        if path.is_file() and "RotaryEmbedding(nn.Module)" in path.read_text(encoding="utf-8"):
            found.append(model_type)
    return found


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
    config_object, rotary_class, layer_type = _build(transformers, config_dict, model_type, rope_scaling)
    return HFTransformersImpl(config_object, rotary_class, transformers, layer_type=layer_type,
                              cast_module=cast_module, autocast=autocast, tf32=tf32, fixed=fixed)


class HFTransformersImpl(RealImpl):
    """One transformers rotary embedding module, audited through its own forward."""

    name = "hf-transformers"
    pairing = "rotate_half"

    def __init__(self, config_object, rotary_class, transformers, layer_type=None,
                 cast_module=None, autocast=None, tf32=False, fixed=False):
        # the schedule is read off the module transformers builds (its float32 inv_freq), so the
        # reference is the schedule the class really uses, whatever the config seems to say
        rope_config_of(config_object, layer_type)   # symrope's one-line errors before the class's
        buffer = _inv_freq_buffer(_built(rotary_class, config_object), layer_type)
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
        module = _built(self._rotary_class, self._config_object)
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


def _built(rotary_class, config_object):
    """``rotary_class(config_object)``; the class refusing the config is one line."""
    try:
        return rotary_class(config_object)
    except Exception as error:  # noqa: BLE001 - the class refused this config
        text = str(error).splitlines()[0] if str(error) else ""
        raise UsageError(f"{rotary_class.__name__} could not be built from the config: "
                         f"{type(error).__name__}: {text[:200]}") from None


def _inv_freq_buffer(module, layer_type: str | None) -> np.ndarray | None:
    """The module's ``inv_freq`` (``{layer_type}_inv_freq`` per layer type) as float64, or None."""
    name = f"{layer_type}_inv_freq" if layer_type else "inv_freq"
    buffer = dict(module.named_buffers()).get(name)
    if buffer is None:
        return None
    return buffer.detach().cpu().double().numpy()


_SAME_SCHEDULE = 4e-6   # relative: ~64 float32 ulps, far below what tells two schedules apart


def rope_config_of(config_object, layer_type: str | None = None, buffer: np.ndarray | None = None,
                   class_name: str = "the rotary class",
                   tolerance: float = _SAME_SCHEDULE) -> tuple[RopeConfig, list[str]]:
    """The schedule a transformers rotary module computes, and notes where it is not what the
    config seems to say.

    The config object is read as :meth:`RopeConfig.from_hf` reads a config (one layer type's
    parameters and head_dim where it has several). With the module's ``buffer``, that reading is
    checked against it: a class whose default schedule ignores ``partial_rotary_factor``
    (Llama's rotates the whole head) is audited as it builds its table, with a note; a buffer
    that is no schedule of the config is one line, never an audit against the wrong reference.
    ``tolerance`` (relative) is how close a reading must come to the buffer (wider for a buffer
    cast to bf16, as :func:`symrope.audit.fix.patch_rotary` may meet it).
    """
    per_layer = getattr(config_object, "per_layer_config", None)
    source = config_object
    if layer_type is not None and per_layer is not None:
        try:
            source = per_layer[layer_type]
        except Exception:  # noqa: BLE001 - a config without per-layer overrides
            source = config_object
    document = source.to_dict()
    rope = document.get("rope_parameters")
    if layer_type is not None and isinstance(rope, dict) and isinstance(rope.get(layer_type), dict):
        document["rope_parameters"] = rope[layer_type]
    config = RopeConfig.from_hf(document)
    if buffer is None:
        return config, []
    candidates = [(config, [])]
    if config.rotary_dim != config.head_dim and config.rope_type != "proportional":
        whole = RopeConfig(head_dim=config.head_dim, rotary_dim=config.head_dim, theta=config.theta,
                           rope_type=config.rope_type, params=config.params,
                           max_position_embeddings=config.max_position_embeddings)
        candidates.append((whole, [f"{class_name} ignores partial_rotary_factor "
                                   f"{config.rotary_dim / config.head_dim:g} for rope type "
                                   f"{config.rope_type!r}: it rotates all {config.head_dim} channels, "
                                   f"and that is what is audited"]))
    for candidate, notes in candidates:
        if candidate.pairs != buffer.size:
            continue
        expected = np.asarray(inv_freq(candidate, "float64"))
        if np.all(np.abs(expected - buffer) <= tolerance * np.abs(expected)):
            return candidate, notes
    raise UsageError(f"{class_name}'s inv_freq ({buffer.size} frequencies) is not the schedule "
                     f"its config describes ({config.describe()}; {config.pairs} frequencies): "
                     f"symrope cannot name its exact values, so it does not audit it")


def _build(transformers, config_dict, model_type, rope_scaling):
    """transformers' config object and rotary class for a config dict or a model type, the
    fields symrope reads checked first (one line, as every command reports them: transformers
    would fail later, with a traceback, on a string where a number belongs)."""
    if config_dict is not None and model_type is not None:
        raise UsageError("give either an HF config or --model-type, not both")
    if config_dict is not None:
        validate_hf_config(config_dict)
        if config_dict.get("model_type") is not None and not isinstance(config_dict["model_type"], str):
            raise UsageError(f"model_type must be a string, got {config_dict['model_type']!r}")
    if rope_scaling is not None:
        validate_rope_parameters(rope_scaling, "--rope-scaling")
    if config_dict is None:
        if model_type is None:
            model_type = "llama"
        config_dict = {}
    else:
        config_dict = dict(config_dict)
        model_type = config_dict.pop("model_type", None) or "llama"
    rotary_class = _rotary_class(transformers, model_type)
    try:
        config_object = transformers.AutoConfig.for_model(model_type, **config_dict)
    except ValueError as error:
        raise UsageError(f"transformers does not know model_type {model_type!r}: "
                         f"{str(error).splitlines()[0]}") from None
    except Exception as error:  # noqa: BLE001 - transformers' own validation
        raise UsageError(f"transformers refused the config: {type(error).__name__}: "
                         f"{str(error).splitlines()[0] if str(error) else ''}") from None
    if hasattr(config_object, "get_text_config"):
        config_object = config_object.get_text_config()
    rope = getattr(config_object, "rope_parameters", None)
    layer_type = None
    if isinstance(rope, dict) and rope and all(isinstance(v, dict) for v in rope.values()):
        layer_type = "full_attention" if "full_attention" in rope else sorted(rope)[0]
    if rope_scaling is not None:
        target = rope[layer_type] if layer_type else rope
        theta = (target or {}).get("rope_theta", getattr(config_object, "rope_theta", 10000.0))
        new = {"rope_theta": theta, **rope_scaling}
        # the model's partial rotary is part of the model, not of the scaling: phi rotates 16 of
        # its 32 channels under any --rope-scaling, as transformers builds it from a config file
        partial = (target or {}).get("partial_rotary_factor",
                                     getattr(config_object, "partial_rotary_factor", None))
        if partial is not None:
            new.setdefault("partial_rotary_factor", partial)
        new.setdefault("rope_type", new.pop("type", "default"))
        if layer_type:
            rope[layer_type] = new
        else:
            config_object.rope_parameters = new
        if "original_max_position_embeddings" in new and new["rope_type"] in ("dynamic", "longrope"):
            config_object.max_position_embeddings = max(
                config_object.max_position_embeddings, int(new["original_max_position_embeddings"]))
    return config_object, rotary_class, layer_type


def _rotary_class(transformers, model_type: str):
    from transformers.models.auto.configuration_auto import (CONFIG_MAPPING_NAMES,
                                                              model_type_to_module_name)

    if model_type not in CONFIG_MAPPING_NAMES:
        raise UsageError(f"transformers does not know model_type {model_type!r}")
    module_name = model_type_to_module_name(model_type)
    try:
        modeling = importlib.import_module(
            f"transformers.models.{module_name}.modeling_{module_name.split('.')[-1]}")
    except ImportError:
        modeling = None
    candidates = [] if modeling is None else [
        getattr(modeling, name) for name in dir(modeling)
        if name.endswith("RotaryEmbedding") and not name.startswith("_")
        and "Vision" not in name and getattr(getattr(modeling, name), "__module__", "") == modeling.__name__]
    candidates = [c for c in candidates if isinstance(c, type)]
    if not candidates:
        raise UsageError(f"not a RoPE config: transformers' {model_type!r} model has no rotary "
                         f"embedding (*RotaryEmbedding class)")
    # the plain class (LlamaRotaryEmbedding) before variants (...DynamicNTKScalingRotaryEmbedding)
    candidates.sort(key=lambda c: len(c.__name__))
    return candidates[0]
