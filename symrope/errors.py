"""Exceptions shared by every subsystem.

``UsageError`` is bad input from a user (a CLI turns it into exit code 2 and one line);
``InternalError`` is a bug in symrope that must never be swallowed.
"""


class SymropeError(Exception):
    """Base class of symrope's own errors."""


class UsageError(SymropeError, ValueError):
    """Bad input: wrong shapes, unknown names, impossible parameters.

    The message is one line that names the offending thing and what is wrong with it.
    """


class InternalError(SymropeError, AssertionError):
    """symrope contradicted itself (e.g. a ``proved`` identity failed a numeric cross-check)."""
