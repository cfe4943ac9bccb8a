"""The implementation protocol: what a real library's registry entry is and can do (``Library``).

Every real implementation is one subclass of :class:`Library`, found by the registry
(:mod:`symrope.audit._libraries`). Its **class attributes** say what it is and what it can do;
they are read without importing the library. An **instance** is the library's own module built
for one schedule: it rotates vectors with the library's own apply function (``rotate``) in the
model dtype, and its table ``(cos, sin)`` is what that function does to each pair's first unit
vector, ``R(p) e_first = (cos, sin)`` in the pair's two channels. Nothing of the library is
re-implemented; only tensors are built and read back.

What an entry declares (class attributes; the registry checks them when it finds the entry):

==================  ==========================================================================
``name``            the ``--impl`` name (``symrope audit``, ``survey``, ``check``)
``imports``         the import names it needs (``("torch", "torchtune")``); ``installed()``
                    finds them with ``importlib.util.find_spec``, importing nothing
``requirement``     its pip requirement, listed in the ``extra`` of ``pyproject.toml``
``extra``           that extra (``"frameworks"``); a missing library's error names it
``runs``            what runs (the docs' table of real implementations)
``table_is``        what the audited table is (the same table)
``fix_target``      the real code's dotted path and what to change there (the fix suggestion)
``pairing``         ``"interleaved"`` (pair i is channels 2i, 2i+1) or ``"rotate_half"`` (i, i+d/2)
``rope_types``      the rope types it expresses (None: any); ``partial_rotary``: whether it
                    rotates a part of the head. ``cannot_express(config)`` says why not, and
                    ``fallback(config)`` is plain RoPE of the same head_dim and theta, with a note
``build_options``   the options ``build`` takes besides the schedule (transformers' knobs)
``survey_cost``     the survey's expected cost (relative; the pool starts the costly first)
``surveyed``        whether ``symrope survey`` runs it by default; ``variants``: more survey rows,
                    name -> build options (``hf-transformers+fix``)
``lift``            how ``symrope check --impl`` lifts it: ``"schedule"`` (``lift_target`` hands
                    the lift ``(q, k, positions) -> (q_rot, k_rot)``), ``"hf-config"`` (the
                    lift reads transformers' code for a config), or None (not liftable);
                    ``lift_help``, ``lift_description``, ``lift_aliases`` name it there
==================  ==========================================================================

What an instance does (the audit's side): ``table(positions, config, dtype, seq_len)``,
``rotate(x, positions, dtype)`` (through ``_rotate``, the one method an entry must write),
``summary``, ``explanation(dtype)``, ``notes``, ``fix`` (the implementation that re-audits the
suggested fix), ``prepare(max_position)`` (before the first table), ``phase_reference()`` (the
same module without its knobs, or None).
"""

from __future__ import annotations

import importlib.util
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

import numpy as np

from symrope.audit._models import dtype_name, pair_channels, validate_positions
from symrope.audit._torch import TORCH_DTYPE_NAMES, import_library, library_call
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

__all__ = ["Library", "LiftTarget", "position_runs", "theta_argument"]

_CHUNK = 1 << 15   # positions per library call: bounded memory


@dataclass(frozen=True)
class LiftTarget:
    """A library's rotary code as the lift takes it: ``function(q, k, positions) -> (q_rot,
    k_rot)`` on torch tensors of shape ``(batch, heads, tokens, head_dim)``, and what the lift
    reports beside it (the module's float frequencies, the exact schedule they stand for)."""

    function: Callable[..., Any]
    head_dim: int
    name: str
    position_dims: int = 1
    frequencies: Any = None
    schedule: RopeConfig | None = None


