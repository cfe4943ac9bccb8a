"""Every command output pasted in README.md and docs/ is what the command prints (the docs check).

A *console block* is a fenced ``console``/``text`` block of a MyST page, or an indented block of
README.md, whose lines starting with ``$ `` are commands and whose other lines are the output
shown. Every command with output shown (``symrope ...``, ``echo $?``) is run with bash, the
commands of one block in one shell, in a scratch folder holding a copy of ``docs/`` and
``tests/data/`` (so relative paths resolve and nothing is written into the tree), and its
stdout + stderr is compared with the page: timings and library versions are masked, and an
output line that is just ``...`` stands for any number of lines. Commands with no output shown
(``pip install``, a command only named) are not run.

The full check runs in CI (``.ci/run``) and from the command line::

    python tests/test_docs_console.py            # check every page: exit 1 on a difference
    python tests/test_docs_console.py --update   # rewrite the pages with what the commands print
    python tests/test_docs_console.py --list     # the blocks and commands it covers
    python tests/test_docs_console.py README.md docs/audit.md   # some pages only

``--update`` keeps a ``...`` line where a page has one (the lines before it are replaced by the
output's first lines, those after it by its last) and copies back what the commands wrote under
``docs/_static`` (the audit plot). The pytest tests here check the machinery on small blocks;
the whole regeneration takes minutes (audits of a million positions, the survey, the zoo), so
it is not part of ``pytest``.
"""

from __future__ import annotations

import argparse
import difflib
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
_RUNNABLE = re.compile(r"^(symrope\b|echo \$\?$)")

# (pattern, replacement): what may differ from run to run and machine to machine
MASKS = [
    (re.compile(r"\b\d+(\.\d+)? ?s\b(?! on)"), "<time>"),                     # 2.21s, 0.18 s
    (re.compile(r" \(<time> wall\)"), ""),                                   # prove -j's wall time
    (re.compile(r"\b\d+ s on \d+ process(es)?\b"), "<time> on <n> processes"),  # survey header
    (re.compile(r"(?m)^(\S+ +(?:[PR?] ){3}[PR?] +(?:ok|MISMATCH)) +\d+\.\d+"), r"\1 <time>"),  # zoo
    (re.compile(r"\b(transformers|torch|torchtune|timm|rotary-embedding-torch|keras-hub|keras|"
                r"coqc|numpy|mpmath|ml_dtypes|Coq) (\d+\.[\w.+-]*\d)"), r"\1 <version>"),
    # a float printed to 17 digits (JSON): its last digits come from sums whose order depends on
    # the CPU's SIMD path (tests/test_audit_dispatch.py); ten are the same everywhere
    (re.compile(r"(\d\.\d{9})\d{3,}"), r"\1~"),
]
# Lines left out of the comparison: what the installed libraries warn about while a survey runs
# (a torch/torchao version mismatch on one machine, nothing on another): the header line and
# the indented lines under it.
_UNCOMPARED = "warnings while the rows ran"


def compared(lines: list[str]) -> list[str]:
    out, skipping = [], False
    for line in lines:
        if line.startswith(_UNCOMPARED):
            skipping = True
            continue
        if skipping and line.startswith("  "):
            continue
        skipping = False
        out.append(line)
    return out


def mask(text: str) -> str:
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    return text


@dataclass
class Command:
    text: str                      # the command, without "$ "
    expected: list[str]            # the output lines shown
    line: int                      # 1-based line of the command in the page


@dataclass
class Block:
    page: str
    start: int                     # 0-based index of the block's first content line
    stop: int                      # index after its last content line
    indent: str
    commands: list[Command] = field(default_factory=list)

    @property
    def runnable(self) -> list[Command]:
        return [c for c in self.commands if c.expected and _RUNNABLE.match(c.text)]


