"""Capture symrope's outputs of a checkout, timings and paths masked, to compare two checkouts
byte for byte (issue 21: a redesign that changes no output).

Usage (from the repository root)::

    python benchmarks/capture_outputs.py capture DIR [--root CHECKOUT] [--only NAME ...]
    python benchmarks/capture_outputs.py compare DIR_A DIR_B

``capture`` runs the checkout's own command line (``python -m symrope`` with ``PYTHONPATH`` set
to the checkout, default: this one) and writes one record per command, ``NAME.txt``: the command,
its exit code, its stdout and its stderr. A file the command writes (a ``--latex`` report, the
``.tex`` files of ``latex --all``, the Markdown derivations) is kept beside it as
``NAME.FILE``. The commands (:func:`commands`):

- every ``--help`` (the commands the checkout's ``symrope.cli.COMMANDS`` lists), ``symrope list``
  and ``symrope check --list``;
- ``symrope prove --json`` (every theorem) and each theorem's Markdown derivation (the docs
  site's pages), ``symrope latex --all`` (every ``.tex``);
- ``symrope check --zoo --json`` and ``symrope check NAME --json`` for every zoo entry, with the
  LaTeX report of a few;
- lifts of real torch code (``docs/examples/torch_rope.py:rope_draft``, functions of
  ``tests/data/lift/issue17.py``, transformers' Llama class, torchtune), one with its LaTeX;
- the 5 audits (default, transformers' model, torchtune in fp16, rotary-embedding-torch in bf16,
  a comparison with Meta's reference) and keras-hub's text report; a small survey, JSON and text;
- one-line errors that list or name the implementations.

Masked, because they differ from run to run: wall-clock times (JSON values under ``seconds``
and ``setup_seconds``, ``N.NN s`` in text, the survey header's ``N s on K processes``), the
checkout's path (``<root>``) and the scratch folder the files are written to (``<scratch>``).
``compare`` counts the records and files, names those that differ with their first differing
lines, and exits 1 if any do. To compare against an older commit, extract it first:
``git archive 40ac0fe | tar -x -C /tmp/before``.

The whole capture (68 commands) takes 4 to 5 minutes on the shared 2-core machine (the audits'
positions keep each under 20 s); ``--only`` runs the commands whose names match (shell
patterns: ``--only 'help*' 'audit-*'``).
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ISSUE17 = "tests/data/lift/issue17.py"
LIFTED = ("interpolation_long", "key_positions_flipped", "positions_bf16", "rope_complex_conj")
CHECK_LATEX = ("floor_bucketed", "liere_so3", "identical_damping", "rope")
YARN = '{"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 4096}'

#: keys whose values are wall-clock times, masked in every JSON document
TIME_KEYS = {"seconds", "setup_seconds"}
TIME_IN_TEXT = re.compile(r"\b\d+\\?\.\d+(\\,| )s\b")  # Markdown escapes the point: 0\.42 s
SURVEY_TIME = re.compile(r"; \d+ s on (\d+) process")
MASK = "<seconds>"
#: the scratch folder's name in the commands, replaced by the real one when they run
SCRATCH = "{scratch}"

#: each theorem's Markdown derivation, as the docs site renders it
MARKDOWN = """
import sys
from pathlib import Path
from symrope.latex import report_markdown
from symrope.theorems import builtin_theorems
out = Path(sys.argv[1])
out.mkdir()
for name, builder in builtin_theorems().items():
    report = builder.build().prove()
    (out / f"{name}.md").write_text(report_markdown(report), encoding="utf-8")
