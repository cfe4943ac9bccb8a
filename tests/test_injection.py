"""Nothing a user passes is executed: a payload through every option and config field.

The options are not listed by hand: each sub-command's own argparse parser is captured (every
command builds a :class:`symrope.cli._common.ArgumentParser`) and every action that takes a
value is fed each payload, so an option added later is covered without touching this file. The
config fields are those symrope reads (``CONFIG_FIELDS``, ``ROPE_FIELDS``), through every
command that reads a config. Each run must end in one line on stderr and exit 2; the marker
file the payloads would create must never exist; no string containing a payload may reach
SymPy's parser (which evaluates Python).
"""

from __future__ import annotations

import argparse
import json
import shlex

import pytest

from audit_libraries import require_library
from symrope.cli import COMMANDS, main
from symrope.cli._common import ArgumentParser
from symrope.schedules import CONFIG_FIELDS, ROPE_FIELDS


class _Captured(Exception):
    def __init__(self, parser):
        super().__init__()
        self.parser = parser


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Every sub-command's parser, captured as its main asks it to parse."""
    found = {}
    original = ArgumentParser.parse_known_args

    def capture(self, *args, **kwargs):
        raise _Captured(self)

    ArgumentParser.parse_known_args = capture
    try:
        for name in COMMANDS:
            try:
                main([name])
            except _Captured as captured:
                found[name] = captured.parser
    finally:
        ArgumentParser.parse_known_args = original
    return found


PARSERS = _parsers()

# What each command needs besides the option under test for the option to be read at all.
_BASE = {"export": ["coq", "--out", "{tmp}/out"]}
_CONTEXT = {("audit", "--model-type"): ["--impl", "hf-transformers"],
            ("audit", "--fix"): ["--impl", "hf-transformers"],
            ("check", "--config"): ["--impl", "hf-transformers"],
            ("check", "--latex"): ["transpose_mistake"],
            ("check", "--head-dim"): ["--impl", "torchtune"],
            ("check", "--position-dims"): ["--impl", "docs/examples/torch_rope.py:rope"]}
# Options that name a file or folder to write: a payload there is a legitimate name, so the
# payload goes under a plain file, where no folder can be made (the command must say so).
_WRITES = {"--out", "--latex", "--plot"}


def _option_cases() -> list[tuple[str, str, list[str]]]:
    """(command, option, argv template) for every action that takes a value."""
    cases = []
    for command, parser in PARSERS.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction) or action.nargs == 0:
                continue
            flag = action.option_strings[0] if action.option_strings else action.dest
            base = list(_BASE.get(command, []))
            context = _CONTEXT.get((command, flag), [])
            value = "{tmp}/file/{payload}" if flag in _WRITES else "{payload}"
            if not action.option_strings:      # a positional: put the payload in its place
                if command == "export" and action.dest == "system":
                    base = base[1:]
                cases.append((command, flag, [*base, *context, value]))
            elif action.metavar == "NAME=VALUE":
                cases.append((command, flag, [*base, *context, flag, "theta=" + value]))
                cases.append((command, flag + " (bare)", [*base, *context, flag, value]))
            else:
                cases.append((command, flag, [*base, *context, flag, value]))
    return cases


OPTION_CASES = _option_cases()

PAYLOADS = {
    "python": "__import__('os').system('touch {marker}')",
    "exec": "exec(\"open('{marker}', 'w').close()\")",
    "shell": "$(touch {marker}); touch {marker} `touch {marker}`",
}


@pytest.fixture
def guarded(tmp_path, monkeypatch):
    """A scratch folder (the cwd), the marker path, and a record of what SymPy was asked to
    parse (``sympify`` of a string calls ``parse_expr``, which evaluates Python)."""
    import sympy.parsing.sympy_parser as sympy_parser

    parsed = []
    original = sympy_parser.parse_expr

    def recording(text, *args, **kwargs):
        parsed.append(text)
        return original(text, *args, **kwargs)

    monkeypatch.setattr(sympy_parser, "parse_expr", recording)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("a plain file: nothing can be created under it\n")
    return tmp_path, tmp_path / "marker", parsed


def _run(capsys, argv):
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.err


def _assert_refused(code, err, argv, marker, parsed):
    shown = shlex.join(argv)
    assert not marker.exists(), f"the payload ran: {shown}"
    assert not [text for text in parsed if "marker" in str(text)], \
        f"a payload reached SymPy's parser: {shown}"
    lines = err.strip().splitlines()
    assert code == 2, f"exit {code} for {shown}: {err}"
    assert len(lines) == 1 and ": error: " in lines[0], f"{shown}: {err}"
    assert "Traceback" not in err


