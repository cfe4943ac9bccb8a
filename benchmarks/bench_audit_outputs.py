"""Are the command line's outputs byte-identical between two checkouts (timings masked)?

A redesign that promises "behaviour unchanged" (issue 21: one registry of implementations)
is held to it here: the same commands run through each checkout's ``python -m symrope`` and
their stdout, stderr and exit codes are compared byte for byte, after masking what is
expected to differ from run to run (wall-clock ``seconds`` in the JSON documents, the checkout's
own path).

Usage (from the repository root)::

    python benchmarks/bench_audit_outputs.py capture DIR [--checkout PATH] [--only NAME ...]
    python benchmarks/bench_audit_outputs.py compare DIR_A DIR_B

``capture`` runs every command of ``COMMANDS`` (the 5 audits, ``check --zoo``, the lift of
transformers' Llama class, a small survey, a few one-line errors and every ``--help``) with
``PYTHONPATH`` set to the checkout (default: this one), one file per command; ``compare``
names the commands whose output differs and prints the first differing lines. To compare
against an older commit, extract it first: ``git archive 40ac0fe | tar -x -C /tmp/at-main``.

The audits and the survey take a few minutes on one core of the shared 2-core machine (the
positions are chosen to keep each under a minute); ``--only`` runs a subset by name.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: name -> argv after ``python -m symrope``
COMMANDS: dict[str, list[str]] = {
    "audit-default": ["audit", "--json", "--max-position", "262143"],
    "audit-hf-model": ["audit", "--impl", "hf", "--json", "--max-position", "1048575"],
    "audit-torchtune-fp16": ["audit", "--impl", "torchtune", "--dtype", "fp16", "--json",
                             "--max-position", "262143"],
    "audit-rotary-embedding-torch-bf16": ["audit", "--impl", "rotary-embedding-torch",
                                          "--dtype", "bf16", "--json", "--max-position",
                                          "262143"],
    "audit-compare-meta": ["audit", "--compare", "meta", "--max-position", "65535", "--json"],
    "audit-keras-hub-text": ["audit", "--impl", "keras-hub", "--max-position", "65535"],
    "check-zoo": ["check", "--zoo", "--json"],
    "check-hf-llama": ["check", "--impl", "hf-transformers", "--model-type", "llama", "--json"],
    "check-torchtune": ["check", "--impl", "torchtune", "--head-dim", "8", "--json"],
    "survey": ["survey", "--json", "--max-position", "16383", "--workers", "1"],
    "survey-text": ["survey", "--max-position", "9000", "--workers", "1",
                    "--impls", "torchtune,timm,rotary-embedding-torch-xpos,hf"],
    # one-line errors that list or name the implementations
    "error-audit-impl": ["audit", "--impl", "nope"],
    "error-audit-extra": ["audit", "--impl", "keras-hub", "--rope-scaling",
                          '{"rope_type": "yarn", "factor": 4, '
                          '"original_max_position_embeddings": 4096}'],
    "error-audit-fallback": ["audit", "--impl", "keras-hub", "--max-position", "10", "--json"],
    "error-check-impl": ["check", "--impl", "nope"],
    "error-check-config": ["check", "--impl", "torchtune", "--config", "x.json"],
    "error-survey-impls": ["survey", "--impls", "nope"],
    "error-audit-knob": ["audit", "--impl", "torchtune", "--tf32"],
    "help": ["--help"],
    **{f"help-{name}": [name, "--help"] for name in
       ("prove", "list", "check", "latex", "audit", "survey", "export")},
}

#: keys whose values are wall-clock times, masked in every JSON document
_TIMES = {"seconds", "setup_seconds"}


def _mask(value):
    if isinstance(value, dict):
        return {k: ("<seconds>" if k in _TIMES else _mask(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return value


def _masked(text: str, checkout: Path) -> str:
    text = text.replace(str(checkout), "<checkout>")
    try:
        document = json.loads(text)
    except ValueError:
        # text output: times in the survey header and the check table's seconds column
        text = re.sub(r"; \d+ s on (\d+) process", r"; <s> s on \1 process", text)
        return text
    return json.dumps(_mask(document), indent=2, sort_keys=False) + "\n"


def capture(directory: Path, checkout: Path, only: list[str] | None) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    environment = dict(os.environ, PYTHONPATH=str(checkout), COLUMNS="100", LINES="40",
                       CI="true")
    environment.pop("SYMROPE_PROGRESS", None)
    for name, argv in COMMANDS.items():
        if only and name not in only:
            continue
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "symrope", *argv], cwd=checkout,
                              env=environment, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        record = (f"$ symrope {' '.join(argv)}\nexit {done.returncode}\n--- stdout\n"
                  f"{_masked(done.stdout, checkout)}--- stderr\n"
                  f"{_masked(done.stderr, checkout)}")
        (directory / f"{name}.txt").write_text(record, encoding="utf-8")
        print(f"{name:<36} exit {done.returncode}  {seconds:6.1f} s", flush=True)


def compare(first: Path, second: Path) -> int:
    names = sorted({p.name for p in first.glob("*.txt")} | {p.name for p in second.glob("*.txt")})
    differing = 0
    for name in names:
        a, b = first / name, second / name
        if not a.exists() or not b.exists():
            print(f"{name}: only in {first if a.exists() else second}")
            differing += 1
            continue
        left, right = a.read_text(encoding="utf-8"), b.read_text(encoding="utf-8")
        if left == right:
            print(f"{name}: identical ({len(left.encode())} bytes)")
            continue
        differing += 1
        print(f"{name}: DIFFERS")
        diff = difflib.unified_diff(left.splitlines(), right.splitlines(), str(a), str(b),
                                    lineterm="", n=1)
        print("\n".join(list(diff)[:40]))
    print(f"{len(names) - differing} of {len(names)} identical")
    return 1 if differing else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    grab = commands.add_parser("capture", help="run every command, one file each")
    grab.add_argument("directory", type=Path)
    grab.add_argument("--checkout", type=Path, default=ROOT)
    grab.add_argument("--only", nargs="+", metavar="NAME", choices=sorted(COMMANDS))
    versus = commands.add_parser("compare", help="compare two captures")
    versus.add_argument("first", type=Path)
    versus.add_argument("second", type=Path)
    args = parser.parse_args(argv)
    if args.command == "capture":
        capture(args.directory, args.checkout.resolve(), args.only)
        return 0
    return compare(args.first, args.second)


if __name__ == "__main__":
    sys.exit(main())
