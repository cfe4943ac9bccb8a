"""Wall-clock budgets that interrupt SymPy instead of waiting for it.

SymPy is pure Python, so a POSIX interval timer (``SIGALRM``) can raise inside any long
simplification. The exception derives from ``BaseException`` so that SymPy's many
``except Exception`` clauses cannot swallow it. Budgets nest: an inner budget never outlives
the outer one, and when a deadline fires the innermost budget that has expired handles it.

Each thread has its own stack of budgets (a deadline set in one thread never fires in another).
Off the main thread (where signals cannot be delivered) the budget is checked cooperatively
between strategies only; :func:`symrope.verify` then runs the claim in a child process (started
by the ``forkserver``, never forked from a multi-threaded process) that is killed at the deadline,
so the "never a hang" promise holds there too.
"""

from __future__ import annotations

import itertools
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["BudgetExhausted", "Deadline", "deadline", "signals_available"]

_ids = itertools.count()


class _PerThread(threading.local):
    """The budgets open in the current thread, outermost first (one list per thread)."""

    def __init__(self) -> None:
        self.stack: list[Deadline] = []


_open = _PerThread()


def _stack() -> list["Deadline"]:
    return _open.stack


class BudgetExhausted(BaseException):
    """Raised inside a computation when its time budget has run out."""

    def __init__(self, owner: "Deadline") -> None:
        super().__init__(f"time budget of {owner.budget:.3g} s exhausted")
        self.owner = owner


class Deadline:
    """A point in (monotonic) time by which a computation must have returned."""

    def __init__(self, budget: float) -> None:
        self.budget = float(budget)
        self.start = time.monotonic()
        self.at = self.start + self.budget
        self.ident = next(_ids)

    def remaining(self) -> float:
        return self.at - time.monotonic()

    def expired(self) -> bool:
        return self.remaining() <= 0

    def check(self) -> None:
        """Raise :class:`BudgetExhausted` if this deadline (or an enclosing one) has passed."""
        for owner in _stack():
            if owner.expired():
                raise BudgetExhausted(owner)
        if self.expired():
            raise BudgetExhausted(self)


def signals_available() -> bool:
    """Whether a budget here can interrupt a computation (POSIX timers, on the main thread)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _on_alarm(signum: int, frame: FrameType | None) -> None:  # pragma: no cover - timing
    # Signals run on the main thread, so this is the main thread's stack.
    for owner in _stack():
        if owner.expired():
            raise BudgetExhausted(owner)
    _arm()  # a spurious early wake-up: re-arm for the earliest live deadline


def _arm() -> None:
    stack = _stack()
    if not stack:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return
    earliest = min(owner.at for owner in stack)
    signal.setitimer(signal.ITIMER_REAL, max(earliest - time.monotonic(), 1e-4))


@contextmanager
def deadline(budget: float) -> Iterator[Deadline]:
    """Run a block under a time budget in seconds; yields the :class:`Deadline`.

    The block is interrupted with :class:`BudgetExhausted` when the budget runs out (on the main
    thread), and the exception propagates to the caller, who decides what that means. An inner
    budget is clipped to the enclosing one of the same thread.

    Examples
    ========

    >>> from symrope.engine import deadline
    >>> with deadline(5.0) as outer:
    ...     with deadline(60.0) as inner:
    ...         inner.budget <= outer.budget
    True
    """
    stack = _stack()
    if stack:
        budget = min(budget, max(stack[-1].remaining(), 0.0))
    owner = Deadline(budget)
    use_signals = signals_available()
    previous_handler = None
    if use_signals:
        previous_handler = signal.getsignal(signal.SIGALRM)
        if previous_handler not in (_on_alarm,) and not stack:
            signal.signal(signal.SIGALRM, _on_alarm)
    stack.append(owner)
    try:
        if use_signals:
            _arm()
        yield owner
    finally:
        stack.remove(owner)
        if use_signals:
            _arm()
            if not stack and previous_handler is not None and previous_handler is not _on_alarm:
                signal.signal(signal.SIGALRM, previous_handler)