"""


@dataclass(frozen=True)
class Command:
    """One captured command: ``argv`` after ``python -m symrope`` (or after ``python -c
    script``), and the file or folder under the scratch folder it writes (kept too)."""

    name: str
    argv: tuple[str, ...]
    writes: str | None = None
    script: str | None = None


def _environment(root: Path) -> dict[str, str]:
    environment = dict(os.environ, PYTHONPATH=str(root), COLUMNS="100", LINES="40", CI="true")
    environment.pop("SYMROPE_PROGRESS", None)
    return environment


def _ask(root: Path, argv: list[str]) -> str:
    return subprocess.run([sys.executable, *argv], cwd=root, env=_environment(root),
                          capture_output=True, text=True, check=True).stdout


def _zoo_names(root: Path) -> list[str]:
    names = []
    for line in _ask(root, ["-m", "symrope", "check", "--list"]).splitlines()[1:]:
        if not line.strip():
            break
        names.append(line.split()[0])
    return names


def _cli_commands(root: Path) -> list[str]:
    code = "from symrope.cli import COMMANDS; print(' '.join(COMMANDS))"
    return _ask(root, ["-c", code]).split()


def commands(root: Path) -> list[Command]:
    """Every command captured in the checkout ``root`` (its CLI commands and zoo entries)."""
    listed = [Command("help", ("--help",))]
    listed += [Command(f"help-{name}", (name, "--help")) for name in _cli_commands(root)]
    listed += [Command("list", ("list",)), Command("check-list", ("check", "--list")),
               Command("prove", ("prove", "--json")),
               Command("markdown", (f"{SCRATCH}/markdown",), f"{SCRATCH}/markdown", MARKDOWN),
               Command("latex-all", ("latex", "--all", "--out", f"{SCRATCH}/latex"),
                       f"{SCRATCH}/latex"),
               Command("check-zoo", ("check", "--zoo", "--json"))]
    listed += [Command(f"check-{name}", ("check", name, "--json")) for name in _zoo_names(root)]
    listed += [Command(f"check-latex-{name}", ("check", name, "--latex", f"{SCRATCH}/{name}.tex"),
                       f"{SCRATCH}/{name}.tex") for name in CHECK_LATEX]
    lifts = {"rope_draft": "docs/examples/torch_rope.py:rope_draft",
             **{name: f"{ISSUE17}:{name}" for name in LIFTED}}
    listed += [Command(f"impl-{name}", ("check", "--impl", impl, "--head-dim", "4", "--json"))
               for name, impl in lifts.items()]
    listed += [
        Command("impl-latex-key_positions_flipped",
                ("check", "--impl", f"{ISSUE17}:key_positions_flipped", "--head-dim", "4",
                 "--latex", f"{SCRATCH}/impl.tex"), f"{SCRATCH}/impl.tex"),
        Command("impl-hf-llama",
                ("check", "--impl", "hf-transformers", "--model-type", "llama", "--json")),
        Command("impl-torchtune", ("check", "--impl", "torchtune", "--head-dim", "8", "--json")),
        Command("audit-default", ("audit", "--json", "--max-position", "262143")),
        Command("audit-hf-model",
                ("audit", "--impl", "hf", "--json", "--max-position", "1048575")),
        Command("audit-torchtune-fp16", ("audit", "--impl", "torchtune", "--dtype", "fp16",
                                         "--json", "--max-position", "262143")),
        Command("audit-rotary-embedding-torch-bf16",
                ("audit", "--impl", "rotary-embedding-torch", "--dtype", "bf16", "--json",
                 "--max-position", "262143")),
        Command("audit-compare-meta",
                ("audit", "--compare", "meta", "--max-position", "65535", "--json")),
        Command("audit-keras-hub-text", ("audit", "--impl", "keras-hub", "--max-position",
                                         "65535")),
        Command("survey", ("survey", "--json", "--max-position", "16383", "--workers", "1")),
        Command("survey-text", ("survey", "--max-position", "9000", "--workers", "1", "--impls",
                                "torchtune,timm,rotary-embedding-torch-xpos,hf")),
        # one-line errors that list or name the implementations
        Command("error-audit-impl", ("audit", "--impl", "nope")),
        Command("error-audit-extra", ("audit", "--impl", "keras-hub", "--rope-scaling", YARN)),
        Command("error-audit-fallback",
                ("audit", "--impl", "keras-hub", "--max-position", "10", "--json")),
        Command("error-check-impl", ("check", "--impl", "nope")),
        Command("error-check-config", ("check", "--impl", "torchtune", "--config", "x.json")),
        Command("error-survey-impls", ("survey", "--impls", "nope")),
        Command("error-audit-knob", ("audit", "--impl", "torchtune", "--tf32")),
    ]
    return listed


def _mask_times(value):
    if isinstance(value, dict):
        return {key: (MASK if key in TIME_KEYS else _mask_times(item))
                for key, item in value.items()}
    if isinstance(value, list):
        return [_mask_times(item) for item in value]
    return value


def _masked(text: str, root: Path, scratch: Path) -> str:
    text = text.replace(str(scratch), "<scratch>").replace(str(root), "<root>")
    try:
        document = json.loads(text)
    except ValueError:
        return SURVEY_TIME.sub(r"; <s> s on \1 process", TIME_IN_TEXT.sub(MASK, text))
    return json.dumps(_mask_times(document), indent=2, ensure_ascii=False) + "\n"


def _capture_one(command: Command, root: Path, scratch: Path, out: Path) -> str:
    argv = [part.replace(SCRATCH, str(scratch)) for part in command.argv]
    program = ["-c", command.script] if command.script else ["-m", "symrope"]
    shown = "python -c <script>" if command.script else "symrope"
    try:
        done = subprocess.run([sys.executable, *program, *argv], cwd=root,
                              env=_environment(root), capture_output=True, text=True,
                              timeout=900)
        status, stdout, stderr = f"exit {done.returncode}", done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        status, stdout, stderr = "timed out after 900 s", str(expired.stdout), str(expired.stderr)
    record = (f"$ {shown} {' '.join(command.argv)}\n{status}\n"
              f"--- stdout\n{_masked(stdout, root, scratch)}"
              f"--- stderr\n{_masked(stderr, root, scratch)}")
    (out / f"{command.name}.txt").write_text(record, encoding="utf-8")
    if command.writes:
        written = Path(command.writes.replace(SCRATCH, str(scratch)))
        files = sorted(written.iterdir()) if written.is_dir() else [written]
        for path in files:
            if path.is_file():
                text = _masked(path.read_text(encoding="utf-8"), root, scratch)
                (out / f"{command.name}.{path.name}").write_text(text, encoding="utf-8")
    return status


def capture(out: Path, root: Path, only: list[str] | None) -> int:
    """Run the checkout's commands (those matching ``only``), one record each under ``out``."""
    chosen = [command for command in commands(root)
              if not only or any(fnmatch.fnmatchcase(command.name, name) for name in only)]
    if not chosen:
        print(f"capture_outputs: error: no command matches {' '.join(only or [])}",
              file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        for command in chosen:
            begun = time.perf_counter()
            status = _capture_one(command, root, Path(scratch), out)
            print(f"{command.name:<40} {status:<10} {time.perf_counter() - begun:6.1f} s",
                  flush=True)
    print(f"{len(chosen)} commands in {time.perf_counter() - started:.0f} s")
    return 0


def compare(first: Path, second: Path) -> int:
    """Name the records and files that differ between two captures, with their first lines."""
    names = sorted({p.name for p in first.iterdir()} | {p.name for p in second.iterdir()})
    differing = []
    for name in names:
        a, b = first / name, second / name
        if not a.exists() or not b.exists():
            print(f"{name}: only in {first if a.exists() else second}")
            differing.append(name)
            continue
        if a.read_bytes() == b.read_bytes():
            continue
        differing.append(name)
        print(f"{name}: DIFFERS")
        diff = difflib.unified_diff(a.read_text(encoding="utf-8").splitlines(),
                                    b.read_text(encoding="utf-8").splitlines(),
                                    str(a), str(b), lineterm="", n=1)
        print("\n".join(list(diff)[:40]))
    print(f"{len(names)} files, {len(names) - len(differing)} identical, "
          f"{len(differing)} differ")
    return 1 if differing else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    actions = parser.add_subparsers(dest="action", required=True)
    capturing = actions.add_parser("capture", help="run every command, one record each")
    capturing.add_argument("out", type=Path)
    capturing.add_argument("--root", type=Path, default=HERE, help="the checkout to run")
    capturing.add_argument("--only", nargs="+", metavar="NAME",
                           help="the commands to run (names or shell patterns)")
    comparing = actions.add_parser("compare", help="compare two captures")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    arguments = parser.parse_args(argv)
    if arguments.action == "capture":
        return capture(arguments.out, arguments.root.resolve(), arguments.only)
    return compare(arguments.before, arguments.after)


if __name__ == "__main__":
    sys.exit(main())
