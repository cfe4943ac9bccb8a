"""Deciding a claim in a child process, so that its budget holds off the main thread.

On the main thread a budget interrupts SymPy with ``SIGALRM`` (``_deadline.py``); on any other
thread no signal can, so :func:`symrope.verify` decides there in a child process that is killed
at the deadline. The child comes from multiprocessing's ``forkserver``: a process with other
threads is never forked.
"""

from __future__ import annotations

import multiprocessing
import pickle
import threading
import time
from collections.abc import Callable
from typing import Any

from symrope.engine._deadline import deadline
from symrope.engine._reasons import UndecidedReason
from symrope.engine._verdict import Verdict

__all__ = ["decide_in_child"]

#: ``decide(lhs, rhs, budget, seed, hypotheses) -> Verdict``, run in this process, on its main thread
Decide = Callable[[Any, Any, float, int, tuple], Verdict]


def decide_in_child(decide: Decide, lhs: Any, rhs: Any, budget: float, seed: int,
                    hypotheses: tuple = ()) -> Verdict:
    """``decide(lhs, rhs, budget, seed, hypotheses)`` in a child process killed at the deadline.

    Off the main thread no signal can interrupt SymPy, so this is how the budget holds there.
    The child comes from the ``forkserver`` (a clean single-threaded process that has imported
    ``decide``'s module once), never from ``fork``: forking a process that runs other threads
    can copy a lock another thread holds, and Python 3.12 warns about it. The claim travels
    pickled; ``decide`` must be a module-level function (it travels by name).
    """
    with deadline(budget) as clock:  # this thread's enclosing budgets clip it, as in-process
        context = _child_context(decide.__module__)
        if context is None:  # pragma: no cover - platforms without forkserver or spawn
            return decide(lhs, rhs, clock.remaining(), seed, hypotheses)
        try:
            claim = pickle.dumps((lhs, rhs, seed, hypotheses))
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as error:
            return Verdict.undecided_because(UndecidedReason.NOT_PICKLABLE, lhs, rhs,
                                             seconds=time.monotonic() - clock.start,
                                             detail=error)
        receiver, sender = context.Pipe(duplex=False)
        # the child measures the same deadline on the same (system-wide) monotonic clock
        launch = _Launch(context.Process(target=_child_main,
                                         args=(sender, decide, claim, clock.at), daemon=True),
                         sender)
        launch.start()
        outcome, ended = None, False
        if receiver.poll(max(clock.remaining(), 0.0) + 0.5):
            try:
                outcome = receiver.recv()
            except EOFError:  # the child ended without a word (or never started)
                ended = True
        receiver.close()
        launch.abandon()
        if launch.error is not None:
            raise launch.error
        if ended:
            return Verdict.undecided_because(UndecidedReason.CHILD_ENDED, lhs, rhs,
                                             seconds=time.monotonic() - clock.start,
                                             exit_code=launch.child.exitcode)
        if outcome is None:
            return Verdict.undecided_because(UndecidedReason.CHILD_TIME_BUDGET, lhs, rhs,
                                             seconds=time.monotonic() - clock.start,
                                             budget=clock.budget)
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


class _Launch(threading.Thread):
    """Starts the child on a thread of its own, and stops it once the caller has its answer.

    The first start waits for the forkserver to import sympy and symrope (seconds on a loaded
    machine), and the caller must still return at its deadline: it waits for the answer, not
    for the start. A child that starts after the caller gave up is stopped as soon as it exists.
    """

    def __init__(self, child: multiprocessing.process.BaseProcess, sender) -> None:
        super().__init__(name="symrope-verify-launch", daemon=True)
        self.child, self.sender = child, sender
        self.error: BaseException | None = None
        self._lock = threading.Lock()
        self._child_started = self._given_up = False

    def run(self) -> None:
        try:
            self.child.start()
        except BaseException as error:  # the caller re-raises it
            self.error = error
        finally:
            self.sender.close()  # the child holds the only copy now: its exit means EOF
        with self._lock:
            self._child_started, abandoned = self.error is None, self._given_up
        if abandoned and self._child_started:
            self._stop_child()

    def abandon(self) -> None:
        """The caller is done: stop the child now, or as soon as it has started."""
        with self._lock:
            self._given_up, started = True, self._child_started
        if started:
            self._stop_child()

    def _stop_child(self) -> None:
        self.child.join(0.2)  # a child that has answered is exiting: let it
        if self.child.is_alive():
            self.child.kill()
            self.child.join()


_CHILD_CONTEXT_LOCK = threading.Lock()


def _child_context(preload: str) -> multiprocessing.context.BaseContext | None:
    """``forkserver`` (preloading ``preload``, so a child starts in milliseconds), else ``spawn``."""
    with _CHILD_CONTEXT_LOCK:
        methods = multiprocessing.get_all_start_methods()
        if "forkserver" in methods:
            context = multiprocessing.get_context("forkserver")
            # Preload this module (sympy and symrope are imported once, in the server) rather than
            # the default ``__main__``, which would run a user's unguarded script there too.
            context.set_forkserver_preload([preload])
            return context
        if "spawn" in methods:  # pragma: no cover - Windows, where fork never existed
            return multiprocessing.get_context("spawn")
        return None  # pragma: no cover


def _child_main(sender, decide: Decide, claim: bytes,
                at: float) -> None:  # pragma: no cover - child process
    try:
        lhs, rhs, seed, hypotheses = pickle.loads(claim)
        outcome = decide(lhs, rhs, max(at - time.monotonic(), 1e-3), seed, hypotheses)
    except BaseException as error:  # the parent re-raises it
        outcome = error
    try:
        sender.send(outcome)
    except OSError:  # the parent stopped waiting (its deadline passed): nobody to tell
        pass
