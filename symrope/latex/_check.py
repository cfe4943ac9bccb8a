"""A standalone document for an encoding check (``symrope check ... --latex FILE``).

It renders the checker report's ``to_dict()`` and nothing else, so it keeps working while the
checker grows fields: known keys get their own sections, unknown ones are listed at the end,
and every value is shown as escaped text.
"""

from __future__ import annotations

from symrope.latex._escape import escape_name, escape_text, pdf_string
from symrope.latex._document import PREAMBLE, _colophon

__all__ = ["check_report_document"]

_ASSUMPTIONS = [("linearity", "Linearity: F(s), G(t) are matrices"),
                ("translation_invariance", "Translation invariance: F(s)^T G(t) = H(t - s)"),
                ("identity_at_zero", "Identity at zero offset: H(0) = I"),
                ("continuity", "Continuity of H in a real offset")]
_KNOWN = {"encoding", "assumptions", "generator", "classification"}
_MAX_ITEMS = 24
_MAX_DEPTH = 6


def _value_tex(value, depth: int = 0) -> str:
    """Any JSON-like value as text-mode LaTeX (nested dicts and lists become lists)."""
    if value is None:
        return r"\textemdash{}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return escape_text(repr(value) if isinstance(value, float) else str(value))
    if isinstance(value, str):
        return escape_text(value)
    if depth >= _MAX_DEPTH:
        return escape_text(str(value)[:300])
    if isinstance(value, dict):
        if not value:
            return r"\textemdash{}"
        items = list(value.items())
        lines = [rf"  \item[] \texttt{{{escape_text(str(k))}}}: {_value_tex(v, depth + 1)}"
                 for k, v in items[:_MAX_ITEMS]]
        if len(items) > _MAX_ITEMS:
            lines.append(rf"  \item[] \dots\ ({len(items) - _MAX_ITEMS} more)")
        return "\n" + r"\begin{itemize}" + "\n" + "\n".join(lines) + "\n" + r"\end{itemize}" + "\n"
    if isinstance(value, (list, tuple)):
        if not value:
            return r"\textemdash{}"
        if all(not isinstance(v, (dict, list, tuple)) for v in value):
            shown = ", ".join(_value_tex(v, depth + 1) for v in value[:_MAX_ITEMS])
            more = f", \\dots\\ ({len(value) - _MAX_ITEMS} more)" if len(value) > _MAX_ITEMS else ""
            return shown + more
        lines = [rf"  \item {_value_tex(v, depth + 1)}" for v in value[:_MAX_ITEMS]]
        return "\n" + r"\begin{itemize}" + "\n" + "\n".join(lines) + "\n" + r"\end{itemize}" + "\n"
    return escape_text(str(value))


def _assumption_rows(assumptions) -> str:
    if not isinstance(assumptions, dict):
        return _value_tex(assumptions) + "\n"
    out = []
    labels = dict(_ASSUMPTIONS)
    names = [key for key, _ in _ASSUMPTIONS] + [k for k in assumptions if k not in labels]
    for key in names:
        if key not in assumptions:
            continue
        entry = assumptions[key]
        if not isinstance(entry, dict):
            entry = {"verdict": entry}
        label = escape_text(labels.get(key, key))
        out.append(rf"\paragraph{{{label}.}} Verdict: \textbf{{{_value_tex(entry.get('verdict'))}}}.")
        if entry.get("evidence") not in (None, ""):
            out.append(r"{\raggedright Evidence: " + _value_tex(entry["evidence"]) + r"\par}")
        counterexample = entry.get("counterexample")
        if counterexample not in (None, {}, []):
            if isinstance(counterexample, dict) and "summary" in counterexample:
                out.append(r"{\raggedright Counterexample: " +
                           _value_tex(counterexample["summary"]) + r"\par}")
                counterexample = {k: v for k, v in counterexample.items() if k != "summary"}
            else:
                out.append("Counterexample:")
            if counterexample:
                out.append(r"{\small\raggedright " + _value_tex(counterexample) + r"\par}")
        rest = {k: v for k, v in entry.items() if k not in ("verdict", "counterexample",
                                                              "evidence")}
        if rest:
            out.append(r"{\small\raggedright " + _value_tex(rest) + r"\par}")
        out.append("")
    return "\n".join(out) + "\n"


def check_report_document(check_report) -> str:
    r"""A standalone ``.tex`` document for an encoding check: verdicts and classification.

    Parameters
    ==========

    check_report : object with ``to_dict()``, or dict
        The checker's report; read through its ``to_dict()`` keys ``encoding``,
        ``assumptions`` (``linearity``, ``translation_invariance``, ``identity_at_zero``,
        ``continuity``, each ``{verdict, counterexample}``), ``generator`` and
        ``classification``. Missing keys are skipped; unknown keys are listed at the end.

    Examples
    ========

    >>> from symrope.latex import check_report_document
    >>> tex = check_report_document({
    ...     "encoding": "my_rope$v2",
    ...     "assumptions": {"linearity": {"verdict": "proved", "counterexample": None},
    ...                     "translation_invariance": {"verdict": "refuted",
    ...                                                "counterexample": {"s": "1", "t": "2"}}},
    ...     "generator": "[[0, -1], [1, 0]]",
    ...     "classification": "rotation (skew-symmetric generator)"})
    >>> r"my{\ttfamily\char95}rope{\ttfamily\char36}v2" in tex
    True
    """
    data = check_report.to_dict() if hasattr(check_report, "to_dict") else dict(check_report)
    encoding = str(data.get("encoding", "unnamed encoding"))
    title = escape_name(encoding)
    out = [PREAMBLE, rf"\hypersetup{{pdftitle={{symrope check: {pdf_string(encoding)}}}}}",
           r"\begin{document}",
           rf"\section*{{Encoding check: {title}}}",
           r"The encoding was checked against the four assumptions under which relative "
           r"positional encodings form a one-parameter group $H(\delta) = e^{\delta X}$.", ""]
    if "assumptions" in data:
        out += [r"\subsection*{Assumptions}", _assumption_rows(data["assumptions"])]
    if "generator" in data:
        out += [r"\subsection*{Generator}", _value_tex(data["generator"]), ""]
    if "classification" in data:
        out += [r"\subsection*{Classification}", _value_tex(data["classification"]), ""]
    extra = {k: v for k, v in data.items() if k not in _KNOWN}
    if extra:
        out += [r"\subsection*{Further details}", _value_tex(extra), ""]
    out += [_colophon(), r"\end{document}", ""]
    return "\n".join(out)
