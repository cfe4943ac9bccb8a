"""Pieces every ``symrope`` sub-command shares: a one-line-error argument parser and JSON output."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from symrope.errors import UsageError


# The exit codes every sub-command shares. 4 is a bug in symrope (an InternalError), never a
# verdict: a script that reads 1 as "refuted" must not mistake a crash for a counterexample.
EXIT_PROVED, EXIT_REFUTED, EXIT_BAD_INPUT, EXIT_UNDECIDED, EXIT_INTERNAL = 0, 1, 2, 3, 4


def exit_code(verdicts) -> int:
    """1 when any verdict is refuted, else 3 when any is undecided, else 0."""
    verdicts = set(verdicts)
    if "refuted" in verdicts:
        return EXIT_REFUTED
    if "undecided" in verdicts:
        return EXIT_UNDECIDED
    return EXIT_PROVED


class ArgumentParser(argparse.ArgumentParser):
    """``argparse`` that reports bad arguments as a :class:`UsageError` (one line, exit 2)."""

    def error(self, message: str):  # noqa: D401 - argparse API
        raise UsageError(message)


def dump_json(document: Any) -> None:
    """Print one JSON document on stdout (non-finite floats become strings, never NaN tokens)."""
    json.dump(_jsonable(document), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _jsonable(value.item())
    return value
