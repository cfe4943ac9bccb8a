"""What every real library's entry shares about torch: importing a library (a missing one is a
one-line error naming its pip extra), calling into it on one thread, reading tensors back, and
handing a library's own ``torch.arange`` the positions to lift.

Torch is never imported here at module level: each helper takes it, or imports it when called.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
from collections.abc import Iterable
from types import ModuleType
from typing import Any

import numpy as np

from symrope.errors import UsageError

#: The pip extra that installs every real library the audit runs (an entry may name another).
EXTRA = "symrope[frameworks]"
TORCH_DTYPE_NAMES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "fp64": "float64"}


def pip_extra(extra: str) -> str:
    """``"frameworks"`` -> ``"symrope[frameworks]"``, the argument of ``pip install``."""
    return f"symrope[{extra}]"


def import_library(module: str, what: str, extra: str = "frameworks") -> ModuleType:
    """``importlib.import_module(module)``, or a one-line UsageError naming the pip extra."""
    if module.startswith("keras"):
        os.environ.setdefault("KERAS_BACKEND", "torch")
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise UsageError(f"--impl {what} needs {module.split('.')[0]}, which does not import here "
                         f"({first_line(error)}): pip install '{pip_extra(extra)}'") from None
    except Exception as error:  # noqa: BLE001 - a broken install (e.g. a mismatched dependency)
        raise UsageError(f"--impl {what}: importing {module} failed ({type(error).__name__}: "
                         f"{first_line(error)}): pip install '{pip_extra(extra)}'") from None


def first_line(error: BaseException) -> str:
    """An exception's first line (at most 160 characters), or its type's name."""
    text = str(error).strip()
    return text.splitlines()[0][:160] if text else type(error).__name__


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


_MODE_CLASS = None


def positions_for_arange_class():
    """``PositionsForArange``: while active, ``torch.arange(n)`` returns the next of the given
    position tensors (only a call whose single length argument equals that tensor's length is
    replaced, in order; every other call runs unchanged). Built on first use: torch is imported
    only then."""
    global _MODE_CLASS
    if _MODE_CLASS is None:
        import torch
        from torch.overrides import TorchFunctionMode

        class PositionsForArange(TorchFunctionMode):
            __doc__ = positions_for_arange_class.__doc__

            def __init__(self, positions: Iterable) -> None:
                super().__init__()
                self.queue = list(positions)

            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                if func is torch.arange and self.queue and len(args) == 1 and \
                        args[0] == self.queue[0].shape[0]:
                    positions = self.queue.pop(0)
                    dtype = kwargs.get("dtype")
                    return positions.to(dtype) if dtype is not None else positions
                return func(*args, **kwargs)

        _MODE_CLASS = PositionsForArange
    return _MODE_CLASS


def positions_for_arange(positions: Iterable) -> Any:
    """A ``PositionsForArange`` mode over ``positions`` (see :func:`positions_for_arange_class`):
    where a library takes no explicit positions (it calls ``torch.arange(seq_len)`` itself, or
    precomputes a cache from ``arange``), the lift hands that one call the positions instead, so
    the library's own code computes the angles from the (symbolic) positions."""
    return positions_for_arange_class()(positions)
