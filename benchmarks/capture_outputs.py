"""Capture symrope's machine outputs of a checkout, timings masked, to compare two checkouts byte
for byte (issue 21: a redesign that changes no output).

    python benchmarks/capture_outputs.py capture DIR [--root CHECKOUT]
    python benchmarks/capture_outputs.py compare BEFORE_DIR AFTER_DIR

``capture`` runs the checkout's own command line (``python -m symrope`` with ``PYTHONPATH`` set to
the checkout) and writes one file per output: ``symrope prove --json`` (every theorem),
``symrope check --zoo --json``, ``symrope check NAME --json`` for every zoo entry, a few
``--impl`` checks of real torch code (``docs/examples/torch_rope.py:rope_draft`` and
``tests/data/lift/issue17.py`` functions), the check reports' LaTeX (``--latex``), ``symrope
latex --all`` (every ``.tex``), each theorem's Markdown derivation (the docs site's pages),
``symrope list``, ``symrope check --list`` and every ``--help``. Wall-clock times are the only
thing masked: JSON values under a ``"seconds"`` key and ``N.NN s`` in LaTeX and Markdown. Exit
codes are kept (``*.rc``). ``compare`` lists the files that differ and exits 1 if any do.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ISSUE17 = "tests/data/lift/issue17.py"
LIFTED = ("interpolation_long", "key_positions_flipped", "positions_bf16", "rope_complex_conj")
CHECK_LATEX = ("floor_bucketed", "liere_so3", "identical_damping", "rope")
TIME_IN_TEXT = re.compile(r"\b\d+\\?\.\d+(\\,| )s\b")  # Markdown escapes the point: 0\.42 s
MASK = "<seconds>"


def _mask_seconds(value):
    if isinstance(value, dict):
        return {key: (MASK if key == "seconds" else _mask_seconds(item))
                for key, item in value.items()}
    if isinstance(value, list):
        return [_mask_seconds(item) for item in value]
    return value


def _mask_json(text: str) -> str:
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        return text
    return json.dumps(_mask_seconds(document), indent=2, ensure_ascii=False) + "\n"


def _mask_text(text: str) -> str:
    return TIME_IN_TEXT.sub(MASK, text)


def _run(root: Path, out: Path, name: str, argv: list[str], *, json_output: bool) -> None:
    environment = dict(os.environ, PYTHONPATH=str(root), CI="true")
    done = subprocess.run([sys.executable, "-m", "symrope", *argv], cwd=root, env=environment,
                          capture_output=True, text=True, timeout=900)
    stdout = _mask_json(done.stdout) if json_output else _mask_text(done.stdout)
    (out / f"{name}.out").write_text(stdout, encoding="utf-8")
    (out / f"{name}.err").write_text(_mask_text(done.stderr), encoding="utf-8")
    (out / f"{name}.rc").write_text(f"{done.returncode}\n", encoding="utf-8")
    print(f"{name}: exit {done.returncode}", flush=True)


def _zoo_names(root: Path) -> list[str]:
    environment = dict(os.environ, PYTHONPATH=str(root))
    listing = subprocess.run([sys.executable, "-m", "symrope", "check", "--list"], cwd=root,
                             env=environment, capture_output=True, text=True, check=True).stdout
    names = []
    for line in listing.splitlines()[1:]:
        if not line.strip():
            break
        names.append(line.split()[0])
    return names


def _commands(root: Path) -> list[str]:
    environment = dict(os.environ, PYTHONPATH=str(root))
    code = "from symrope.cli import COMMANDS; print(' '.join(COMMANDS))"
    return subprocess.run([sys.executable, "-c", code], cwd=root, env=environment,
                          capture_output=True, text=True, check=True).stdout.split()


MARKDOWN = """
import sys
from pathlib import Path
from symrope.latex import report_markdown
from symrope.theorems import builtin_theorems
out = Path(sys.argv[1])
for name, builder in builtin_theorems().items():
    report = builder.build().prove()
    (out / f"markdown-{name}.md").write_text(report_markdown(report), encoding="utf-8")
