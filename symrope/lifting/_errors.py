"""Why a lift stopped: the code did something exact symbolic execution cannot follow."""

from __future__ import annotations

__all__ = ["LiftUndecided"]


class LiftUndecided(Exception):
    """The lifted code left exact semantics: an unsupported aten op or a branch on a symbol.

    Not a verdict about the encoding: the CLI reports it as ``undecided`` (exit 3) with this
    one-line message, which names the op (``op``) or the ``file:line`` of the code.
    """

    def __init__(self, message: str, op: str | None = None) -> None:
        super().__init__(message)
        self.op = op
