"""Why a lift stopped: the code did something exact symbolic execution cannot follow."""

from __future__ import annotations

from symrope.errors import UsageError

__all__ = ["LiftUndecided", "refused_inputs"]


class LiftUndecided(Exception):
    """The lifted code left exact semantics: an unsupported aten op or a branch on a symbol.

    Not a verdict about the encoding: the CLI reports it as ``undecided`` (exit 3) with this
    one-line message, which names the op (``op``) or the ``file:line`` of the code.
    """

    def __init__(self, message: str, op: str | None = None) -> None:
        super().__init__(message)
        self.op = op


def refused_inputs(name: str, error: Exception, head_dim: int, float_type: str,
                   integer_type: str, position_dims: int, tokens: int) -> UsageError:
    """The one-line error when the lifted code raised on the contract's inputs (any tracer)."""
    message = " ".join(str(error).split())[:300] or "no message"
    return UsageError(
        f"{name}(q, k, positions) raised {type(error).__name__}: {message} "
        f"(q, k: (1, 1, seq, {head_dim}) {float_type}, positions: {integer_type} (seq,)"
        f"{'' if position_dims == 1 else f' x {position_dims}'}, seq = {tokens})")
