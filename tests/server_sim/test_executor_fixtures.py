"""The executor's behaviour as data: each case of tests/server_sim/fixtures/*.sql is one test,
named FILE:CASE. A case runs its statements on a fresh server of its flavor (MySQL 8.0 unless
the file or the case names another; tests.support.Db) and checks what each statement's
expectations say; a failure names the file and the line of the expectation that failed. A
case with a `value` runs twice, with the fast path on and off: both evaluators must agree.
The format is described in fixtures/README.md."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import pytest

from server_sim.flavor import DEFAULT_FLAVOR, FLAVORS
from tests.support import ROOT, Db

FIXTURES = Path(__file__).resolve().parent / "fixtures"
DIRECTIVE = re.compile(r"^-- (case|flavor|xfail|error|message|after|value|warnings|rows [A-Za-z_][A-Za-z0-9_]*): ?(.*)$")
# Directives about a whole case (or, before the first case, about every case of the file).
CASE_DIRECTIVES = ("flavor", "xfail")
# What an expected value may name besides Python literals.
VALUES = {"__builtins__": {}, "Decimal": Decimal, "dt": dt, "None": None, "True": True, "False": False}


@dataclass
class Expectation:
    key: str  # error, message, after, value, warnings, rows TABLE
    text: str
    line: int


@dataclass
class Statement:
    sql: str
    line: int
    expectations: list[Expectation] = field(default_factory=list)


@dataclass
class Case:
    path: Path
    name: str
    line: int
    statements: list[Statement] = field(default_factory=list)
    flavor: str = DEFAULT_FLAVOR.name
    xfail: str | None = None  # a known difference from the server, and why

    @property
    def id(self) -> str:
        return f"{self.path.stem}:{self.name}"

    @property
    def reads_values(self) -> bool:
        """A case checking a SELECT's rows: run with the fast path on and off."""
        return any(e.key == "value" for statement in self.statements for e in statement.expectations)

    def where(self, line: int) -> str:
        return f"{self.path.relative_to(ROOT)}:{line}"


def parse_fixture(path: Path) -> list[Case]:
    """The cases of one fixture file. Malformed text is an error naming its line."""
    cases: list[Case] = []
    defaults: dict[str, str] = {}  # the file's flavor and xfail, before its first case
    pending: list[str] = []  # the lines of a statement not yet ended by ";"
    pending_line = 0
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.rstrip()
        directive = DIRECTIVE.match(line)
        if directive and not pending:
            key, text = directive.groups()
            if key == "case":
                cases.append(Case(path, text.strip(), number, flavor=defaults.get("flavor", DEFAULT_FLAVOR.name), xfail=defaults.get("xfail")))
                continue
            if key in CASE_DIRECTIVES:
                _case_directive(path, number, key, text.strip(), cases[-1] if cases else None, defaults)
                continue
            if not cases or not cases[-1].statements:
                raise ValueError(f"{path}:{number}: an expectation before any statement")
            cases[-1].statements[-1].expectations.append(Expectation(key, text, number))
        elif not line.strip() or line.lstrip().startswith("--"):
            if pending:
                raise ValueError(f"{path}:{number}: a statement not ended by ';'")
            continue  # a blank line or a comment
        else:
            if not cases:
                raise ValueError(f"{path}:{number}: a statement before the first '-- case:'")
            if not pending:
                pending_line = number
            pending.append(line)
            if line.endswith(";"):
                cases[-1].statements.append(Statement("\n".join(pending)[:-1].strip(), pending_line))
                pending = []
    if pending:
        raise ValueError(f"{path}:{pending_line}: a statement not ended by ';'")
    names = [case.id for case in cases]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"{path}: cases named twice: {duplicates}")
    return cases


def _case_directive(path: Path, number: int, key: str, text: str, case: Case | None, defaults: dict[str, str]) -> None:
    """`-- flavor:` or `-- xfail:` for the case just begun, or for the whole file before any case."""
    if key == "flavor" and text not in FLAVORS:
        raise ValueError(f"{path}:{number}: unknown flavor {text!r} (known: {sorted(FLAVORS)})")
    if case is None:
        defaults[key] = text
    elif case.statements:
        raise ValueError(f"{path}:{number}: '-- {key}:' after a statement of the case")
    else:
        setattr(case, key, text)


def all_cases() -> list[Case]:
    return [case for path in sorted(FIXTURES.glob("*.sql")) for case in parse_fixture(path)]


