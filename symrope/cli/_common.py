"""What every ``symrope`` sub-command shares: a one-line-error argument parser and JSON output.

The exit codes are not here: they live in :mod:`symrope._cliutil`, below every subsystem, so a
report (``CheckReport.exit_code``) can name them without importing the command line.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from symrope._parse import real_option
from symrope.errors import UsageError

__all__ = ["ArgumentParser", "add_budget", "check_budget", "dump_json", "output_directory",
           "output_file"]


class ArgumentParser(argparse.ArgumentParser):
    """``argparse`` that reports bad arguments as a :class:`UsageError` (one line, exit 2)."""

    def error(self, message: str):  # noqa: D401 - argparse API
        raise UsageError(message)


def add_budget(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--budget SECONDS`` (default 60); :func:`check_budget` rejects a value <= 0 after parsing."""
    parser.add_argument("--budget", type=real_option("--budget"), default=60.0, help=help_text)


def check_budget(budget: float) -> None:
    """A budget of no time is bad input (exit 2), not an undecided verdict."""
    if budget <= 0:
        raise UsageError(f"--budget must be positive, got {budget}")


def output_directory(path: str, flag: str = "--out") -> Path:
    """The folder ``path`` for a command's output files, created if need be; a path that cannot
    be a folder (a file, or under one; no permission) is one line, exit 2."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{flag} {path} exists and is not a directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{flag} {path}: cannot create the folder ({error.strerror})") from None
    return folder


def output_file(path: str, flag: str) -> None:
    """Check, before any work, that ``path`` can be written: its folder exists and it is not a
    folder itself (a long run must not end in a failed write)."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{flag} {path!r} is a folder, not a file")
    if not target.resolve().parent.is_dir():
        raise UsageError(f"{flag} {path!r}: folder {str(target.parent)!r} does not exist")


def dump_json(document: Any) -> None:
    """Print one JSON document on stdout, strict JSON (no ``NaN``/``Infinity`` tokens).

    A non-finite float is written as ``null`` and named in a companion key beside it:
    ``"max_abs_error": null, "max_abs_error_nonfinite": "inf"`` for a value, and for a list
    ``"per_pair": [1e-07, null], "per_pair_nonfinite": {"1": "nan"}`` (the index -- ``"2.0"``
    in a list of lists -- and which of ``"inf"``, ``"-inf"``, ``"nan"``). A ``null`` without a
    companion is a value that was not measured.
    """
    json.dump(_jsonable(document), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


def _nonfinite_name(value: float) -> str:
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _scalar(value: Any) -> Any:
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, (list, tuple, dict)):
        try:
            return value.item()        # numpy scalars
        except (TypeError, ValueError):
            return value
    return value


def _jsonable(value: Any) -> Any:
    """``value`` with non-finite floats as None and their companions added to every dict."""
    value = _scalar(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            key = str(key)
            item = _scalar(item)
            if isinstance(item, float) and not math.isfinite(item):
                out[key], out[f"{key}_nonfinite"] = None, _nonfinite_name(item)
                continue
            if isinstance(item, (list, tuple)):
                found: dict[str, str] = {}
                out[key] = _list(item, "", found)
                if found:
                    out[f"{key}_nonfinite"] = found
                continue
            out[key] = _jsonable(item)
        return out
    if isinstance(value, (list, tuple)):
        return _list(value, "", {})
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _list(values, prefix: str, found: dict) -> list:
    out = []
    for index, item in enumerate(values):
        item = _scalar(item)
        where = f"{prefix}{index}"
        if isinstance(item, float) and not math.isfinite(item):
            found[where] = _nonfinite_name(item)
            out.append(None)
        elif isinstance(item, (list, tuple)):
            out.append(_list(item, f"{where}.", found))
        else:
            out.append(_jsonable(item))
    return out
