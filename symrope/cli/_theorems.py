"""What ``prove``, ``latex`` and ``export`` share: the ``NAME ...`` and ``--param NAME=VALUE``
arguments, reading ``--param`` and choosing the built-in theorems with their parameters (one
parser, one message for an unknown name)."""

from __future__ import annotations

import argparse

from symrope.errors import UsageError

__all__ = ["add_names", "add_param", "parse_parameter", "theorem_tasks", "parameters_text",
           "build_theorem"]


def add_names(parser: argparse.ArgumentParser, help_text: str) -> None:
    """The ``NAME ...`` positional: the theorems to work on (all of them when none is given)."""
    parser.add_argument("names", nargs="*", metavar="NAME", help=help_text)


def add_param(parser: argparse.ArgumentParser, example: str) -> None:
    """``--param NAME=VALUE``, repeatable (read by :func:`theorem_tasks`); ``example`` is the
    ``NAME=VALUE`` the help shows."""
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help=f"override a parameter of the named theorems, e.g. --param {example}")


def parse_parameter(text: str) -> tuple[str, object]:
    """``NAME=VALUE``: a Python literal (12, 0.4, True, 'x'), a bare word (a symbolic name such as
    ``theta`` or a kind such as ``repeated``), or a SymPy expression such as ``10**4`` or ``1/2``."""
    import ast

    import sympy as sp

    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise UsageError(f"--param takes NAME=VALUE, got {text!r}")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        pass
    if value.isidentifier():
        return name, value
    try:
        return name, sp.sympify(value)
    except (sp.SympifyError, SyntaxError, TypeError):
        raise UsageError(f"--param {name}: cannot read {value!r} as a number or expression") from None


def parameters_text(builder) -> str:
    return ", ".join(f"{k}={v}" for k, v in builder.defaults.items()) or "none"


def theorem_tasks(names: list[str], param_texts: list[str]) -> list[tuple[object, dict]]:
    """``(builder, parameters)`` for each named theorem (all of them when ``names`` is empty).

    Every ``--param`` is read, and every name a named theorem does not take is reported, before
    any work starts; with no names a parameter applies to the theorems that take it.
    """
    from symrope.theorems import builtin_theorems, get_theorem

    builders = [get_theorem(n) for n in names] if names else list(builtin_theorems().values())
    if not builders:
        raise UsageError("no theorems are registered yet ('symrope list' is empty)")
    overrides = dict(parse_parameter(p) for p in param_texts)
    tasks = []
    for builder in builders:
        unknown = set(overrides) - set(builder.defaults)
        if names and unknown:
            raise UsageError(f"theorem {builder.name} has no parameter(s) "
                             f"{', '.join(sorted(unknown))}; its parameters: "
                             f"{parameters_text(builder)}")
        tasks.append((builder, {k: v for k, v in overrides.items() if k in builder.defaults}))
    return tasks


def build_theorem(builder, params: dict):
    """Build with the user's parameters; a value the theorem cannot take is bad input (exit 2)."""
    if not params:
        return builder.build()
    try:
        return builder.build(**params)
    except UsageError:
        raise
    except (ValueError, TypeError, ArithmeticError, AttributeError) as error:
        given = ", ".join(f"{k}={v!r}" for k, v in params.items())
        raise UsageError(f"theorem {builder.name} cannot take {given} "
                         f"({type(error).__name__}: {error}); its parameters and defaults: "
                         f"{parameters_text(builder)}") from None