"""


def capture(root: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    _run(root, out, "help", ["--help"], json_output=False)
    for command in _commands(root):
        _run(root, out, f"help-{command}", [command, "--help"], json_output=False)
    _run(root, out, "list", ["list"], json_output=False)
    _run(root, out, "check-list", ["check", "--list"], json_output=False)
    _run(root, out, "prove", ["prove", "--json"], json_output=True)
    _run(root, out, "check-zoo", ["check", "--zoo", "--json"], json_output=True)
    for name in _zoo_names(root):
        _run(root, out, f"check-{name}", ["check", name, "--json"], json_output=True)
    _run(root, out, "impl-rope_draft",
         ["check", "--impl", "docs/examples/torch_rope.py:rope_draft", "--head-dim", "4",
          "--json"], json_output=True)
    for function in LIFTED:
        _run(root, out, f"impl-{function}",
             ["check", "--impl", f"{ISSUE17}:{function}", "--head-dim", "4", "--json"],
             json_output=True)
    with tempfile.TemporaryDirectory() as scratch:
        scratch_path = Path(scratch)
        for name in CHECK_LATEX:
            tex = scratch_path / f"{name}.tex"
            _run(root, out, f"check-latex-{name}", ["check", name, "--latex", str(tex)],
                 json_output=False)
            (out / f"check-latex-{name}.tex").write_text(_mask_text(tex.read_text()))
        tex = scratch_path / "impl.tex"
        _run(root, out, "impl-latex-key_positions_flipped",
             ["check", "--impl", f"{ISSUE17}:key_positions_flipped", "--head-dim", "4",
              "--latex", str(tex)], json_output=False)
        (out / "impl-latex-key_positions_flipped.tex").write_text(_mask_text(tex.read_text()))
        latex_dir = scratch_path / "latex"
        _run(root, out, "latex-all", ["latex", "--all", "--out", str(latex_dir)],
             json_output=False)
        for tex in sorted(latex_dir.glob("*.tex")):
            text = _mask_text(tex.read_text(encoding="utf-8"))
            (out / f"latex-{tex.name}").write_text(text, encoding="utf-8")
        markdown_dir = scratch_path / "markdown"
        markdown_dir.mkdir()
        environment = dict(os.environ, PYTHONPATH=str(root), CI="true")
        subprocess.run([sys.executable, "-c", MARKDOWN, str(markdown_dir)], cwd=root,
                       env=environment, check=True)
        for page in sorted(markdown_dir.glob("*.md")):
            (out / page.name).write_text(_mask_text(page.read_text(encoding="utf-8")),
                                         encoding="utf-8")
    # the outputs name the checkout they ran in only through paths given relative to it
    # nor the scratch folder the files were written to
    for path in out.iterdir():
        text = path.read_text(encoding="utf-8")
        masked = text.replace(str(root), "<root>").replace(scratch, "<scratch>")
        if masked != text:
            path.write_text(masked, encoding="utf-8")


def compare(before: Path, after: Path) -> int:
    names = sorted({p.name for p in before.iterdir()} | {p.name for p in after.iterdir()})
    differing = []
    for name in names:
        old, new = before / name, after / name
        if not (old.exists() and new.exists()) or old.read_bytes() != new.read_bytes():
            differing.append(name)
    print(f"{len(names)} files, {len(names) - len(differing)} identical, "
          f"{len(differing)} differ")
    for name in differing:
        print(f"  differs: {name}")
    return 1 if differing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="action", required=True)
    capturing = commands.add_parser("capture")
    capturing.add_argument("out", type=Path)
    capturing.add_argument("--root", type=Path, default=HERE)
    comparing = commands.add_parser("compare")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    arguments = parser.parse_args()
    if arguments.action == "capture":
        capture(arguments.root.resolve(), arguments.out)
        return 0
    return compare(arguments.before, arguments.after)


if __name__ == "__main__":
    sys.exit(main())
