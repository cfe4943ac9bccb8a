"""Real RoPE code from installed libraries, audited through the library's own functions.

Every real implementation is a :class:`RealImpl`: it rotates vectors with the library's own
apply function (``rotate``) in the model dtype, and its table ``(cos, sin)`` is what that function
does to each pair's first unit vector: ``R(p) e_first = (cos, sin)`` in the pair's two channels.
Nothing of the library is re-implemented here; only tensors are built and read back.

``REAL_IMPLS`` names each (``--impl NAME``); the builders import torch and the library lazily and
turn a missing package into a one-line ``UsageError`` naming the pip extra.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading

import numpy as np

from symrope.audit._models import dtype_name, validate_positions
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

#: The pip extra that installs every real library the audit runs.
EXTRA = "symrope[frameworks]"
TORCH_DTYPE_NAMES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "fp64": "float64"}
_CHUNK = 1 << 15   # positions per library call: bounded memory


def import_library(module: str, what: str):
    """``importlib.import_module(module)``, or a one-line UsageError naming the pip extra."""
    if module.startswith("keras"):
        os.environ.setdefault("KERAS_BACKEND", "torch")
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise UsageError(f"--impl {what} needs {module.split('.')[0]}, which does not import here "
                         f"({_first_line(error)}): pip install '{EXTRA}'") from None
    except Exception as error:  # noqa: BLE001 - a broken install (e.g. a mismatched dependency)
        raise UsageError(f"--impl {what}: importing {module} failed ({type(error).__name__}: "
                         f"{_first_line(error)}): pip install '{EXTRA}'") from None


_ONE_THREAD_LOCK = threading.Lock()
_one_thread_users = [0, None]     # how many calls are inside, torch's thread count before them


@contextlib.contextmanager
def library_call(torch):
    """``torch.no_grad()`` on one intra-op thread, for every call into a library's code.

    The audit already runs the table beside its own threads (the reference, the fold); torch's
    own pool of threads would spin against them (2-3x the CPU for the same table on two cores).
    The thread count is restored when the last concurrent call leaves.
    """
    with _ONE_THREAD_LOCK:
        if _one_thread_users[0] == 0:
            _one_thread_users[1] = torch.get_num_threads()
            torch.set_num_threads(1)
        _one_thread_users[0] += 1
    try:
        with torch.no_grad():
            yield
    finally:
        with _ONE_THREAD_LOCK:
            _one_thread_users[0] -= 1
            if _one_thread_users[0] == 0:
                torch.set_num_threads(_one_thread_users[1])


def tensor_to_numpy(torch, tensor) -> np.ndarray:
    """A CPU tensor as numpy in its own dtype; bf16 by viewing its bits as ``ml_dtypes.bfloat16``
    (exact, no conversion pass)."""
    tensor = tensor.detach().cpu().contiguous()
    if tensor.dtype == torch.bfloat16:
        import ml_dtypes

        return tensor.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return tensor.numpy()


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:160] if text else type(error).__name__


class RealImpl:
    """A real library's RoPE behind ``table(positions, config, dtype)`` and ``rotate``.

    Subclasses set ``name``, ``summary``, ``explanation``, ``fix_target``, ``pairing``
    (``"interleaved"``: pair i is channels 2i, 2i+1; ``"rotate_half"``: i and i + rotary_dim/2)
    and implement ``_rotate(x, positions)`` on a torch tensor ``x`` of shape (n, heads, head_dim)
    in the model dtype, returning the rotated tensor of the same shape.
    """

    fix = "fp64-angle"
    default_dtype = "bf16"
    user_supplied = False
    pairing = "rotate_half"
    fix_target = None
    rope_types: tuple[str, ...] | None = None   # the rope types the library expresses (None: any)
    partial_rotary = True                       # False: it rotates the whole head only

    def __init__(self, rope_config: RopeConfig):
        self._check_expressible(rope_config)
        self.torch = import_library("torch", self.name)
        self.rope_config = rope_config

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    @classmethod
    def cannot_express(cls, config: RopeConfig) -> str | None:
        """Why the library cannot express ``config`` (None: it can), before anything is imported."""
        if cls.rope_types is not None and config.rope_type not in cls.rope_types:
            return f"{cls.name} has {', '.join(cls.rope_types)} RoPE only, not {config.rope_type!r}"
        if not cls.partial_rotary and config.rotary_dim != config.head_dim:
            return (f"{cls.name} rotates the whole head: partial rotary (rotary_dim "
                    f"{config.rotary_dim} of {config.head_dim}) is not expressible")
        return None

    def _check_expressible(self, config: RopeConfig) -> None:
        """UsageError when the library cannot express ``config`` (before anything is imported)."""
        reason = self.cannot_express(config)
        if reason is not None:
            raise UsageError(reason)

    def explanation(self, dtype: str) -> str:  # overridden per library
        return ""

    def channels(self) -> tuple[np.ndarray, np.ndarray]:
        """The first and second channel of every pair, in the library's layout."""
        pairs = self.rope_config.rotary_dim // 2
        if self.pairing == "interleaved":
            first = np.arange(pairs) * 2
            return first, first + 1
        first = np.arange(pairs)
        return first, first + pairs

    def rotate(self, x: np.ndarray, positions, dtype: str | None = None) -> np.ndarray:
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

    def table(self, positions, config: RopeConfig | None = None, dtype: str | None = None,
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


def _builders():
    from symrope.audit import _real_libs

    return {
        "torchtune": _real_libs.TorchtuneImpl,
        "rotary-embedding-torch": _real_libs.RotaryEmbeddingTorchImpl,
        "rotary-embedding-torch-xpos": _real_libs.RotaryEmbeddingTorchXposImpl,
        "keras-hub": _real_libs.KerasHubImpl,
        "timm": _real_libs.TimmImpl,
    }


#: ``--impl`` names of the real libraries besides ``hf-transformers``.
REAL_IMPLS = ("torchtune", "rotary-embedding-torch", "rotary-embedding-torch-xpos", "keras-hub", "timm")


def cannot_express(name: str, rope_config: RopeConfig) -> str | None:
    """Why the real library ``name`` cannot express ``rope_config`` (None: it can)."""
    builders = _builders()
    if name not in builders:
        raise UsageError(f"unknown real implementation {name!r} (one of: {', '.join(builders)})")
    return builders[name].cannot_express(rope_config)


def real_impl(name: str, rope_config: RopeConfig) -> RealImpl:
    """The real library ``name`` set up for ``rope_config`` (UsageError if it cannot express it)."""
    builders = _builders()
    if name not in builders:
        raise UsageError(f"unknown real implementation {name!r} (one of: {', '.join(builders)})")
    return builders[name](rope_config)


def rotate_with_table(table_fn, x: np.ndarray, positions, dtype: str, pairing: str = "rotate_half"):
    """Rotate ``x`` (n, vectors, head_dim) with a table ``(cos, sin)`` in float64, then round to dtype.

    The stand-in for an apply function where an implementation only gives a table (the built-in
    models): the rotation itself is exact, so the logits measure the table's error alone.
    """
    from symrope.audit._dtypes import round_to, rounded, widen

    cos, sin = (widen(part) for part in table_fn(positions))
    pairs = cos.shape[1]
    if pairing == "interleaved":
        first, second = np.arange(pairs) * 2, np.arange(pairs) * 2 + 1
    else:
        first, second = np.arange(pairs), np.arange(pairs) + pairs
    narrow = rounded(np.asarray(x, dtype=np.float64), dtype)
    out = narrow.copy()
    a, b = narrow[..., first], narrow[..., second]
    out[..., first] = a * cos[:, None, :] - b * sin[:, None, :]
    out[..., second] = b * cos[:, None, :] + a * sin[:, None, :]
    return round_to(out, dtype)
