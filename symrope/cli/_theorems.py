"""What ``prove``, ``latex`` and ``export`` share: the ``NAME ...`` and ``--param NAME=VALUE``
arguments, reading ``--param`` and choosing the built-in theorems with their parameters (one
parser, one message for an unknown name)."""

from __future__ import annotations

import argparse

from symrope.errors import UsageError

__all__ = ["add_names", "add_param", "parse_parameter", "parameter_value", "theorem_tasks",
           "parameters_text", "build_theorem"]


def add_names(parser: argparse.ArgumentParser, help_text: str) -> None:
    """The ``NAME ...`` positional: the theorems to work on (all of them when none is given)."""
    parser.add_argument("names", nargs="*", metavar="NAME", help=help_text)


def add_param(parser: argparse.ArgumentParser, example: str) -> None:
    """``--param NAME=VALUE``, repeatable (read by :func:`theorem_tasks`); ``example`` is the
    ``NAME=VALUE`` the help shows."""
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help=f"override a parameter of the named theorems, e.g. --param {example}")


def parse_parameter(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` split at the first ``=``: the name and the value's text (read later, by
    :func:`parameter_value`, once the theorems that take it are known)."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise UsageError(f"--param takes NAME=VALUE, got {text!r}")
    return name, value


def parameter_value(name: str, text: str, builders) -> object:
    """The value of ``--param NAME=TEXT``, read by the one parser (:mod:`symrope._parse`), never
    evaluated.

    A value is an integer, a decimal, a fraction ``p/q``, ``True``/``False``/``None``, or a
    name: the parameter's own name as a symbol (``theta=theta``, ``n=n``), or any word for a
    parameter whose default is a word in one of ``builders`` (a kind such as ``repeated``,
    which the theorem checks against its list).

    Examples
    ========

    >>> from symrope.cli._theorems import parameter_value
    >>> from symrope.theorems import get_theorem
    >>> rope = [get_theorem("rope_relative")]
    >>> parameter_value("theta", "1e4", rope), parameter_value("theta", "theta", rope)
    (Fraction(10000, 1), theta)
    >>> parameter_value("theta", "__import__('os')", rope)
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: --param theta: "__import__('os')" is not an integer, a decimal (0.4, 1e4) or a fraction p/q, True, False, None or the symbol 'theta'
    """
    from symrope._parse import GRAMMAR, parse_value

    if any(isinstance(b.defaults.get(name), str) for b in builders):
        return parse_value(text, f"--param {name}", names=None, constants=True)
    try:
        value = parse_value(text, f"--param {name}", names=(name,), constants=True)
    except UsageError:
        shown = repr(text if len(text) <= 60 else text[:57] + "...")
        raise UsageError(f"--param {name}: {shown} is not {GRAMMAR}, True, False, None or the "
                         f"symbol {name!r}") from None
    if value == name:   # the symbol itself, made here: a theorem never parses text
        import sympy as sp

        return sp.Symbol(name)
    return value


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
    texts = dict(parse_parameter(p) for p in param_texts)
    for builder in builders:
        unknown = set(texts) - set(builder.defaults)
        if names and unknown:
            raise UsageError(f"theorem {builder.name} has no parameter(s) "
                             f"{', '.join(sorted(unknown))}; its parameters: "
                             f"{parameters_text(builder)}")
    overrides = {name: parameter_value(name, text, [b for b in builders if name in b.defaults])
                 for name, text in texts.items()}
    tasks = []
    for builder in builders:
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
