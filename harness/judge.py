"""The checker: a verdict per run from what the run recorded, and the scenario's expectations."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from master_sim.master import StepResult
from master_sim.unsafe import UnsafeReason
from scenarios.model import EventPattern, Expectation, Scenario, ScenarioError, Verdict

from .compare import RunDiff
from .observation import EVENT_KINDS, UNSAFE_NOTE, EventObservation, simulator_events
from .runner import RunRecord


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    explanation: tuple[str, ...]


@dataclass(frozen=True)
class ExpectationResult:
    expectation: Expectation
    held: bool
    message: str


def judge(record: RunRecord, diff: RunDiff | None) -> Judgement:
    """consistent, slave_stopped, error, or for a divergence: divergent when a reason the
    server itself gives explains it, a finding when none does.

    The explaining reasons are the unsafe statements the master logged as statements
    anyway, and a slave whose tables the scenario made differ from the master's.
    """
    if record.error is not None:
        return Judgement(Verdict.ERROR, (record.error.strip().splitlines()[-1],))
    slave = record.slave
    if slave is not None and not slave.running and slave.error is not None:
        where = f"at position {slave.error_position} ({slave.error_event})"
        return Judgement(Verdict.SLAVE_STOPPED, (f"slave stopped {where}: error {slave.error.code} {slave.error.name}: {slave.error.message}",))
    if diff is None or diff.consistent:
        return Judgement(Verdict.CONSISTENT, ())
    reasons = [
        f"step {step.index} ({step.session}) was logged as STATEMENT while unsafe: {', '.join(step.unsafe)}"
        for step in unsafe_statements_logged(record)
    ]
    if record.scenario.slave_schema:
        reasons.append(f"the slave's tables differ from the master's ({len(record.scenario.slave_schema)} slave_schema statements)")
    tables = f"tables that differ: {', '.join(table.table for table in diff.tables)}"
    if reasons:
        return Judgement(Verdict.DIVERGENT, (*reasons, tables))
    return Judgement(Verdict.FINDING, (finding_kind(record), tables))


def unsafe_statements_logged(record: RunRecord) -> list[StepResult]:
    """The steps the master logged in statement format although it flagged them unsafe."""
    return [step for step in record.steps if step.logged_as == "STATEMENT" and step.unsafe]


def finding_kind(record: RunRecord) -> str:
    """What makes a divergence a finding, in words that stay the same while it is shrunk."""
    binlog_format = record.variant["binlog_format"]
    if binlog_format == "STATEMENT":
        return "divergence under STATEMENT with identical schemas and no unsafe statement logged as a statement"
    return f"divergence under {binlog_format} with identical schemas"


def check_expectations(record: RunRecord, judgement: Judgement) -> list[ExpectationResult]:
    """Each `expect` entry that matches this run's variant, held or not."""
    results = []
    slave_error = record.slave.error.code if record.slave is not None and record.slave.error is not None else None
    for expectation in record.scenario.expect:
        if not expectation.matches({**record.variant, "flavor": record.flavor}):
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
    """Unsafe reason names, notes codes and event kinds the checks could never match."""
    errors = []
    source = scenario.source or Path(scenario.name)
    reasons = {reason.name for reason in UnsafeReason}
    kinds = sorted(set(EVENT_KINDS.values()))
    for position, expectation in enumerate(scenario.expect):
        key = f"expect[{position}]"
        for item, note in enumerate(expectation.notes or ()):
            if note == UNSAFE_NOTE:
                errors.append(ScenarioError(source, f"{key}.notes[{item}]", f"name the unsafe reason of a Note {UNSAFE_NOTE} (e.g. LIMIT), not its code"))
            elif isinstance(note, str) and note not in reasons:
                errors.append(ScenarioError(source, f"{key}.notes[{item}]", f"unknown unsafe reason {note}; the server's names are {', '.join(sorted(reasons))}"))
        for item, pattern in enumerate(expectation.events or ()):
            if pattern.kind not in kinds:
                errors.append(ScenarioError(source, f"{key}.events[{item}]", f"unknown event kind {pattern.kind}; kinds are {', '.join(kinds)}"))
    return errors
