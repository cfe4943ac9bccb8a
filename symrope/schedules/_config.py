"""``RopeConfig``: which frequencies a model's RoPE uses, read from an HF config dict, a file or flags."""

from __future__ import annotations

import json
import math
import numbers
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from symrope.errors import UsageError

ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "llama3", "longrope", "proportional")

# Older configs spell some types differently; transformers reads them as these.
_ROPE_TYPE_ALIASES = {"su": "longrope"}

# Types whose formula needs the pre-training context length (HF's ``standardize_rope_params``
# fills it from ``max_position_embeddings`` when the config does not give it).
_NEEDS_ORIGINAL_CONTEXT = ("llama3", "yarn", "longrope")

_REQUIRED_PARAMS = {
    "default": (),
    "linear": ("factor",),
    "dynamic": ("factor",),
    "yarn": (),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
    "longrope": ("short_factor", "long_factor", "original_max_position_embeddings"),
    "proportional": (),
}

_DEFAULT_THETA = 10000.0  # transformers' RotaryEmbeddingConfigMixin.default_theta

# Keys of a rope_scaling / rope_parameters dict that are not schedule parameters.
_NOT_PARAMS = ("rope_type", "type", "rope_theta", "partial_rotary_factor")


@dataclass(frozen=True)
class RopeConfig:
    """The frequency schedule of one model's rotary embedding.

    Parameters
    ==========

    head_dim : int
        The full per-head dimension ``d``.
    rotary_dim : int
        How many of those channels rotate (``int(head_dim * partial_rotary_factor)``, as
        transformers computes it; odd when that product is); the schedule has
        :attr:`pairs` frequencies, one per ``arange(0, rotary_dim, 2)`` entry. ``proportional``
        (Gemma 4) spans the whole head: ``rotary_dim`` is ``head_dim`` and its
        ``partial_rotary_factor`` stays in ``params`` (the pairs beyond it have frequency 0).
    theta : float or sympy.Symbol
        The base ``rope_theta``.
    rope_type : str
        One of ``default``, ``linear``, ``dynamic``, ``yarn``, ``llama3``, ``longrope``,
        ``proportional``.
    params : dict
        The scaling parameters (``factor``, ``low_freq_factor``, ``beta_fast``, ...), with
        ``original_max_position_embeddings`` filled in where the formula needs it.
    max_position_embeddings : int or None
        The model's context length (dynamic NTK and YaRN/LongRoPE's implicit factor use it).

    Examples
    ========

    >>> from symrope.schedules import RopeConfig
    >>> config = RopeConfig.from_hf({"hidden_size": 4096, "num_attention_heads": 32,
    ...                              "rope_theta": 10000.0})
    >>> config.head_dim, config.rotary_dim, config.rope_type
    (128, 128, 'default')
    >>> RopeConfig.from_options(head_dim=64, theta=10000, partial_rotary_factor=0.5).rotary_dim
    32
    >>> RopeConfig.from_options(head_dim=100, partial_rotary_factor=0.33).pairs   # as transformers
    17
    >>> RopeConfig.from_options(head_dim=63)
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: RoPE needs an even rotary dimension: head_dim 63 rotates whole (transformers refuses an odd head_dim above 4 too)
    """

    head_dim: int
    rotary_dim: int
    theta: Any
    rope_type: str = "default"
    params: dict = field(default_factory=dict)
    max_position_embeddings: int | None = None

    def __post_init__(self):
        _validate(self)

    # --- constructors --------------------------------------------------------------------------
    @classmethod
    def from_hf(cls, config: dict) -> "RopeConfig":
        """Read an HF ``config.json`` dict (``rope_scaling`` or transformers 5's ``rope_parameters``).

        ``head_dim`` wins over ``hidden_size // num_attention_heads``; ``rope_theta`` and
        ``partial_rotary_factor`` may sit at the top level or inside the rope dict; a top-level
        ``original_max_position_embeddings`` (Phi-3 style) takes priority, as in transformers.
        """
        validate_hf_config(config)
        rope = config.get("rope_parameters") or config.get("rope_scaling") or {}
        if any(isinstance(v, dict) for v in rope.values()):
            raise UsageError("per-layer-type rope_parameters (a nested dict) are not supported; "
                             "pass one layer type's dict")
        head_dim = _head_dim_of(config)
        theta = rope.get("rope_theta", config.get("rope_theta", _DEFAULT_THETA))
        partial = rope.get("partial_rotary_factor", config.get("partial_rotary_factor", 1.0))
        rope_type = rope.get("rope_type", rope.get("type", "default"))
        params = {k: v for k, v in rope.items() if k not in _NOT_PARAMS}
        max_positions = config.get("max_position_embeddings")
        canonical = _ROPE_TYPE_ALIASES.get(rope_type, rope_type)
        if canonical == "proportional":   # the encoding spans the head; the factor is a parameter
            _check_fraction("partial_rotary_factor", partial, zero=True)
            params["partial_rotary_factor"] = partial
            partial = 1.0
        if canonical in _NEEDS_ORIGINAL_CONTEXT:
            if config.get("original_max_position_embeddings") is not None:
                params["original_max_position_embeddings"] = config["original_max_position_embeddings"]
            elif max_positions is not None:
                params.setdefault("original_max_position_embeddings", max_positions)
        return cls(head_dim=head_dim, rotary_dim=_rotary_dim(head_dim, partial), theta=theta,
                   rope_type=rope_type, params=params, max_position_embeddings=max_positions)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> RopeConfig:
        """Read a JSON file holding an HF config dict (see :meth:`from_hf`)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot read config file {str(path)!r}: {error.strerror}") from None
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise UsageError(f"config file {str(path)!r} is not valid JSON: {error.msg} "
                             f"(line {error.lineno})") from None
        return cls.from_hf(document)

    @classmethod
    def from_options(cls, head_dim: int = 128, theta: Any = None, rope_scaling: dict | None = None,
                     partial_rotary_factor: float = 1.0,
                     max_position_embeddings: int | None = None) -> "RopeConfig":
        """Build a config from command-line style options (``theta=None`` means 10000)."""
        config: dict[str, Any] = {"head_dim": head_dim,
                                  "rope_theta": _DEFAULT_THETA if theta is None else theta,
                                  "partial_rotary_factor": partial_rotary_factor}
        if rope_scaling is not None:
            config["rope_scaling"] = dict(rope_scaling)
        if max_position_embeddings is not None:
            config["max_position_embeddings"] = max_position_embeddings
        return cls.from_hf(config)

    # --- reporting -----------------------------------------------------------------------------
    def describe(self) -> str:
        """One line for reports.

        Examples
        ========

        >>> from symrope.schedules import llama31_8b
        >>> print(llama31_8b().describe())
        llama3 RoPE, head_dim 128, theta 500000, factor 8, low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings 8192, max_position_embeddings 131072
        """
        parts = [f"{self.rope_type} RoPE", f"head_dim {self.head_dim}"]
        if self.rotary_dim != self.head_dim:
            parts.append(f"rotary_dim {self.rotary_dim}")
        parts.append(f"theta {_short(self.theta)}")
        for key, value in self.params.items():
            if isinstance(value, (list, tuple)):
                parts.append(f"{key} [{len(value)} values]")
            else:
                parts.append(f"{key} {_short(value)}")
        if self.max_position_embeddings is not None:
            parts.append(f"max_position_embeddings {self.max_position_embeddings}")
        return ", ".join(parts)

    @property
    def pairs(self) -> int:
        """The number of frequencies: ``len(arange(0, rotary_dim, 2))`` (17 for rotary_dim 33,
        as transformers builds it), ``head_dim // 2`` for ``proportional``."""
        if self.rope_type == "proportional":
            return self.head_dim // 2
        return (self.rotary_dim + 1) // 2

    def hf_dict(self) -> dict:
        """An HF config dict that transformers reads back as this schedule (numbers only)."""
        rope_parameters = {"rope_type": self.rope_type, "rope_theta": self.theta, **self.params}
        document: dict[str, Any] = {"head_dim": self.head_dim, "rope_parameters": rope_parameters}
        if self.rotary_dim != self.head_dim:
            rope_parameters["partial_rotary_factor"] = _factor_for(self.rotary_dim, self.head_dim)
        if self.max_position_embeddings is not None:
            document["max_position_embeddings"] = self.max_position_embeddings
        return document


