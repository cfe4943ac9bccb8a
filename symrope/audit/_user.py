"""A user's own RoPE code as an audited implementation: ``module:function`` or ``file.py:function``.

Two shapes of function are accepted:

* a *table* function ``f(positions) -> (cos, sin)`` (or one complex array ``cos + i sin``), each
  ``(n, rotary_dim // 2)``, or ``(n, rotary_dim)`` in HF's duplicated layout (the two halves
  equal) or an interleaved duplicate (``c0, c0, c1, c1, ...``);
* an *apply* function ``f(x, positions) -> rotated x`` with ``x`` of shape ``(n, head_dim)``: its
  table is recovered by rotating unit vectors, after detecting whether it pairs channels
  ``(2i, 2i+1)`` (interleaved, Meta/RoFormer) or ``(i, i + rotary_dim/2)`` (``rotate_half``,
  GPT-NeoX/HF);
* a *check* function ``f(q, k, positions) -> (q_rot, k_rot)``, the signature ``symrope check
  --impl`` lifts (q, k of shape ``(1, 1, n, head_dim)``): audited as the apply function
  ``x -> q_rot``, so one user function serves both commands.

Arguments are numpy arrays; if the function fails on them and its own module has loaded torch,
it is called again with torch tensors. Results may be numpy arrays, torch tensors (detected by
``type(x).__module__``, so symrope never imports torch itself) or anything ``numpy.asarray``
reads. Every failure -- the function raises, returns the wrong shape, NaN -- is a one-line
``UsageError``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import ml_dtypes
import numpy as np

from symrope.audit._models import DTYPES, dtype_name, pair_channels, validate_positions
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

_FLOAT_DTYPES = {np.dtype(v): k for k, v in DTYPES.items()}
_TORCH_DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "fp16", "torch.float32": "fp32",
                 "torch.float64": "fp64"}


def load_user_impl(spec: str, kind: str = "auto") -> "UserImpl":
    """Load ``module:function`` or ``path/to/file.py:function`` as an implementation to audit.

    Parameters
    ==========

    spec : str
    kind : str
        ``"table"`` (``f(positions)``), ``"apply"`` (``f(x, positions)``), ``"qk"``
        (``f(q, k, positions) -> (q_rot, k_rot)``) or ``"auto"``: three required positional
        parameters make a qk function, two an apply function.

    Examples
    ========

    >>> from symrope.audit._user import load_user_impl
    >>> load_user_impl("math:nope")
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: module 'math' has no function 'nope' (from --impl math:nope)
    """
    if not isinstance(spec, str) or ":" not in spec:
        raise UsageError(f"--impl {spec!r} is neither a built-in model nor MODULE:FUNCTION "
                         "or FILE.py:FUNCTION")
    location, _, attribute = spec.rpartition(":")
    if not location or not attribute.isidentifier():
        raise UsageError(f"--impl {spec!r}: expected MODULE:FUNCTION or FILE.py:FUNCTION")
    module = import_user_module(location, spec)
    function = getattr(module, attribute, None)
    if function is None:
        raise UsageError(f"module {location!r} has no function {attribute!r} (from --impl {spec})")
    if not callable(function):
        raise UsageError(f"{spec} is not callable (it is a {type(function).__name__})")
    return UserImpl(spec, function, _kind(function, kind))


def _kind(function, kind: str) -> str:
    if kind == "auto":
        required = _required_positional(function)
        kind = "qk" if required >= 3 else "apply" if required == 2 else "table"
    if kind not in ("table", "apply", "qk"):
        raise UsageError(f"kind must be 'table', 'apply', 'qk' or 'auto', got {kind!r}")
    return kind


class UserImpl:
    """A user's function behind the same ``table(positions, config, dtype)`` as the built-in models."""

    fix = None

    def __init__(self, spec: str, function: Callable[..., Any], kind: str) -> None:
        self.name = spec
        self.kind = kind
        self._function = function
        self.pairing: str | None = None  # "interleaved" or "rotate_half", once an apply is probed
        self.default_dtype = "fp32"
        what = {"table": "a table function f(positions)",
                "apply": "an apply function f(x, positions)",
                "qk": "a check function f(q, k, positions) -> (q_rot, k_rot), audited on q"}[kind]
        self.summary = f"user implementation {spec}: {what}"
        self.explanation = ("A user-supplied implementation: the audit measures it as a black box; "
                            "compare against --compare hf fp64-angle to see which step loses bits.")

    def __repr__(self) -> str:
        return f"<UserImpl {self.name} ({self.kind})>"

    @classmethod
    def from_callable(cls, function: Callable[..., Any], name: str, kind: str = "auto") -> "UserImpl":
        """A function already in hand (``symrope check --impl ... --audit`` audits the callable
        it lifted), not loaded from a spec."""
        if not callable(function):
            raise UsageError(f"{name} is not callable (it is a {type(function).__name__})")
        return cls(name, function, _kind(function, kind))

    def table(self, positions: np.ndarray, config: RopeConfig, dtype: str | None = None,
              seq_len: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(cos, sin)``, each ``(n, rotary_dim // 2)``, in the dtype the user's code returned.

        ``dtype`` is the dtype of the unit vectors handed to an apply function (table
        functions choose their own); ``seq_len`` is accepted for the contract and unused.
        """
        if not isinstance(config, RopeConfig):
            raise UsageError(f"expected a RopeConfig, got {type(config).__name__}")
        positions = validate_positions(positions)
        name = dtype_name(self.default_dtype if dtype is None else dtype)
        if self.kind == "table":
            return self._table_from_table_function(positions, config)
        # apply and qk functions: the table from rotating unit vectors
        return self._table_from_apply_function(positions, config, name)

    # --- table functions -----------------------------------------------------------------------
    def _table_from_table_function(self, positions, config):
        result = self._call((positions,), lambda torch: (torch.from_numpy(positions),))
        if _is_array_like(result) and np.iscomplexobj(_to_numpy(result, self.name, "the result")):
            table = _to_numpy(result, self.name, "the result")
            cos, sin = table.real, table.imag
        else:
            if not isinstance(result, (tuple, list)) or len(result) != 2:
                raise UsageError(f"{self.name} must return (cos, sin) or a complex array, "
                                 f"got {_describe(result)}")
            cos = _to_numpy(result[0], self.name, "cos")
            sin = _to_numpy(result[1], self.name, "sin")
        cos = _per_pair(cos, positions.shape[0], config, self.name, "cos")
        sin = _per_pair(sin, positions.shape[0], config, self.name, "sin")
        if cos.dtype != sin.dtype:
            common = np.promote_types(cos.dtype, sin.dtype)
            cos, sin = cos.astype(common), sin.astype(common)
        check_finite(cos, sin, positions, self.name)
        return cos, sin

    # --- apply functions -----------------------------------------------------------------------
    def _table_from_apply_function(self, positions, config, dtype):
        pairs = config.pairs
        if self.pairing is None:
            self.pairing = self._detect_pairing(config, dtype)
        first, second = pair_channels(pairs, self.pairing)
        x = np.zeros((positions.shape[0], config.head_dim), dtype=np.float32)
        x[:, first] = 1.0  # each pair's first channel: R(p) maps it to (cos, sin)
        rotated = self._apply(x, positions, dtype, config)
        cos, sin = rotated[:, first], rotated[:, second]
        check_finite(cos, sin, positions, self.name)
        return cos, sin

    def _detect_pairing(self, config, dtype) -> str:
        x = np.zeros((1, config.head_dim), dtype=np.float32)
        x[0, 0] = 1.0
        moved = self._apply(x, np.array([1], dtype=np.int64), dtype, config)[0].astype(np.float64)
        half = config.pairs
        targets = (np.flatnonzero(np.abs(moved[1:]) > 1e-3) + 1).tolist()
        if targets == [1]:  # also rotate_half when rotary_dim is 2: the two agree there
            return "interleaved"
        if targets == [half]:
            return "rotate_half"
        raise UsageError(f"{self.name} rotated channel 0 at position 1 into channels "
                         f"{targets}: expected channel 1 (interleaved pairs) or "
                         f"{half} (rotate_half pairs)")

    def _apply(self, x, positions, dtype, config):
        narrow = x.astype(DTYPES[dtype])

        def as_torch(torch):
            tensor = torch.from_numpy(x)
            if dtype != "fp32":
                tensor = tensor.to(getattr(torch, {"bf16": "bfloat16", "fp16": "float16",
                                                   "fp64": "float64"}[dtype]))
            return tensor, torch.from_numpy(positions)

        if self.kind == "qk":  # f(q, k, positions): x is the query of one head; q_rot comes back
            def as_torch_qk(torch):
                tensor, torch_positions = as_torch(torch)
                return tensor[None, None], tensor[None, None].clone(), torch_positions

            result = self._call((narrow[None, None], narrow[None, None].copy(), positions),
                                as_torch_qk)
            if isinstance(result, (tuple, list)) and len(result) == 2:
                result = result[0]
        else:
            result = self._call((narrow, positions), as_torch)
        rotated = _to_numpy(result, self.name, "the rotated x")
        while rotated.ndim > 2 and rotated.shape[0] == 1:
            rotated = rotated[0]
        if rotated.shape != x.shape:
            raise UsageError(f"{self.name}(x, positions) returned shape {rotated.shape} for x of "
                             f"shape {x.shape}")
        return rotated

    # --- calling -------------------------------------------------------------------------------
    def _call(self, numpy_args, torch_args):
        try:
            return self._function(*numpy_args)
        except Exception as numpy_error:  # noqa: BLE001 - any failure of user code is reported
            torch = sys.modules.get("torch")
            if torch is None or not _uses_torch(self._function):
                raise _raised(self.name, numpy_error) from None
            try:
                return self._function(*torch_args(torch))
            except Exception as torch_error:  # noqa: BLE001
                raise _raised(self.name, torch_error) from None


# --- helpers -------------------------------------------------------------------------------------

def import_user_module(location: str, spec: str) -> ModuleType:
    """The module ``location`` names (a ``.py`` file or a dotted module) for ``--impl spec``."""
    path = Path(location)
    if location.endswith(".py") or "/" in location or "\\" in location:
        if not path.is_file():
            raise UsageError(f"no such file {location!r} (from --impl {spec})")
        module_name = f"symrope_user_impl_{abs(hash(str(path.resolve())))}"
        module_spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[module_name] = module
        try:
            module_spec.loader.exec_module(module)
        except Exception as error:  # noqa: BLE001
            del sys.modules[module_name]
            raise UsageError(f"importing {location!r} failed: {type(error).__name__}: "
                             f"{_first_line(error)}") from None
        return module
    try:
        return importlib.import_module(location)
    except ModuleNotFoundError as error:
        raise UsageError(f"cannot import module {location!r} ({_first_line(error)}) "
                         f"(from --impl {spec})") from None
    except Exception as error:  # noqa: BLE001
        raise UsageError(f"importing module {location!r} failed: {type(error).__name__}: "
                         f"{_first_line(error)}") from None


def _required_positional(function) -> int:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return 1
    return sum(1 for p in signature.parameters.values()
               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)


def _uses_torch(function) -> bool:
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    namespace = getattr(function, "__globals__", None) or (vars(module) if module else {})
    names = namespace.values()
    return any(getattr(v, "__name__", "") == "torch" for v in names) or "torch" in getattr(
        getattr(function, "__code__", None), "co_names", ())


def _is_array_like(value) -> bool:
    return not isinstance(value, (tuple, list)) and (hasattr(value, "__array__") or _is_torch(value))


def _is_torch(value) -> bool:
    return type(value).__module__.split(".")[0] == "torch"


def _to_numpy(value, name: str, what: str) -> np.ndarray:
    """A numpy array from a numpy array, a torch tensor (any device, bf16 included), or array-like."""
    if _is_torch(value):
        tensor = value.detach().cpu()
        dtype = _TORCH_DTYPES.get(str(tensor.dtype))
        if dtype == "bf16":  # numpy has no bf16: go through float32 (exact) to ml_dtypes
            return tensor.float().numpy().astype(ml_dtypes.bfloat16)
        if tensor.is_complex():
            return tensor.numpy()
        if dtype is None:
            raise UsageError(f"{name} returned {what} as a {tensor.dtype} tensor; expected a "
                             "floating dtype")
        return tensor.numpy()
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001
        raise UsageError(f"{name} returned {what} as {_describe(value)}, not an array") from None
    if array.dtype.kind == "c":
        return array
    if array.dtype not in _FLOAT_DTYPES:
        raise UsageError(f"{name} returned {what} with dtype {array.dtype}; expected floating "
                         "values (bf16, fp16, fp32 or fp64)")
    return array


def _per_pair(table: np.ndarray, n: int, config: RopeConfig, name: str, what: str) -> np.ndarray:
    while table.ndim > 2 and table.shape[0] == 1:
        table = table[0]  # HF returns (batch, seq, dim)
    pairs = config.pairs
    if table.ndim == 2 and table.shape == (n, pairs):
        return table
    if table.ndim == 2 and table.shape == (n, 2 * pairs):
        if _same(table[:, :pairs], table[:, pairs:]):
            return table[:, :pairs]  # HF: emb = cat(freqs, freqs)
        if _same(table[:, 0::2], table[:, 1::2]):
            return table[:, 0::2]  # interleaved duplicate: repeat_interleave(2)
        raise UsageError(f"{name} returned {what} of shape {table.shape} whose halves differ: "
                         f"neither one column per pair ({pairs}) nor a duplicated layout")
    raise UsageError(f"{name} returned {what} of shape {table.shape}; expected ({n}, {pairs}) "
                     f"or ({n}, {2 * pairs}) for {n} positions and rotary_dim {config.rotary_dim}")


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a, b, equal_nan=True))


def check_finite(cos, sin, positions, name):
    """UsageError naming the first NaN or infinity in a returned table."""
    for what, table in (("cos", cos), ("sin", sin)):
        bad = ~np.isfinite(table.astype(np.float64))
        if bad.any():
            row, pair = np.argwhere(bad)[0]
            raise UsageError(f"{name} returned a non-finite {what} ({float(table[row, pair])}) "
                             f"at position {int(positions[row])}, pair {int(pair)}")


def _raised(name: str, error: BaseException) -> UsageError:
    return UsageError(f"{name} raised {type(error).__name__}: {_first_line(error)}")


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else "(no message)"


def _describe(value) -> str:
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)} items"
    return f"a {type(value).__name__}"