def expected(case: Case, expectation: Expectation) -> object:
    try:
        return eval(expectation.text, VALUES)  # noqa: S307 - the project's own fixture files
    except Exception as error:  # a typo in a fixture names its line
        raise AssertionError(f"{case.where(expectation.line)}: cannot read {expectation.text!r}: {error}") from error


def same(actual: object, wanted: object) -> bool:
    """Equal, and a Decimal written the same way too (its scale: 2.50 is not 2.5)."""
    if isinstance(wanted, (tuple, list)):
        return isinstance(actual, (tuple, list)) and len(actual) == len(wanted) and all(same(a, w) for a, w in zip(actual, wanted))
    if isinstance(wanted, Decimal):
        return actual == wanted and str(actual) == str(wanted)
    return actual == wanted


def run_case(case: Case, fast_path: bool = True) -> None:
    db = Db(flavor=FLAVORS[case.flavor], fast_path=fast_path)
    try:
        for statement in case.statements:
            where = case.where(statement.line)
            fails = any(expectation.key in ("error", "message") for expectation in statement.expectations)
            outcome = error = None
            if fails:
                error = db.error(statement.sql)
            else:
                outcome = db.run(statement.sql)
                assert outcome.error is None, f"{where}: {statement.sql!r} failed: {outcome.error}"
            for expectation in statement.expectations:
                at = f"{case.where(expectation.line)} ({statement.sql!r})"
                if expectation.key == "error":
                    code, _, name = expectation.text.partition(" ")
                    assert error is not None
                    assert error.code == int(code), f"{at}: error {error.code} {error.name}, expected {expectation.text}"
                    if name:
                        assert error.name == name.strip(), f"{at}: error {error.code} {error.name}, expected {expectation.text}"
                elif expectation.key == "message":
                    assert error is not None
                    assert error.message == expectation.text, f"{at}: message {error.message!r}, expected {expectation.text!r}"
                elif expectation.key == "after":
                    assert outcome is not None and outcome.changes, f"{at}: no row change"
                    after = outcome.changes[0].after
                    assert same(after, expected(case, expectation)), f"{at}: the first change's after image is {after!r}, expected {expectation.text}"
                elif expectation.key == "value":
                    assert outcome is not None and outcome.rows is not None, f"{at}: no rows"
                    rows = [tuple(row) for row in outcome.rows]
                    assert same(rows, expected(case, expectation)), f"{at}: rows {rows!r}, expected {expectation.text}"
                elif expectation.key == "warnings":
                    assert outcome is not None
                    warnings = [(warning.level, warning.code) for warning in outcome.warnings]
                    assert warnings == expected(case, expectation), f"{at}: warnings {warnings!r}, expected {expectation.text}"
                else:
                    table = expectation.key.split()[1]
                    rows = db.rows(table)
                    assert same(rows, expected(case, expectation)), f"{at}: table {table} holds {rows!r}, expected {expectation.text}"
    finally:
        db.close()


def _runs() -> list:
    """One run per case, two (fast path on, off) for a case reading values; a known
    difference from the server (`xfail`) is expected to fail, strictly."""
    runs = []
    for case in all_cases():
        marks = [pytest.mark.xfail(reason=case.xfail, strict=True)] if case.xfail else []
        for fast_path in (True, False) if case.reads_values else (True,):
            suffix = ("[fast]" if fast_path else "[duckdb]") if case.reads_values else ""
            runs.append(pytest.param(case, fast_path, id=case.id + suffix, marks=marks))
    return runs


@pytest.mark.parametrize(("case", "fast_path"), _runs())
def test_executor_fixture(case: Case, fast_path: bool) -> None:
    run_case(case, fast_path)


def test_a_failing_case_names_its_file_and_line() -> None:
    path = ROOT / "tests" / "server_sim" / "fixtures" / "types.sql"
    (case,) = [case for case in parse_fixture(path) if case.name == "varchar within its length is stored: 'ab'"]
    wrong = Case(case.path, case.name, case.line, [Statement(case.statements[0].sql, case.statements[0].line), Statement(case.statements[1].sql, case.statements[1].line, [Expectation("rows t", "[('abc',)]", 77)])])
    with pytest.raises(AssertionError, match=r"tests/server_sim/fixtures/types\.sql:77 .*table t holds \[\('ab',\)\], expected \[\('abc',\)\]"):
        run_case(wrong)
