"""Sphinx configuration: MyST Markdown, math rendered at build time, autodoc of symrope's docstrings.

Build with ``python -m sphinx -W -q -b html docs docs/_build/html`` (the ``docs`` extra).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))   # document the checkout being built
sys.path.insert(0, str(HERE / "_ext"))

import symrope  # noqa: E402

project = "symrope"
author = "the symrope authors"
copyright = "the symrope authors"
version = release = symrope.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",   # SymPy-style sections (Parameters / Returns / Examples, '=' rules)
    "sphinx.ext.imgmath",    # math rendered to SVG at build time: no CDN, readable offline
    "symrope_docs",          # derivation pages and CLI help, generated at build time
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "README.md", "Thumbs.db", ".DS_Store"]

# imgmath runs latex and dvisvgm (Debian: texlive-latex-extra for anyfontsize, dvisvgm) once per
# formula and embeds each SVG in its page: math needs no network and no JavaScript.
imgmath_image_format = "svg"
imgmath_embed = True
imgmath_font_size = 14
# Inline formulas sit on the text's baseline: the preview package (texlive-latex-extra) reports
# each formula's depth, and imgmath lowers the image by it.
imgmath_use_preview = True

myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"members": True}

html_theme = "alabaster"
html_title = f"symrope {release}"
html_static_path = ["_static"]
html_theme_options = {
    "description": "Prove what positional encodings do; audit how float RoPE drifts.",
    "fixed_sidebar": True,
}
