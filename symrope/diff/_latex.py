"""``symrope diff --latex FILE``: the diff report as a standalone LaTeX document."""

from __future__ import annotations

__all__ = ["diff_document"]

_PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage[utf8]{inputenc}
\usepackage[a4paper,margin=2.4cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage[hidelinks]{hyperref}
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.6ex plus 0.2ex}
\emergencystretch=3em
"""

_VERDICTS = {"same": "the same encoding",
             "same_up_to_basis": "the same encoding up to a change of basis",
             "different": "different encodings", "undecided": "undecided"}


def diff_document(report) -> str:
    """A LaTeX document of a :class:`~symrope.diff.DiffReport` (every text escaped).

    Examples
    ========

    >>> from symrope.diff import DiffReport
    >>> side = {"name": "a_{rope}", "library": None, "version": None, "layout": "", "hazards": [],
    ...         "notes": []}
    >>> tex = diff_document(DiffReport(side, side, "same"))
    >>> tex.startswith(r"\\documentclass") and r"a{\\ttfamily\\char95}" in tex
    True
    """
    from symrope.latex import escape_text

    def item(label: str, text: str) -> str:
        return f"\\item[{escape_text(label)}] {escape_text(text)}"

    lines = [_PREAMBLE, r"\begin{document}",
             r"\section*{Are they the same RoPE?}",
             f"\\textbf{{Verdict:}} {escape_text(_VERDICTS[report.verdict])} "
             f"(\\texttt{{{escape_text(report.verdict)}}}), decided exactly from the lifted "
             "code in " + escape_text(f"{report.seconds:.2f} s") + ".", r"\begin{description}"]
    for letter, side in (("A", report.a), ("B", report.b)):
        version = f" {side['version']}" if side.get("version") else ""
        lines.append(item(letter, f"{side['name']} ({side.get('library') or 'user code'}"
                                  f"{version}); {side['layout'] or 'no rotation pairs'}"))
    lines.append(r"\end{description}")
    entries = []
    if report.basis:
        entries.append(("Basis", report.basis["text"]))
    if report.rounding:
        entries.append(("Rounding", report.rounding["text"]))
    entries += [("Layout" if d.get("absorbed") else "Differs", d["text"])
                for d in report.differences]
    if report.verdict == "different":
        entries.append(("Responsible", (", ".join(report.responsible) or "none") +
                        f" ({report.responsible_why})"))
    if report.counterexample:
        entries.append(("Counterexample", report.counterexample["text"]))
    if report.invariant:
        entries.append(("For every basis", report.invariant["text"]))
    if report.reason:
        entries.append(("Reason", report.reason))
    if entries:
        lines.append(r"\begin{description}")
        lines += [item(label, text) for label, text in entries]
        lines.append(r"\end{description}")
    if report.audit and report.audit.get("table"):
        lines.append(r"\subsection*{Float outputs side by side}")
        lines.append(r"{\ttfamily\small")
        lines += [escape_text(line, breakable=False) + r"\\" for line in
                  report.audit["table"].splitlines()]
        lines.append("}")
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"