def llama31_8b() -> RopeConfig:
    """Llama 3.1 8B's RoPE: head_dim 128, theta 500000, llama3 scaling (factor 8, low 1, high 4, 8192).

    Examples
    ========

    >>> from symrope.schedules import llama31_8b
    >>> config = llama31_8b()
    >>> config.rope_type, config.theta, config.params["factor"]
    ('llama3', 500000.0, 8.0)
    """
    return RopeConfig.from_hf({
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "max_position_embeddings": 131072,
        "rope_theta": 500000.0,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                         "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
    })


# --- validation --------------------------------------------------------------------------------
#
# One validation of what symrope reads from an HF config, for every command that reads one
# (audit, check --impl, lift, diff): each field's type and range, one line naming the field.
# Values are checked as they are (JSON numbers, lists, strings); a string is never parsed into
# a number here, let alone evaluated.

#: The top-level fields of an HF config that symrope reads (each checked by validate_hf_config).
CONFIG_FIELDS = ("head_dim", "hidden_size", "num_attention_heads", "rope_theta",
                 "partial_rotary_factor", "max_position_embeddings",
                 "original_max_position_embeddings", "rope_scaling", "rope_parameters")

#: The fields of a ``rope_scaling`` / ``rope_parameters`` dict that symrope reads.
ROPE_FIELDS = ("rope_type", "type", "rope_theta", "partial_rotary_factor", "factor",
               "low_freq_factor", "high_freq_factor", "original_max_position_embeddings",
               "attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim",
               "truncate", "short_factor", "long_factor")

