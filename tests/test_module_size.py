"""A module or function a newcomer cannot hold in mind is a second concept waiting to be
split out: no module of server_sim, master_sim or harness over 500 lines, no function over
60 (docs/design.md, "One concept, one home")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support import ROOT

PACKAGES = ("server_sim", "master_sim", "harness")
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60


def _modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def long_functions(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function in `source` longer than the limit."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append((node.name, node.lineno, length))
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_module_and_its_functions_are_short(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    lines = source.count("\n")
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {lines} lines (limit {MAX_MODULE_LINES}): split a concept out"
    too_long = [f"{name} (line {line}, {length} lines)" for name, line, length in long_functions(source)]
    assert not too_long, f"{path.relative_to(ROOT)}: functions over {MAX_FUNCTION_LINES} lines: {', '.join(too_long)}"


def test_the_measure_finds_a_long_function() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}\n") == [("f", 1, MAX_FUNCTION_LINES + 1)]
    assert long_functions("def g():\n    return 1\n") == []