def parse(page: str, text: str) -> list[Block]:
    """The console blocks of one page (see the module docstring)."""
    lines = text.split("\n")
    blocks, index = [], 0
    while index < len(lines):
        line = lines[index]
        fence = re.fullmatch(r"```(console|text)\s*", line)
        if fence:
            end = index + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            block = _block(page, lines, index + 1, end, "")
            if block is not None:
                blocks.append(block)
            index = end + 1
            continue
        if page.endswith("README.md") and line.startswith("    $ ") and \
                (index == 0 or not lines[index - 1].startswith("    ")):
            end = index
            while end < len(lines) and (lines[end].startswith("    ") or (
                    lines[end] == "" and end + 1 < len(lines) and lines[end + 1].startswith("    "))):
                end += 1
            block = _block(page, lines, index, end, "    ")
            if block is not None:
                blocks.append(block)
            index = end
            continue
        index += 1
    return blocks


def _block(page, lines, start, stop, indent) -> Block | None:
    content = [line[len(indent):] if line.startswith(indent) else line for line in lines[start:stop]]
    if not content or not content[0].startswith("$ "):
        return None
    block = Block(page, start, stop, indent)
    for offset, line in enumerate(content):
        if line.startswith("$ "):
            block.commands.append(Command(line[2:], [], start + offset + 1))
        else:
            block.commands[-1].expected.append(line)
    for command in block.commands:         # a blank line after an output is the page's spacing
        while command.expected and command.expected[-1] == "":
            command.expected.pop()
    return block


def matches(expected: list[str], got: list[str]) -> bool:
    """Whether ``got`` is ``expected`` after masking, a ``...`` line standing for any lines."""
    expected, got = compared(expected), compared(got)
    pattern = "".join(r"(?:.*\n)*?" if line.strip() == "..." else re.escape(mask(line)) + r"\n"
                        for line in expected)
    return re.fullmatch(pattern, "".join(mask(line) + "\n" for line in got)) is not None


def updated(expected: list[str], got: list[str]) -> list[str]:
    """The output to write back: ``got``, keeping the page's ``...`` lines.

    The shown lines between two ``...`` marks are a *segment*; the first one is anchored at the
    output's start (unless the page starts with ``...``), the last at its end, and each other
    segment at the next output line with the same first word as its own first line (a band's
    range, ``safe``, ``why:``). Each segment is replaced by as many output lines from there;
    when a segment cannot be placed, the whole output is written (and the marks dropped).
    """
    if not any(line.strip() == "..." for line in expected):
        return list(got)
    segments, current, marks = [], [], []
    for line in expected:
        if line.strip() == "...":
            segments.append(current)
            marks.append(line)              # as the page writes it (indented or not)
            current = []
        else:
            current.append(line)
    segments.append(current)
    out, cursor = [], 0
    for number, segment in enumerate(segments):
        if number:
            out.append(marks[number - 1])
        if not segment:
            continue
        if number == 0:
            start = 0
        elif number == len(segments) - 1:
            start = len(got) - len(segment)
        else:
            word = _first_word(segment[0])
            start = next((i for i in range(cursor, len(got)) if _first_word(got[i]) == word), None)
        if start is None or start < cursor or start + len(segment) > len(got):
            return list(got)
        out += got[start:start + len(segment)]
        cursor = start + len(segment)
    return out


def _first_word(line: str) -> str:
    words = mask(line).split()
    return words[0] if words else ""


def run_block(block: Block, folder: Path, timeout: float = 1800) -> list[list[str]]:
    """The output of each runnable command of ``block``, run in one bash in ``folder``."""
    commands = block.runnable
    script = ["set +e"]
    for number, command in enumerate(commands):
        script.append(f"{command.text} 2>&1\n__rc=$?\necho '@@symrope-docs {number}@@'\n(exit $__rc)")
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100")
    env.pop("CI", None)
    result = subprocess.run(["bash", "-c", "\n".join(script)], capture_output=True, text=True,
                            cwd=folder, env=env, timeout=timeout)
    outputs = re.split(r"@@symrope-docs \d+@@\n", result.stdout)[:len(commands)]
    return [output.rstrip("\n").split("\n") if output.strip() else [] for output in outputs]