_INTEGER_FIELDS = ("head_dim", "hidden_size", "num_attention_heads", "max_position_embeddings",
                   "original_max_position_embeddings")
_POSITIVE_FIELDS = ("rope_theta", "factor", "low_freq_factor", "high_freq_factor",
                    "attention_factor", "beta_fast", "beta_slow")
_REAL_FIELDS = ("mscale", "mscale_all_dim")     # used by their truth value: 0 switches them off
_FACTOR_LISTS = ("short_factor", "long_factor")


def validate_hf_config(config: Any) -> None:
    """Check every field of an HF config that symrope reads: one :class:`UsageError` line for
    the first bad one, naming it. Absent (or ``null``) fields are fine: defaults apply.

    The same check, and so the same message, for ``symrope audit --config``, ``symrope check
    --impl hf-transformers --config`` (and the lift and diff that read a config) and
    :meth:`RopeConfig.from_hf`; run it before handing a config to transformers, whose own code
    fails later, with a traceback, on a string where a number belongs. Nested per-layer-type
    ``rope_parameters`` (Gemma 3) are checked layer type by layer type.

    Examples
    ========

    >>> from symrope.schedules import validate_hf_config
    >>> validate_hf_config({"head_dim": 128, "rope_theta": 500000.0})
    >>> validate_hf_config({"rope_theta": "1e4"})
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: rope_theta must be a number, got '1e4'
    >>> validate_hf_config({"rope_scaling": {"rope_type": "linear", "factor": [2]}})
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: rope_scaling: factor must be a number, got [2]
    """
    if not isinstance(config, dict):
        raise UsageError(f"an HF config must be a JSON object, got {type(config).__name__}")
    _validate_fields(config, "")
    for key in ("rope_scaling", "rope_parameters"):
        rope = config.get(key)
        if rope is None:
            continue
        if not isinstance(rope, dict):
            raise UsageError(f"{key} must be a JSON object or null, got {_shown(rope)}")
        layers = {k: v for k, v in rope.items() if isinstance(v, dict) or v is None}
        if layers and len(layers) == len(rope):        # per layer type: {"full_attention": {...}}
            for layer, parameters in layers.items():
                if parameters is not None:
                    validate_rope_parameters(parameters, f"{key}[{layer!r}]")
        else:
            validate_rope_parameters(rope, key)


