"""Which tracer runs a function symbolically: detected without importing any framework.

In the manner of einops' ``_backends.py``: a tracer is chosen by looking at what the function
already uses (``sys.modules`` and the function's own globals), and its framework is imported
only then. Two tracers are registered: torch's (``_symbolic.py``, ``__torch_dispatch__``) and
JAX's (``_jax.py``, a jaxpr interpreter); both map their ops onto ``_semantics.OPS``.
"""

from __future__ import annotations

import sys

import numpy as np
import sympy as sp

from symrope.errors import InternalError, UsageError
from symrope.lifting._errors import LiftUndecided, refused_inputs

__all__ = ["tracer_for", "TorchTracer"]


class TorchTracer:
    """Runs a torch function on :class:`~symrope.lifting._symbolic.SymbolicTensor` inputs."""

    framework = "torch"

    @staticmethod
    def is_appropriate(function) -> bool:
        torch = sys.modules.get("torch")
        if torch is None:
            return False
        if isinstance(function, torch.nn.Module):
            return True
        namespace = getattr(function, "__globals__", None)
        if namespace is None:
            module = sys.modules.get(getattr(function, "__module__", None) or "")
            namespace = vars(module) if module is not None else {}
        return any(value is torch for value in namespace.values())

    def run(self, function, name: str, x, y, p, position_dims: int):
        """Outputs ``(q_rows, k_rows)`` per token (paths joined), hazards and branches."""
        import torch

        from symrope.lifting._semantics import positions_are_integers
        from symrope.lifting._symbolic import entries, symbolic
        from symrope.lifting._trace import call_lifted, explore

        tokens, head_dim = len(x), len(x[0])
        shape = (tokens, position_dims) if position_dims > 1 else (tokens,)

        def once():
            q = symbolic(np.array(x, dtype=object).reshape(1, 1, tokens, head_dim))
            k = symbolic(np.array(y, dtype=object).reshape(1, 1, tokens, head_dim))
            positions = symbolic(np.array(p, dtype=object).reshape(shape), dtype=torch.int64)
            try:
                with torch.no_grad():
                    result = call_lifted(function, q, k, positions)
            except (LiftUndecided, UsageError, InternalError):
                raise
            except Exception as error:  # the code refused the inputs: a contract problem
                raise refused_inputs(name, error, head_dim, "float", "int64", position_dims,
                                     tokens) from None
            if not isinstance(result, (tuple, list)) or len(result) != 2 or \
                    not all(isinstance(r, torch.Tensor) for r in result):
                raise UsageError(f"{name} must return (q_rot, k_rot), two tensors; got "
                                 f"{type(result).__name__}")
            rows = []
            for role, tensor in zip(("q_rot", "k_rot"), result):
                if tensor.numel() != tokens * head_dim or tuple(tensor.shape)[-1] != head_dim:
                    raise UsageError(f"{name} returned {role} of shape {tuple(tensor.shape)}; "
                                     f"expected (1, 1, {tokens}, {head_dim}) for inputs of "
                                     "that shape")
                values = entries(tensor).reshape(tokens, head_dim)
                rows.append([[sp.sympify(v, strict=True) for v in row] for row in values])
            return rows

        symbols = [s for axes in p for s in axes]
        with positions_are_integers(symbols):
            paths, hazards = explore(once, symbols)
        branches = list({(sp.sstr(c), loc): {"condition": sp.sstr(c), "location": loc}
                         for path in paths for c, _, loc in path.branches}.values())
        return _join(paths), hazards, branches


def _join(paths):
    """One output per entry: the paths' outputs as a Piecewise over their conditions."""
    if len(paths) == 1:
        return paths[0].outputs
    first = paths[0].outputs

    def joined(role, token, index):
        pieces = [path.outputs[role][token][index] for path in paths]
        if all(piece == pieces[0] for piece in pieces[1:]):
            return pieces[0]
        return sp.Piecewise(*[(piece, path.condition) for piece, path in zip(pieces[:-1], paths)],
                            (pieces[-1], True))

    return [[[joined(role, t, i) for i in range(len(first[role][t]))]
             for t in range(len(first[role]))] for role in range(2)]


from symrope.lifting._jax import JaxTracer  # noqa: E402 - imports no framework

_TRACERS = (TorchTracer, JaxTracer)


def tracer_for(function):
    """The tracer for ``function``: the framework it uses, else torch if it is installed."""
    for tracer in _TRACERS:
        if tracer.is_appropriate(function):
            return tracer()
    try:
        import torch  # noqa: F401 - the only tracer so far: the default when nothing else fits
    except ImportError as error:
        raise ImportError(f"symrope.lifting runs torch code and needs torch ({error}); "
                          "pip install 'symrope[torch]'") from None
    return TorchTracer()