def scratch_folder() -> Path:
    """A temporary folder with copies of docs/ and tests/data/ (what the commands read)."""
    folder = Path(tempfile.mkdtemp(prefix="symrope-docs-"))
    shutil.copytree(ROOT / "docs", folder / "docs",
                    ignore=shutil.ignore_patterns("_build", "_generated", "derivations"))
    shutil.copytree(ROOT / "tests" / "data", folder / "tests" / "data")
    return folder


def check_pages(pages: list[str], update: bool = False, stream=sys.stdout) -> tuple[int, int]:
    """(blocks run, blocks that differ); with ``update`` the pages are rewritten."""
    run = differ = 0
    for page in pages:
        path = ROOT / page
        text = path.read_text(encoding="utf-8")
        blocks = [b for b in parse(page, text) if b.runnable]
        if not blocks:
            continue
        lines = text.split("\n")
        folder = scratch_folder()
        static_before = {p.name: p.read_bytes() for p in (folder / "docs" / "_static").iterdir()
                         if p.is_file()}
        try:
            for block in reversed(blocks):     # from the end: line numbers above stay valid
                outputs = run_block(block, folder)
                run += 1
                new_content, changed = [], False
                runnable = {id(c): out for c, out in zip(block.runnable, outputs)}
                for command in block.commands:
                    new_content.append(f"$ {command.text}")
                    if id(command) in runnable:
                        got = runnable[id(command)]
                        if not matches(command.expected, got):
                            changed = True
                            _report(page, command, got, stream)
                        new_content += updated(command.expected, got) if update else command.expected
                    else:
                        new_content += command.expected
                differ += changed
                if update and changed:
                    blanks = _trailing_blanks(lines[block.start:block.stop])
                    lines[block.start:block.stop] = [
                        (block.indent + line) if line else "" for line in new_content] + blanks
            if update:
                path.write_text("\n".join(lines), encoding="utf-8")
                for written in (folder / "docs" / "_static").iterdir():
                    if written.is_file() and static_before.get(written.name) != written.read_bytes():
                        target = ROOT / "docs" / "_static" / written.name
                        if not target.exists() or not filecmp.cmp(written, target, shallow=False):
                            shutil.copyfile(written, target)
                            print(f"{target.relative_to(ROOT)}: rewritten by the command", file=stream)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return run, differ


def _trailing_blanks(old: list[str]) -> list[str]:
    count = 0
    for line in reversed(old):
        if line.strip():
            break
        count += 1
    return [""] * count


def _report(page: str, command: Command, got: list[str], stream) -> None:
    print(f"{page}:{command.line}: $ {command.text}", file=stream)
    diff = difflib.unified_diff([mask(line) for line in command.expected],
                                [mask(line) for line in got], "page", "printed", lineterm="", n=1)
    for line in list(diff)[2:40]:
        print(f"    {line}", file=stream)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help="pages to check (default: README.md and docs/*.md)")
    parser.add_argument("--update", action="store_true", help="rewrite the pages' outputs")
    parser.add_argument("--list", action="store_true", help="list the blocks and commands covered")
    args = parser.parse_args(argv)
    pages = args.pages or PAGES
    if args.list:
        total = 0
        for page in pages:
            for block in parse(page, (ROOT / page).read_text(encoding="utf-8")):
                for command in block.runnable:
                    total += 1
                    print(f"{page}:{command.line}: $ {command.text}")
        blocks = sum(1 for page in pages for b in parse(page, (ROOT / page).read_text(encoding="utf-8"))
                     if b.runnable)
        print(f"{blocks} console blocks, {total} commands with output")
        return 0
    run, differ = check_pages(pages, update=args.update)
    verb = "rewritten" if args.update else "differ"
    print(f"{run} console blocks regenerated; {differ} {verb}")
    return 1 if differ and not args.update else 0