def validate_rope_parameters(rope: Any, where: str = "rope_scaling") -> None:
    """Check one ``rope_scaling`` / ``rope_parameters`` dict (see :func:`validate_hf_config`).

    Examples
    ========

    >>> from symrope.schedules import validate_rope_parameters
    >>> validate_rope_parameters({"rope_type": "yarn", "factor": 4, "truncate": "no"})
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: rope_scaling: truncate must be true or false, got 'no'
    """
    if not isinstance(rope, dict):
        raise UsageError(f"{where} must be a JSON object or null, got {_shown(rope)}")
    for key in ("rope_type", "type"):
        if key in rope and rope[key] is not None:
            name = rope[key]
            if not isinstance(name, str) or _ROPE_TYPE_ALIASES.get(name, name) not in ROPE_TYPES:
                raise UsageError(f"{where}: unknown rope type {_shown(name)} (one of: "
                                 f"{', '.join(ROPE_TYPES)})")
    _validate_fields(rope, f"{where}: ")
    if rope.get("truncate") is not None and not isinstance(rope["truncate"], bool):
        raise UsageError(f"{where}: truncate must be true or false, got {_shown(rope['truncate'])}")
    for key in _FACTOR_LISTS:
        factors = rope.get(key)
        if factors is None:
            continue
        if not isinstance(factors, (list, tuple)):
            raise UsageError(f"{where}: {key} must be a list of numbers, got {_shown(factors)}")
        for value in factors:
            _check_positive(f"{where}: {key}", value)


def _validate_fields(document: dict, prefix: str) -> None:
    for key in _INTEGER_FIELDS:
        value = document.get(key)
        if value is not None and not _is_positive_int(value):
            raise UsageError(f"{prefix}{key} must be a positive integer, got {_shown(value)}")
    for key in _POSITIVE_FIELDS:
        if document.get(key) is not None:
            _check_positive(f"{prefix}{key}", document[key])
    for key in _REAL_FIELDS:
        value = document.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                                  or not math.isfinite(value)):
            raise UsageError(f"{prefix}{key} must be a finite number, got {_shown(value)}")
    partial = document.get("partial_rotary_factor")
    if partial is not None:
        _check_fraction(f"{prefix}partial_rotary_factor", partial, zero=True)   # 0: proportional only


def _check_fraction(name: str, value: Any, zero: bool = False) -> None:
    """A number in (0, 1] (with ``zero``, [0, 1]: proportional RoPE may rotate no pair)."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not (0 <= value <= 1 if zero else 0 < value <= 1)):
        raise UsageError(f"{name} must be a number in {'[0, 1]' if zero else '(0, 1]'}, got "
                         f"{_shown(value)}")


def _shown(value: Any) -> str:
    """A value for a one-line message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _head_dim_of(config: dict) -> int:
    head_dim = config.get("head_dim")
    if head_dim is not None:
        return head_dim
    hidden, heads = config.get("hidden_size"), config.get("num_attention_heads")
    if hidden is None or heads is None:
        raise UsageError("the config gives neither head_dim nor hidden_size and num_attention_heads")
    if not _is_positive_int(hidden) or not _is_positive_int(heads):
        raise UsageError(f"hidden_size and num_attention_heads must be positive integers, "
                         f"got {hidden!r} and {heads!r}")
    return hidden // heads


def _rotary_dim(head_dim: Any, partial_rotary_factor: Any) -> int:
    if not _is_positive_int(head_dim):
        raise UsageError(f"head_dim must be a positive integer, got {_shown(head_dim)}")
    _check_fraction("partial_rotary_factor", partial_rotary_factor)
    return int(head_dim * partial_rotary_factor)


def _factor_for(rotary_dim: int, head_dim: int) -> float:
    """The smallest float f with ``int(head_dim * f) == rotary_dim`` near rotary_dim / head_dim
    (0.29 * 100 is 28.999999999999996, so 29/100 would be read back as 28)."""
    factor = rotary_dim / head_dim
    while int(head_dim * factor) < rotary_dim:
        factor = math.nextafter(factor, 2.0)
    return factor


