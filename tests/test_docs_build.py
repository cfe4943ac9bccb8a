"""The documentation builds with warnings as errors (a copy of ``docs/``, in a temp dir).

Skipped where sphinx or myst-parser is missing, unless CI is set (then it fails). To stay
fast it renders the derivation pages of two theorems only (``SYMROPE_DOCS_THEOREMS``); the
full site, with every derivation, is built by ``.ci/run``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ci_support import missing

ROOT = Path(__file__).resolve().parent.parent
GENERATED = {"_build", "_generated", "derivations"}


def _require_docs_extra() -> None:
    absent = [m for m in ("sphinx", "myst_parser") if importlib.util.find_spec(m) is None]
    # imgmath renders every formula with latex and dvisvgm at build time
    absent += [tool for tool in ("latex", "dvisvgm") if shutil.which(tool) is None]
    if absent:
        missing(f"{', '.join(absent)} not installed",
                "install the 'docs' extra, texlive-latex-extra and dvisvgm")


def test_docs_build_with_warnings_as_errors(tmp_path):
    _require_docs_extra()
    from symrope.theorems import builtin_theorems

    source = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", source, ignore=lambda d, names: [n for n in names
                                                                     if n in GENERATED])
    some = list(builtin_theorems())[:2]
    env = {**os.environ, "SYMROPE_DOCS_THEOREMS": ",".join(some)}
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html",
                             str(source), str(tmp_path / "html")], capture_output=True,
                            text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    html = tmp_path / "html"
    for page in ["index", "installation", "tutorial", "check", "audit", "cli", "api",
                 "derivations/index"]:
        assert (html / f"{page}.html").exists(), page
    for name in some:  # generated pages exist and carry math rendered at build time
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in name).strip("_")
        page = (html / "derivations" / f"{stem}.html").read_text(encoding="utf-8")
        assert "Step 1" in page
        blocks = re.findall(r'<div class="math">\s*<p><img src="data:image/svg\+xml;base64,', page)
        assert len(blocks) >= 3, "display math is not rendered to embedded SVG"
        visible = re.sub(r'alt="[^"]*"', "", page)  # the TeX source stays as the images' alt text
        assert "$$" not in visible and "\\begin{" not in visible  # no raw TeX left for a browser
    for page in html.rglob("*.html"):  # nothing fetched from a CDN: readable offline
        text = page.read_text(encoding="utf-8")
        assert "https://cdn" not in text and "mathjax@" not in text, page.name
    cli = (html / "cli.html").read_text(encoding="utf-8")
    assert "usage: symrope latex" in cli and "usage: symrope prove" in cli
    _assert_wide_console_blocks_scroll(html, "audit")
    api = (html / "api.html").read_text(encoding="utf-8")
    assert "symrope.latex.theorem_document" in api and "symrope.verify" in api


def _assert_wide_console_blocks_scroll(html: Path, page: str) -> None:
    """A console block wider than the text column scrolls inside its box (the page's own
    stylesheet says so for ``pre``), rather than widening the page or being cut off."""
    text = (html / f"{page}.html").read_text(encoding="utf-8")
    widest = max(len(line) for block in re.findall(r"<pre>(.*?)</pre>", text, re.S)
                 for line in re.sub(r"<[^>]+>", "", block).splitlines())
    assert widest > 90, "the page has no wide console block to test with"
    assert "_static/custom.css" in text
    css = (html / "_static" / "custom.css").read_text(encoding="utf-8")
    rule = re.search(r"([^{}]*)\{([^}]*)\}", css[css.index("div.highlight"):])
    assert "pre" in rule.group(1) and "overflow-x: auto" in rule.group(2)
