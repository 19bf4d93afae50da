"""The checker: a verdict per run from what the run recorded, and the scenario's expectations."""

from __future__ import annotations

from dataclasses import dataclass

from scenarios.model import Expectation, Verdict

from .compare import RunDiff
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
    """consistent, divergent, slave_stopped or error; a divergence lists the unsafe statements
    the master logged as statements, the facts that explain it when there are any."""
    if record.error is not None:
        return Judgement(Verdict.ERROR, (record.error.strip().splitlines()[-1],))
    slave = record.slave
    if slave is not None and not slave.running and slave.error is not None:
        where = f"at position {slave.error_position} ({slave.error_event})"
        return Judgement(Verdict.SLAVE_STOPPED, (f"slave stopped {where}: error {slave.error.code} {slave.error.name}: {slave.error.message}",))
    if diff is None or diff.consistent:
        return Judgement(Verdict.CONSISTENT, ())
    explanation = [
        f"step {step.index} ({step.session}) was logged as STATEMENT while unsafe: {', '.join(step.unsafe)}"
        for step in record.steps
        if step.logged_as == "STATEMENT" and step.unsafe
    ]
    tables = ", ".join(table.table for table in diff.tables)
    explanation.append(f"tables that differ: {tables}")
    return Judgement(Verdict.DIVERGENT, tuple(explanation))


def check_expectations(record: RunRecord, judgement: Judgement) -> list[ExpectationResult]:
    """Each `expect` entry that matches this run's variant, held or not."""
    results = []
    slave_error = record.slave.error.code if record.slave is not None and record.slave.error is not None else None
    for expectation in record.scenario.expect:
        if not expectation.matches(record.variant):
            continue
        problems = []
        if expectation.verdict is not None and expectation.verdict is not judgement.verdict:
            problems.append(f"expected verdict {expectation.verdict.value}, got {judgement.verdict.value}")
        if expectation.slave_error is not None and expectation.slave_error != slave_error:
            problems.append(f"expected the slave to stop with {expectation.slave_error}, got {slave_error or 'no error'}")
        results.append(ExpectationResult(expectation, not problems, "; ".join(problems) or "held"))
    return results