def _validate(config: RopeConfig) -> None:
    if not _is_positive_int(config.head_dim):
        raise UsageError(f"head_dim must be a positive integer, got {_shown(config.head_dim)}")
    if not _is_positive_int(config.rotary_dim) or config.rotary_dim > config.head_dim:
        raise UsageError(f"rotary_dim (head_dim x partial_rotary_factor) must be a positive "
                         f"integer <= head_dim, got {_shown(config.rotary_dim)}")
    if config.rotary_dim % 2 and config.rotary_dim == config.head_dim and config.head_dim > 4:
        # an odd partial dimension is rounded up to whole pairs and still fits in the head; an
        # odd head rotated whole does not (transformers' validate_rope, the same rule)
        raise UsageError(f"RoPE needs an even rotary dimension: head_dim {config.head_dim} rotates "
                         f"whole (transformers refuses an odd head_dim above 4 too)")
    _check_positive("rope_theta", config.theta)
    rope_type = _ROPE_TYPE_ALIASES.get(config.rope_type, config.rope_type)
    if rope_type not in ROPE_TYPES:
        raise UsageError(f"unknown rope type {config.rope_type!r} (one of: {', '.join(ROPE_TYPES)})")
    if rope_type != config.rope_type:
        object.__setattr__(config, "rope_type", rope_type)
    if not isinstance(config.params, dict):
        raise UsageError(f"rope scaling parameters must be a dict, got {config.params!r}")
    object.__setattr__(config, "params", dict(config.params))  # a private copy: frozen means frozen
    missing = [k for k in _REQUIRED_PARAMS[rope_type] if config.params.get(k) is None]
    if missing:
        raise UsageError(f"rope type {rope_type!r} needs {', '.join(missing)} in rope_scaling")
    max_positions = config.max_position_embeddings
    if max_positions is not None and not _is_positive_int(max_positions):
        raise UsageError(f"max_position_embeddings must be a positive integer, got {max_positions!r}")
    _validate_params(config, rope_type)


def _validate_params(config: RopeConfig, rope_type: str) -> None:
    params = config.params
    for key in ("factor", "low_freq_factor", "high_freq_factor", "attention_factor",
                "beta_fast", "beta_slow", "original_max_position_embeddings"):
        if params.get(key) is not None:
            _check_positive(key, params[key])
    if rope_type == "dynamic" and config.rotary_dim <= 2:
        raise UsageError(f"rope type 'dynamic' needs rotary_dim > 2 (its base grows with the power "
                         f"dim / (dim - 2)), got {config.rotary_dim}")
    if rope_type == "proportional":
        _check_fraction("partial_rotary_factor", params.get("partial_rotary_factor", 1.0), zero=True)
    if rope_type == "yarn" and config.rotary_dim % 2:
        raise UsageError(f"rope type 'yarn' needs an even rotary_dim, got {config.rotary_dim}: its ramp "
                         f"has dim // 2 entries and its frequencies len(arange(0, dim, 2)) "
                         f"(transformers' own formula fails too)")
    if rope_type in ("dynamic", "yarn") and config.max_position_embeddings is None:
        if rope_type == "dynamic" or params.get("factor") is None:
            raise UsageError(f"rope type {rope_type!r} needs max_position_embeddings in the config")
    if rope_type == "yarn" and params.get("original_max_position_embeddings") is None:
        raise UsageError("rope type 'yarn' needs original_max_position_embeddings "
                         "(or max_position_embeddings) in the config")
    if rope_type == "llama3" and _both_numbers(params["low_freq_factor"], params["high_freq_factor"]):
        if params["high_freq_factor"] <= params["low_freq_factor"]:
            raise UsageError("llama3 needs high_freq_factor > low_freq_factor, got "
                             f"{params['high_freq_factor']} and {params['low_freq_factor']}")
    if rope_type == "longrope":
        for key in ("short_factor", "long_factor"):
            factors = params[key]
            if not isinstance(factors, (list, tuple)) or len(factors) != config.pairs:
                raise UsageError(f"longrope's {key} must be a list of {config.pairs} numbers "
                                 f"(one per pair of rotary_dim {config.rotary_dim}), got "
                                 f"{_short_list(factors)}")
            for value in factors:
                _check_positive(key, value)


def _check_positive(name: str, value: Any) -> None:
    if type(value).__module__.startswith("sympy"):
        if getattr(value, "is_positive", None) is False:
            raise UsageError(f"{name} must be > 0, got {value}")
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UsageError(f"{name} must be a number, got {_shown(value)}")
    if not math.isfinite(value) or value <= 0:
        raise UsageError(f"{name} must be a finite number > 0, got {_shown(value)}")


def _both_numbers(a: Any, b: Any) -> bool:
    return all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (a, b))


def _is_positive_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value > 0


def _short(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _short_list(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return f"{len(value)} values"
    return repr(value)