def test_every_command_builds_its_parser_from_the_shared_class():
    assert set(PARSERS) == set(COMMANDS)


def test_every_option_that_takes_a_value_is_covered():
    covered = {(command, flag.split(" ")[0]) for command, flag, _ in OPTION_CASES}
    # print -s shows the count the issue asks for
    print(f"{len(covered)} options and positionals of {len(PARSERS)} sub-commands, "
          f"{len(OPTION_CASES)} cases x {len(PAYLOADS)} payloads")
    assert ("prove", "--param") in covered and ("audit", "--rope-scaling") in covered
    assert ("check", "target") in covered and ("survey", "--impls") in covered
    assert len(covered) >= 40


@pytest.mark.parametrize("payload", list(PAYLOADS))
@pytest.mark.parametrize("command, flag, template", OPTION_CASES,
                         ids=[f"{c} {f}" for c, f, _ in OPTION_CASES])
def test_a_payload_in_any_option_runs_nothing(command, flag, template, payload, guarded, capsys):
    if flag == "--config" and command == "check":
        require_library("transformers")
    tmp, marker, parsed = guarded
    text = PAYLOADS[payload].format(marker=marker)
    argv = [command, *(part.format(tmp=tmp, payload=text) for part in template)]
    code, err = _run(capsys, argv)
    _assert_refused(code, err, argv, marker, parsed)


def test_the_reported_reproduction(guarded, capsys):
    tmp, marker, parsed = guarded
    argv = ["prove", "rope_relative", "--param", f"theta=__import__('os').system('touch {marker}')"]
    code, err = _run(capsys, argv)
    _assert_refused(code, err, argv, marker, parsed)
    assert "--param theta" in err and "is not an integer" in err


# --- config fields ------------------------------------------------------------------------------

_VALID = {"model_type": "llama", "head_dim": 64, "hidden_size": 256, "num_attention_heads": 4,
          "rope_theta": 10000.0, "max_position_embeddings": 4096}


def _config_cases():
    cases = [("top", field) for field in (*CONFIG_FIELDS, "model_type")]
    cases += [("rope", field) for field in ROPE_FIELDS]
    return cases


def _config_with(where: str, field: str, payload: str) -> dict:
    document = dict(_VALID)
    if where == "top":
        document[field] = payload
    else:
        document["rope_scaling"] = {"rope_type": "linear", "factor": 2.0, field: payload}
    return document


_READERS = {
    "audit": ["audit", "--config", "{path}", "--max-position", "16", "--no-fix"],
    "audit hf-transformers": ["audit", "--impl", "hf-transformers", "--config", "{path}",
                              "--max-position", "16", "--no-fix"],
    "check hf-transformers": ["check", "--impl", "hf-transformers", "--config", "{path}"],
}


@pytest.mark.parametrize("reader", list(_READERS))
@pytest.mark.parametrize("where, field", _config_cases(), ids=[f"{w}.{f}" for w, f in _config_cases()])
def test_a_payload_in_any_config_field_runs_nothing(where, field, reader, guarded, capsys):
    if "hf-transformers" in reader or field == "model_type":
        require_library("transformers")
    tmp, marker, parsed = guarded
    path = tmp / "config.json"
    path.write_text(json.dumps(_config_with(where, field, PAYLOADS["python"].format(marker=marker))))
    argv = [part.format(path=path) for part in _READERS[reader]]
    code, err = _run(capsys, argv)
    _assert_refused(code, err, argv, marker, parsed)


@pytest.mark.parametrize("field", ROPE_FIELDS)
def test_a_payload_in_any_rope_scaling_field_runs_nothing(field, guarded, capsys):
    tmp, marker, parsed = guarded
    scaling = {"rope_type": "linear", "factor": 2.0, field: PAYLOADS["python"].format(marker=marker)}
    argv = ["audit", "--rope-scaling", json.dumps(scaling), "--max-position", "16", "--no-fix"]
    code, err = _run(capsys, argv)
    _assert_refused(code, err, argv, marker, parsed)