# --- tests of the machinery (the full check is main(), run by .ci/run) ---------------------------

def test_blocks_are_found_in_fences_and_in_the_readme_indented_blocks():
    page = "\n".join(["text", "```console", "$ symrope list --json", "{}", "$ echo $?", "0", "```",
                      "", "```console", "$ pip install symrope", "```"])
    (block,) = [b for b in parse("docs/x.md", page) if b.runnable]
    assert [c.text for c in block.runnable] == ["symrope list --json", "echo $?"]
    readme = "\n".join(["Intro:", "", "    $ symrope --version", "    0.1.0", "", "    later", "",
                        "Text."])
    (block,) = parse("README.md", readme)
    assert block.commands[0].expected == ["0.1.0", "", "later"] and block.indent == "    "


def test_masks_and_elisions():
    assert mask("rope_relative  proved  7  1    2.21s") == mask("rope_relative  proved  7  1    0.40s")
    assert mask("2/2 theorems proved in 4.88 s (2.70 s wall)") == "2/2 theorems proved in <time>"
    assert mask("transformers 5.24.0 LlamaRotaryEmbedding (torch 2.14.1+cu130)") == \
        "transformers <version> LlamaRotaryEmbedding (torch <version>)"
    assert mask("rope  P P P P   ok            2.78  4 rotation") == "rope  P P P P   ok <time>  4 rotation"
    assert mask("0.14952138252556324") == mask("0.14952138252556391") == "0.149521382~"
    assert matches(["a", "...", "z"], ["a", "b", "c", "z"]) and matches(["a", "...", "z"], ["a", "z"])
    assert not matches(["a", "...", "z"], ["a", "b"]) and not matches(["1.98e-03"], ["1.97e-03"])
    assert updated(["a", "...", "z"], ["A", "b", "c", "Z"]) == ["A", "...", "Z"]
    # a middle segment is placed at the output line with its first word
    page = ["title 1", "...", "65536..131071 1.0e-02", "...", "safe 3"]
    printed = ["title 2", "0..1023 x", "65536..131071 9.5e-03", "more", "safe 4"]
    assert updated(page, printed) == ["title 2", "...", "65536..131071 9.5e-03", "...", "safe 4"]
    assert matches(page[:1] + ["..."] + page[2:3] + ["..."], printed) is False


def test_a_page_is_checked_and_updated_from_what_the_command_prints(tmp_path, monkeypatch):
    import symrope.cli

    page = tmp_path / "page.md"
    page.write_text("```console\n$ symrope --version\n0.0.0-stale\n$ symrope frobnicate\n"
                    "symrope: error: unknown command 'frobnicate' (one of: ...)\n$ echo $?\n2\n```\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "docs" / "_static").mkdir(parents=True)
    (tmp_path / "tests" / "data").mkdir(parents=True)
    shown = []

    class Stream:
        def write(self, text):
            shown.append(text)

    assert check_pages(["page.md"], stream=Stream()) == (1, 1)
    assert "0.0.0-stale" in "".join(shown)
    assert check_pages(["page.md"], update=True, stream=Stream()) == (1, 1)
    text = page.read_text()
    assert f"$ symrope --version\n{symrope.cli.__version__}\n" in text
    assert "(one of: prove," in text and "$ echo $?\n2\n" in text      # ... kept no line: 1 mark
    assert check_pages(["page.md"], stream=Stream()) == (1, 0)


def test_every_page_with_output_is_covered_and_the_count_is_stated():
    blocks = [b for page in PAGES for b in parse(page, (ROOT / page).read_text(encoding="utf-8"))
              if b.runnable]
    assert {b.page for b in blocks} >= {"README.md", "docs/audit.md", "docs/audit-real.md",
                                        "docs/tutorial.md"}
    assert len(blocks) >= 15


if __name__ == "__main__":
    raise SystemExit(main())
