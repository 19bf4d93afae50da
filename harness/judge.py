"""The checker: a verdict per run from what the run recorded, and the scenario's expectations."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from master_sim.results import StepResult
from master_sim.unsafe import UnsafeReason
from scenarios.loader import FLAVOR_KEY
from scenarios.model import EventPattern, Expectation, Scenario, ScenarioError, Verdict
from server_sim.errors import Condition, ErrorCode
from server_sim.flavor import FLAVORS

from .compare import RunDiff
from .judgement import Judgement
from .observation import EVENT_KINDS, UNSAFE_NOTE, EventObservation, simulator_events
from .runner import RunRecord


# The simulator could not run the statement: 1064 (sqlglot could not parse it) or 1235
# (it parsed, but the simulator does not model it).
UNSUPPORTED_CODES: frozenset[int] = frozenset({ErrorCode.ER_PARSE_ERROR.code, ErrorCode.ER_NOT_SUPPORTED_YET.code})
# Events that carry rows: a slave stopping at one applies a statement logged in row format.
ROW_EVENT_PREFIXES: tuple[str, ...] = ("Table_map", "Write_rows", "Update_rows", "Delete_rows")


@dataclass(frozen=True)
class ExpectationResult:
    expectation: Expectation
    held: bool
    message: str


@dataclass(frozen=True)
class ErrorCheck:
    """A statement's error against what the scenario declared for it, as mysqltest checks
    `--error`: `expected` are the codes the step allows (0: success), empty for a statement
    that declared nothing and failed."""

    where: str  # `step 3 (con1)`, `master_schema[0]`, `slave_schema[1]`
    sql: str
    expected: tuple[int, ...]
    actual: Condition | None
    held: bool
    message: str


def judge(record: RunRecord, diff: RunDiff | None, checks: list[ErrorCheck] | None = None) -> Judgement:
    """error, unsupported, slave_stopped, consistent, or for a divergence: divergent when
    a reason the server itself gives explains it, a finding when none does.

    The explaining reasons are the unsafe statements the master logged as statements
    anyway, and a slave whose tables the scenario made differ from the master's. A slave
    that stops on a statement logged in row format with identical tables has no such
    reason either, and is a finding too. `checks` are the run's `error_checks` when the
    caller has them already.
    """
    if record.error is not None:
        return Judgement(Verdict.ERROR, (record.error.strip().splitlines()[-1],))
    refused = unsupported_statements(error_checks(record) if checks is None else checks)
    if refused:
        return Judgement(Verdict.UNSUPPORTED, tuple(f"{check.where}: {_condition_text(check.actual)}: {check.sql}" for check in refused))
    reasons = divergence_reasons(record)
    slave = record.slave
    if slave is not None and not slave.running and slave.error is not None:
        where = f"at position {slave.error_position} ({slave.error_event})"
        stopped = f"slave stopped {where}: error {slave.error.code} {slave.error.name}: {slave.error.message}"
        kind = slave_stop_finding_kind(record)
        if kind is not None and not reasons:
            return Judgement(Verdict.FINDING, (kind, stopped))
        return Judgement(Verdict.SLAVE_STOPPED, (stopped,))
    if diff is None or diff.consistent:
        return Judgement(Verdict.CONSISTENT, ())
    tables = f"tables that differ: {', '.join(table.table for table in diff.tables)}"
    if reasons:
        return Judgement(Verdict.DIVERGENT, (*reasons, tables))
    return Judgement(Verdict.FINDING, (finding_kind(record), tables))


def divergence_reasons(record: RunRecord) -> list[str]:
    """What the run itself says that makes the slave differ: unsafe statements logged as
    statements, and slave tables the scenario changed."""
    reasons = [
        f"step {step.index} ({step.session}) was logged as STATEMENT while unsafe: {', '.join(step.unsafe or _noted_reasons(step))}"
        for step in unsafe_statements_logged(record)
    ]
    if record.scenario.slave_schema:
        reasons.append(f"the slave's tables differ from the master's ({len(record.scenario.slave_schema)} slave_schema statements)")
    return reasons


def unsafe_statements_logged(record: RunRecord) -> list[StepResult]:
    """The steps the master logged in statement format although it flagged them unsafe: by
    the simulator's account, or by the server's own Note 1592 (a real server's steps carry
    no logging decision; it raises the note exactly when it logs an unsafe statement as a
    statement, also for a CALL's statements)."""
    return [step for step in record.steps if (step.logged_as == "STATEMENT" and step.unsafe) or _noted_reasons(step)]


def _noted_reasons(step: StepResult) -> list[str]:
    return [condition.message for condition in step.notes if condition.code == UNSAFE_NOTE]


def finding_kind(record: RunRecord) -> str:
    """What makes a divergence a finding, in words that stay the same while it is shrunk."""
    binlog_format = record.variant["binlog_format"]
    if binlog_format == "STATEMENT":
        return "divergence under STATEMENT with identical schemas and no unsafe statement logged as a statement"
    return f"divergence under {binlog_format} with identical schemas"


def slave_stop_finding_kind(record: RunRecord) -> str | None:
    """The finding a stopped slave is when row format logged what it stopped on: under ROW
    any event, under MIXED a row event. None when statement format logged it."""
    slave = record.slave
    assert slave is not None and slave.error is not None
    binlog_format = record.variant.get("binlog_format")
    row_event = (slave.error_event or "").startswith(ROW_EVENT_PREFIXES)
    if binlog_format == "ROW" or (binlog_format == "MIXED" and row_event):
        return f"slave stopped under {binlog_format} with identical schemas: error {slave.error.code} {slave.error.name}"
    return None


def _condition_text(condition: Condition | None) -> str:
    return "no error" if condition is None else f"error {condition.code} {condition.name}: {condition.message}"


def declared_errors(scenario: Scenario) -> dict[int, tuple[int, ...]]:
    """Each step's declared errors as codes (names resolved); a name the model does not
    know is left out here and reported by `expectation_errors`."""
    declared = {}
    for step in scenario.steps:
        if step.errors:
            codes = [error if isinstance(error, int) else ErrorCode.code_of(error) for error in step.errors]
            declared[step.index] = tuple(code for code in codes if code is not None)
    return declared


def error_checks(record: RunRecord) -> list[ErrorCheck]:
    """Every statement's error judged against its declaration: a declared step must end
    with one of its codes; an undeclared error fails the run unless an `expect` entry
    checks that step's error, or the scenario tolerates errors (never 1064 or 1235: the
    simulator could not run the SQL at all)."""
    declared = declared_errors(record.scenario)
    checked = _steps_with_error_expectations(record)
    tolerate = record.scenario.tolerate_errors
    checks = []
    for position, step in enumerate(record.schema_steps):
        checks.extend(_undeclared(f"master_schema[{position}]", step.sql, step.error, tolerate))
    for step in record.steps:
        where = f"step {step.index} ({step.session})"
        if step.index in declared:
            expected = declared[step.index]
            actual = step.error.code if step.error is not None else 0
            held = actual in expected and step.status != "blocked"
            got = "it never ran (it waited to the end)" if step.status == "blocked" else f"got {_condition_text(step.error)}"
            message = "held" if held else f"expected {_codes(expected)}, {got}"
            checks.append(ErrorCheck(where, step.sql, expected, step.error, held, message))
        elif step.index not in checked:
            checks.extend(_undeclared(where, step.sql, step.error, tolerate))
    for position, result in enumerate(record.slave_schema):
        checks.extend(_undeclared(f"slave_schema[{position}]", result.sql, result.error, tolerate))
    return checks


def unsupported_statements(checks: list[ErrorCheck]) -> list[ErrorCheck]:
    """The undeclared statements the simulator refused or could not parse."""
    return [check for check in checks if not check.held and not check.expected and check.actual is not None and check.actual.code in UNSUPPORTED_CODES]


def _undeclared(where: str, sql: str, error: Condition | None, tolerate: bool) -> list[ErrorCheck]:
    if error is None or (tolerate and error.code not in UNSUPPORTED_CODES):
        return []
    return [ErrorCheck(where, sql, (), error, False, f"failed with {_condition_text(error)} (declare it with `error:` on the step)")]


def _codes(codes: tuple[int, ...]) -> str:
    named = [("success" if code == 0 else f"{code} {ErrorCode.name_of(code)}") for code in codes]
    return " or ".join(named)


def _steps_with_error_expectations(record: RunRecord) -> set[int]:
    """Steps an `expect` entry matching this run checks the error of."""
    run = {**record.variant, FLAVOR_KEY: record.flavor}
    return {e.step for e in record.scenario.expect if e.step is not None and e.error is not None and e.matches(run)}


def covered(judgement: Judgement, expectations: list[ExpectationResult]) -> bool:
    """Whether the run's verdict is one the scenario allows: consistent, or asserted by a
    matching `expect` entry (a verdict, or the slave error a stop has)."""
    if judgement.verdict is Verdict.CONSISTENT:
        return True
    return any(result.expectation.verdict is not None or result.expectation.slave_error is not None for result in expectations)


def check_expectations(record: RunRecord, judgement: Judgement) -> list[ExpectationResult]:
    """Each `expect` entry that matches this run's variant, held or not."""
    results = []
    slave_error = record.slave.error.code if record.slave is not None and record.slave.error is not None else None
    for expectation in record.scenario.expect:
        if not expectation.matches({**record.variant, FLAVOR_KEY: record.flavor}):
            continue
        problems = []
        if expectation.verdict is not None and expectation.verdict is not judgement.verdict:
            problems.append(f"expected verdict {expectation.verdict.value}, got {judgement.verdict.value}")
        if expectation.slave_error is not None and expectation.slave_error != slave_error:
            problems.append(f"expected the slave to stop with {expectation.slave_error}, got {slave_error or 'no error'}")
        if expectation.step is not None:
            problems.extend(_step_problems(record, expectation))
        results.append(ExpectationResult(expectation, not problems, "; ".join(problems) or "held"))
    return results


def _step_problems(record: RunRecord, expectation: Expectation) -> list[str]:
    """What the expected step did differently: diagnostics, error, binlog events."""
    number = expectation.step
    step = next((step for step in record.steps if step.index == number), None)
    if step is None:
        return [f"step {number} never reached the master (the run failed before it)"]
    where = f"step {number} ({step.session})"
    problems = []
    if expectation.notes is not None:
        expected, actual = [str(n) for n in expectation.notes], [str(n) for n in _step_notes(step)]
        if sorted(expected) != sorted(actual):
            problems.append(f"{where}: expected notes [{', '.join(expected)}], got [{', '.join(actual)}]")
    if expectation.error is not None:
        actual_error = step.error.code if step.error is not None else 0
        if actual_error != expectation.error:
            problems.append(f"{where}: expected error {expectation.error or 'none'}, got {actual_error or 'none'}")
    if expectation.events is not None:
        events = simulator_events(record.binlog, step.binlog_ranges)
        if not _events_match(expectation.events, events):
            expected = [str(pattern) for pattern in expectation.events]
            actual = [f"{event.kind} {event.info}" if event.info else event.kind for event in events]
            problems.append(f"{where}: expected events [{', '.join(expected)}], got [{', '.join(actual)}]")
    return problems


def _step_notes(step: StepResult) -> list[str | int]:
    """A step's Notes and Warnings as `notes` names them: each Note 1592 by its unsafe
    reason's server name, any other diagnostic by its code."""
    names: list[str | int] = []
    for condition in step.notes:
        if condition.level == "Error":
            continue
        reason = UnsafeReason.of_note(condition.message) if condition.code == UNSAFE_NOTE else None
        names.append(reason.name if reason is not None else condition.code)
    return names


def _events_match(patterns: tuple[EventPattern, ...], events: list[EventObservation]) -> bool:
    """Same length, and each event of the pattern's kind with its info when the pattern gives one."""
    return len(patterns) == len(events) and all(
        pattern.kind == event.kind and (not pattern.info or pattern.info == event.info)
        for pattern, event in zip(patterns, events)
    )


def expectation_errors(scenario: Scenario) -> list[ScenarioError]:
    """What the checks could never match: `when` keys and values no run of the scenario
    has, unknown unsafe reason names, notes codes, event kinds and error names."""
    errors = []
    source = scenario.source or Path(scenario.name)
    reasons = {reason.name for reason in UnsafeReason}
    kinds = sorted(set(EVENT_KINDS.values()))
    variants = scenario.variants()
    for step in scenario.steps:
        for error in step.errors:
            if isinstance(error, str) and ErrorCode.code_of(error) is None:
                errors.append(ScenarioError(source, f"steps[{step.index - 1}].error", f"unknown error name {error}; give its code instead (e.g. 1062)"))
    for position, expectation in enumerate(scenario.expect):
        key = f"expect[{position}]"
        errors.extend(_when_errors(scenario, variants, expectation, f"{key}.when", source))
        for item, note in enumerate(expectation.notes or ()):
            if note == UNSAFE_NOTE:
                errors.append(ScenarioError(source, f"{key}.notes[{item}]", f"name the unsafe reason of a Note {UNSAFE_NOTE} (e.g. LIMIT), not its code"))
            elif isinstance(note, str) and note not in reasons:
                errors.append(ScenarioError(source, f"{key}.notes[{item}]", f"unknown unsafe reason {note}; the server's names are {', '.join(sorted(reasons))}"))
        for item, pattern in enumerate(expectation.events or ()):
            if pattern.kind not in kinds:
                errors.append(ScenarioError(source, f"{key}.events[{item}]", f"unknown event kind {pattern.kind}; kinds are {', '.join(kinds)}"))
    return errors


def _when_errors(scenario: Scenario, variants: list[dict[str, str]], expectation: Expectation, key: str, source: Path) -> list[ScenarioError]:
    """A `when` key must be `flavor` or a variable the scenario's runs set, and each value
    one that some run has: anything else would silently never match."""
    errors = []
    for name, values in expectation.when.items():
        if name == FLAVOR_KEY:
            possible = [scenario.flavor] if scenario.flavor is not None else sorted(FLAVORS)
        else:
            possible = sorted({variant[name] for variant in variants if name in variant})
            if not possible:
                known = sorted({FLAVOR_KEY, *(n for variant in variants for n in variant)})
                errors.append(ScenarioError(source, f"{key}.{name}", f"no run of this scenario sets {name}; `when` can name {', '.join(known)}"))
                continue
        for value in values:
            if value not in possible:
                errors.append(ScenarioError(source, f"{key}.{name}", f"no run of this scenario has {name} = {value}; its runs have {', '.join(possible)}"))
    return errors