def test_the_same_bad_value_is_the_same_line_in_audit_and_check(guarded, capsys):
    require_library("transformers")
    tmp, marker, parsed = guarded
    path = tmp / "config.json"
    path.write_text(json.dumps(dict(_VALID, rope_theta="10000")))
    lines = set()
    for argv in (["audit", "--config", str(path)], ["audit", "--impl", "hf-transformers", "--config",
                                                    str(path)],
                 ["check", "--impl", "hf-transformers", "--config", str(path)]):
        code, err = _run(capsys, argv)
        assert code == 2
        lines.add(err.split(": error: ", 1)[1].strip())
    assert lines == {"rope_theta must be a number, got '10000'"}


# --- the source: what could turn text into code -------------------------------------------------

# Every call of sympify/nsimplify that is not strict, by module and function, with why its
# argument is never text from outside (a string there would be evaluated). A new call fails this
# test until it is reviewed and listed; `strict=True` calls need no entry (they refuse strings).
_REVIEWED_SYMPIFY = {
    "checker/_continuity.py:continuity_obstacle": "entries of an Encoding: expressions",
    "checker/_continuity.py:find_discontinuity": "entries of an Encoding: expressions",
    "checker/_continuity.py:defined_value": "entries of an Encoding: expressions",
    "engine/_blocks.py:_instantiate_description": "a block description the engine built",
    "engine/_blocks.py:is_instance": "a block template the engine built",
    "engine/_blocks.py:_evaluated_description": "a block description the engine built",
    "engine/_sampling.py:_matrix_for": "a MatrixSymbol's shape",
    "engine/_judgement.py:evaluate": "a MatrixSymbol's shape",
    "engine/_verdict.py:_show": "a comparison of two shape entries",
    "engine/_points.py:_within_hypotheses": "a hypothesis bound the theorem wrote",
    "kernel/_polynomial.py:text": "a polynomial the certificate built",
    "kernel/_certificate.py:scalar_lemma": "the sides of a checked step",
    "kernel/_export.py:_side": "the sides of a checked step",
    "kernel/_matrices.py:size": "a matrix size from a checked step",
    "kernel/_translate.py:doprint": "an expression being printed",
    "latex/_check.py:_parse": "only int and float (strings go to symrope._parse)",
    "lifting/_symbolic.py:symbolic": "values of a tensor",
    "lifting/_symbolic.py:_sympify_all": "values of a tensor",
    "theorems/_group_law.py:matrix_size": "a --param value: a number or the symbol n, never text",
    "theorems/_schedules.py:yarn_attention_factor_scales_identity": "an exact schedule value",
    "theorems/_xpos.py:xpos_damped_rotation": "a --param value: a number or a Symbol, never text",
    "schedules/_closed_forms.py:_exact": "a SymPy number (text went to symrope._parse before)",
}


def _calls(name_filter):
    """(module:function, name, line, strict) of each call whose name passes ``name_filter``."""
    import ast
    from pathlib import Path

    import symrope

    package = Path(symrope.__file__).parent
    found = []

    class Finder(ast.NodeVisitor):
        def __init__(self, module):
            self.module, self.stack = module, []

        def visit_FunctionDef(self, node):
            self.stack.append(node.name)
            self.generic_visit(node)
            self.stack.pop()

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Call(self, node):
            callee = node.func
            name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", None)
            if name_filter(callee, name):
                where = f"{self.module}:{self.stack[-1] if self.stack else '<module>'}"
                strict = any(k.arg == "strict" and getattr(k.value, "value", None) is True
                             for k in node.keywords)
                found.append((where, name, node.lineno, strict))
            self.generic_visit(node)

    for path in sorted(package.rglob("*.py")):
        Finder(path.relative_to(package).as_posix()).visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_no_eval_exec_or_parse_expr_in_the_package():
    import ast

    # eval/exec as builtins (torch's module.eval() is a method, not these), and SymPy's parser
    found = _calls(lambda callee, name: (isinstance(callee, ast.Name) and name in ("eval", "exec"))
                   or name == "parse_expr")
    assert found == []


def test_every_sympify_of_a_possibly_textual_value_is_reviewed():
    found = _calls(lambda callee, name: name in ("sympify", "nsimplify"))
    unreviewed = sorted({f"{where} (line {line})" for where, _, line, strict in found
                         if not strict and where not in _REVIEWED_SYMPIFY})
    assert unreviewed == [], ("review these calls: a string argument would be evaluated; use "
                              "symrope._parse for text, strict=True, or list them with a reason")
    stale = set(_REVIEWED_SYMPIFY) - {where for where, _, _, strict in found if not strict}
    assert not stale, f"no longer calls sympify: remove {sorted(stale)}"
