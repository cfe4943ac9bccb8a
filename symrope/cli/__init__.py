"""The ``symrope`` command: the top layer, one private module per sub-command.

Nothing below imports this package: the subsystems (engine, theorems, checker, kernel, audit,
latex) know nothing of argv, exit codes aside (:mod:`symrope._cliutil`). Sub-commands are
imported only when used, so ``symrope audit`` never imports SymPy's proof library and
``symrope prove`` never imports numpy-heavy audit code (or torch).
"""

from __future__ import annotations

import importlib
import sys

from symrope._cliutil import EXIT_BAD_INPUT, EXIT_INTERNAL
from symrope._version import __version__
from symrope.errors import InternalError, UsageError

__all__ = ["main", "COMMANDS"]

# name -> (module, function, one-line help). Each function takes argv and returns an exit code.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "prove": ("symrope.cli._prove", "prove_main", "prove built-in theorems"),
    "list": ("symrope.cli._prove", "list_main", "list the built-in theorems"),
    "check": ("symrope.cli._check", "main", "check an encoding against the four assumptions"),
    "latex": ("symrope.cli._latex", "main", "render proofs as LaTeX derivations"),
    "audit": ("symrope.cli._audit", "main", "audit a float RoPE implementation's precision"),
    "survey": ("symrope.cli._survey", "main",
               "audit every installed real RoPE library in bf16/fp16/fp32"),
    "export": ("symrope.cli._export", "export_main", "export checked steps as Coq lemmas"),
    "diff": ("symrope.cli._diff", "main", "are two real RoPE implementations the same encoding?"),
    "lift": ("symrope.cli._lift", "main", "save real RoPE code's exact semantics as data"),
}

REPORT_URL_HINT = "please report it with the command line that produced it"


def _usage() -> str:
    lines = [f"usage: symrope COMMAND [ARGS]   (symrope {__version__})", "", "commands:"]
    lines += [f"  {name:<7} {help_}" for name, (_, _, help_) in COMMANDS.items()]
    lines += ["", "Run 'symrope COMMAND --help' for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``symrope`` console script and ``python -m symrope``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in {"-h", "--help"}:
        print(_usage())
        return 0 if argv else EXIT_BAD_INPUT
    if argv[0] == "--version":
        print(__version__)
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"symrope: error: unknown command {name!r} (one of: {', '.join(COMMANDS)})",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    module_name, function_name, _ = COMMANDS[name]
    function = getattr(importlib.import_module(module_name), function_name)
    try:
        return int(function(rest))
    except UsageError as error:
        message = " ".join(str(error).split())  # one line, whatever the message held
        print(f"symrope {name}: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except InternalError as error:
        message = " ".join(str(error).split())
        print(f"symrope {name}: internal error (a bug in symrope, not a verdict): {message}; "
              f"{REPORT_URL_HINT}", file=sys.stderr)
        return EXIT_INTERNAL
    except BrokenPipeError:  # `symrope ... | head`: the reader left; not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"symrope {name}: interrupted", file=sys.stderr)
        return 130
