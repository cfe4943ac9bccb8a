"""The exit codes of every ``symrope`` sub-command: their one home.

They sit below every subsystem (this module imports nothing of symrope) so that a report can
name its exit code (``CheckReport.exit_code``) without importing the command line, which is the
top layer (:mod:`symrope.cli`).
"""

from __future__ import annotations

__all__ = ["EXIT_PROVED", "EXIT_REFUTED", "EXIT_BAD_INPUT", "EXIT_UNDECIDED", "EXIT_INTERNAL",
           "VERDICT_EXIT_CODES", "exit_code"]

# 4 is a bug in symrope (an InternalError), never a verdict: a script that reads 1 as "refuted"
# must not mistake a crash for a counterexample.
EXIT_PROVED, EXIT_REFUTED, EXIT_BAD_INPUT, EXIT_UNDECIDED, EXIT_INTERNAL = 0, 1, 2, 3, 4

#: verdict -> exit code, for one verdict
VERDICT_EXIT_CODES = {"proved": EXIT_PROVED, "refuted": EXIT_REFUTED, "undecided": EXIT_UNDECIDED}


def exit_code(verdicts) -> int:
    """1 when any verdict is refuted, else 3 when any is undecided, else 0.

    Examples
    ========

    >>> from symrope._cliutil import exit_code
    >>> exit_code(["proved", "undecided"]), exit_code(["undecided", "refuted"]), exit_code([])
    (3, 1, 0)
    """
    verdicts = set(verdicts)
    if "refuted" in verdicts:
        return EXIT_REFUTED
    if "undecided" in verdicts:
        return EXIT_UNDECIDED
    return EXIT_PROVED