class Library(ABC):
    """A real library's RoPE: a registry entry (class attributes) and, built for one schedule,
    the module audited through its own code (see the module docstring for every attribute)."""

    name: ClassVar[str]
    imports: ClassVar[tuple[str, ...]]
    requirement: ClassVar[str]
    extra: ClassVar[str] = "frameworks"
    runs: ClassVar[str]
    table_is: ClassVar[str]
    fix_target: ClassVar[str | None] = None
    pairing: ClassVar[str] = "rotate_half"
    rope_types: ClassVar[tuple[str, ...] | None] = None
    partial_rotary: ClassVar[bool] = True
    build_options: ClassVar[frozenset[str]] = frozenset()
    survey_cost: ClassVar[int] = 1
    surveyed: ClassVar[bool] = True
    variants: ClassVar[dict[str, dict]] = {}
    lift: ClassVar[str | None] = None
    lift_help: ClassVar[str | None] = None          # None: the name; "": named with another
    lift_description: ClassVar[str] = ""
    lift_aliases: ClassVar[dict[str, str]] = {}     # another --impl spelling -> its description

    # what the audit reads off an instance
    summary = ""
    fix = "fp64-angle"
    default_dtype = "bf16"
    user_supplied = False
    scaled_table = False
    notes: tuple[str, ...] | list[str] = ()   # what was audited instead of what was asked

    def __init__(self, rope_config: RopeConfig) -> None:
        self._check_expressible(rope_config)
        self.torch = import_library("torch", self.name, self.extra)
        self.rope_config = rope_config

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    # --- the entry: read without importing the library -------------------------------------------
    @classmethod
    def installed(cls) -> bool:
        """Whether every module of ``imports`` can be found (nothing is imported)."""
        try:
            return all(importlib.util.find_spec(module) is not None for module in cls.imports)
        except (ImportError, ValueError):   # a parent package that does not import
            return False

    @classmethod
    def cannot_express(cls, config: RopeConfig) -> str | None:
        """Why the library cannot express ``config`` (None: it can), before anything is imported."""
        if cls.rope_types is not None and config.rope_type not in cls.rope_types:
            return f"{cls.name} has {', '.join(cls.rope_types)} RoPE only, not {config.rope_type!r}"
        if not cls.partial_rotary and config.rotary_dim != config.head_dim:
            return (f"{cls.name} rotates the whole head: partial rotary (rotary_dim "
                    f"{config.rotary_dim} of {config.head_dim}) is not expressible")
        return None

    @classmethod
    def fallback(cls, config: RopeConfig) -> tuple[RopeConfig, str | None]:
        """``config``, or, where the library cannot express it, plain RoPE of the same head
        dimension and base, with the note that says so (UsageError if neither is expressible)."""
        reason = cls.cannot_express(config)
        if reason is None:
            return config, None
        plain = RopeConfig.from_options(head_dim=config.head_dim, theta=config.theta)
        if cls.cannot_express(plain) is not None:
            raise UsageError(reason)
        return plain, (f"{reason}: audited with plain RoPE of the same head_dim and theta instead "
                       f"(give --rope-scaling/--config it can express to choose)")

    @classmethod
    def build(cls, config: RopeConfig, **options: Any) -> "Library":
        """The library's module built for ``config`` (UsageError if it cannot express it).

        ``options`` are those of ``build_options`` (the registry refuses any other first)."""
        return cls(config, **options)

    @classmethod
    def lift_target(cls, config: RopeConfig) -> LiftTarget:
        """The library's code for ``config`` as the lift takes it (entries with ``lift =
        "schedule"`` define it)."""
        raise UsageError(f"{cls.name} cannot be lifted (symrope check --impl)")

    # --- the instance: the module built for one schedule -----------------------------------------
    def _check_expressible(self, config: RopeConfig) -> None:
        reason = self.cannot_express(config)
        if reason is not None:
            raise UsageError(reason)

    def explanation(self, dtype: str) -> str:  # overridden per library
        return ""

    def prepare(self, max_position: int) -> None:
        """Called once before the first table with the largest position to come (a library
        whose table depends on the whole sequence fixes it here); most need nothing."""
        return None

    def phase_reference(self) -> "Library | None":
        """The same module without its knobs (a knob's effect on the rotated outputs is
        measured against it); None where there are no knobs."""
        return None

    def channels(self) -> tuple[np.ndarray, np.ndarray]:
        """The first and second channel of every pair, in the library's layout."""
        return pair_channels(self.rope_config.rotary_dim // 2, self.pairing)

    @abstractmethod
    def _rotate(self, x, positions):
        """Rotate the torch tensor ``x`` (n, heads, head_dim), in the model dtype, at the numpy
        ``positions`` (n,) with the library's own code; the rotated tensor, of the same shape."""

    def rotate(self, x: np.ndarray, positions: np.ndarray, dtype: str | None = None) -> np.ndarray:
        """Rotate ``x`` (n, vectors, head_dim) at ``positions`` (n,) with the library's own code.

        ``x`` is rounded to the model dtype first (as activations are); the result comes back in
        that dtype, as numpy (bf16 as ``ml_dtypes.bfloat16``).
        """
        from symrope.audit._user import _to_numpy

        torch = self.torch
        positions = validate_positions(positions)
        name = dtype_name(self.default_dtype if dtype is None else dtype)
        torch_dtype = getattr(torch, TORCH_DTYPE_NAMES[name])
        parts = []
        with library_call(torch):
            for start in range(0, positions.shape[0], _CHUNK):
                chunk = torch.from_numpy(np.ascontiguousarray(x[start:start + _CHUNK], dtype=np.float64))
                rotated = self._rotate(chunk.to(torch_dtype), positions[start:start + _CHUNK])
                parts.append(_to_numpy(rotated, self.name, "the rotated x"))
        if not parts:
            return np.empty(x.shape, dtype=np.float32)
        return np.concatenate(parts)

    def table(self, positions: np.ndarray, config: RopeConfig | None = None, dtype: str | None = None,
              seq_len: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(cos, sin)`` per pair: the library's rotation of each pair's first unit vector."""
        if seq_len is not None:
            raise UsageError(f"--impl {self.name} has no runtime sequence-length update (--seq-len)")
        positions = validate_positions(positions)
        if config is not None and config.rotary_dim != self.rope_config.rotary_dim:
            raise UsageError(f"{self.name} rotates {self.rope_config.rotary_dim} channels but the "
                             f"audit config {config.rotary_dim}")
        first, second = self.channels()
        x = np.zeros((positions.shape[0], 1, self.rope_config.head_dim))
        x[:, 0, first] = 1.0
        rotated = self.rotate(x, positions, dtype)[:, 0]
        return rotated[:, first], rotated[:, second]


def position_runs(positions: np.ndarray) -> list[tuple[int, int, int]]:
    """(start index, stop index, first position) of each run of consecutive positions.

    Examples
    ========
    >>> import numpy as np
    >>> position_runs(np.array([3, 4, 5, 9, 10]))
    [(0, 3, 3), (3, 5, 9)]
    """
    cuts = np.flatnonzero(np.diff(positions) != 1) + 1
    starts = np.concatenate([[0], cuts]).astype(int)
    stops = np.concatenate([cuts, [positions.size]]).astype(int)
    return [(int(a), int(b), int(positions[a])) for a, b in zip(starts, stops)]


def theta_argument(config: RopeConfig) -> int | float:
    """The schedule's base as the libraries' own defaults are typed (``10000``, not ``10000.0``)."""
    theta = float(config.theta)
    return int(theta) if theta.is_integer() else theta
