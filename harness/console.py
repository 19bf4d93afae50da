"""What the commands print for people: a table of runs, the simulator beside a real server,
the fidelity rates, fuzz's summary, the files written. Built from the results as text, so
the commands only print it and the documents (harness/report.py) stay about themselves."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from scenarios.model import Verdict

from .fidelity import FidelityResult
from .oracle.client import ORACLE_SUFFIX
from .percent import percent
from .suite import RunOutcome, SuiteResult

if TYPE_CHECKING:
    from slave_sim.replay import ReplayResult

    from .fuzz import FuzzResult
    from .oracle.suite import OracleResult


def summary_table(result: SuiteResult) -> str:
    """scenario | variant | verdict | check | diffs | notes, one line per run, then the
    input errors and the counts. CHECK says whether the run passed (`ok`), failed a check
    (`FAIL`) or has a verdict nothing allowed (`UNCHECKED`); DIFFS counts, per differing
    table, rows missing on the slave, extra on it and changed, as pt-table-checksum does."""
    rows = [("SCENARIO", "VARIANT", "VERDICT", "CHECK", "DIFFS", "NOTES")]
    for run in result.runs:
        rows.append((run.record.scenario.name, run.record.label, run.judgement.verdict.value, run_check(run), diff_counts(run), "; ".join(run_notes(run))))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row[:5], widths)) + "  " + row[5] for row in rows]
    for error in result.input_errors:
        lines.append(f"INPUT ERROR  {error}")
    if not result.runs and not result.input_errors and not result.not_run:
        lines.append("no scenario found")
    lines.extend(not_run_lines(result))
    lines.append(summary_line(result))
    return "\n".join(line.rstrip() for line in lines)


def not_run_lines(result: SuiteResult) -> list[str]:
    """The report is partial: what did not run, and why."""
    if not result.not_run:
        return []
    return [f"PARTIAL  {len(result.not_run)} did not run; the report holds the rest"] + [f"NOT RUN  {line}" for line in result.not_run]


def run_check(run: RunOutcome) -> str:
    if not run.checks_held:
        return "FAIL"
    return "ok" if run.covered else "UNCHECKED"


def diff_counts(run: RunOutcome) -> str:
    """`t: 1 missing, 0 extra, 1 changed` per differing table; `-` when none differ."""
    if run.diff is None or run.diff.consistent:
        return "-"
    parts = []
    for table in run.diff.tables:
        where = f" (only on the {'master' if table.missing_on == 'slave' else 'slave'})" if table.missing_on else ""
        parts.append(f"{table.table}{where}: {table.rows_missing} missing, {table.rows_extra} extra, {table.key_matched} changed")
    return "; ".join(parts)


def run_notes(run: RunOutcome) -> list[str]:
    """Why a run needs attention first (failed checks, a verdict nothing allows), then the
    judge's last word."""
    notes = [f"{check.where} {check.message}" for check in run.error_checks if not check.held]
    notes.extend(result.message for result in run.expectations if not result.held)
    if not run.covered:
        notes.append(f"{run.judgement.verdict.value}, and no expect entry allows it")
    elif not notes and run.expectations:
        notes.append("expect ok")
    notes.extend(run.judgement.explanation[-1:])
    return notes


def summary_line(result: SuiteResult) -> str:
    """`152 runs: 140 with expectations (138 met, 2 failed), 12 without (10 consistent, 2 not); 0 input errors`."""
    with_expect = [run for run in result.runs if run.expectations]
    without = [run for run in result.runs if not run.expectations]
    met = sum(run.expectations_held for run in with_expect)
    consistent = sum(run.judgement.verdict is Verdict.CONSISTENT for run in without)
    not_passed = sum(not run.passed for run in result.runs)
    return (
        f"{len(result.runs)} runs: {len(with_expect)} with expectations ({met} met, {len(with_expect) - met} failed), "
        f"{len(without)} without ({consistent} consistent, {len(without) - consistent} not); "
        f"{not_passed} need attention; {len(result.input_errors)} input errors"
    )


def side_by_side(result: OracleResult) -> str:
    """scenario | variant | simulator verdict | server verdict, one line per run; then the
    first line of each server run's error (a server that died during it, say)."""
    server = {outcome.record.run_id.removesuffix(ORACLE_SUFFIX): outcome for outcome in result.server}
    rows = [("SCENARIO", "VARIANT", "SIMULATOR", "SERVER")]
    for outcome in result.simulator.runs:
        theirs = server.get(outcome.record.run_id)
        rows.append((outcome.record.scenario.name, outcome.record.label, outcome.judgement.verdict.value, theirs.judgement.verdict.value if theirs else "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    lines.extend(f"INPUT ERROR  {error}" for error in result.simulator.input_errors)
    lines.extend(f"SERVER ERROR  {outcome.record.run_id}: {_headline(outcome.record.error)}" for outcome in result.server if outcome.record.error)
    return "\n".join(lines)


def _headline(error: str) -> str:
    """What an error says in one line: a traceback's last line (the exception), else the first."""
    lines = error.strip().splitlines() or [""]
    return lines[-1] if lines[0].startswith("Traceback") else lines[0]


def fidelity_summary(result: FidelityResult) -> str:
    """The rate of agreement per category, the unexplained disagreements, how many are
    known, and the runs no recording was found for."""
    lines = [f"fidelity of the simulator against {result.system}:", f"  {'CATEGORY':<12} {'AGREED':>8} {'COMPARED':>9} {'RATE':>9}"]
    for category, row in result.rates().items():
        agreed, compared = int(row["agreed"] or 0), int(row["compared"] or 0)
        lines.append(f"  {category:<12} {agreed:>8} {compared:>9} {percent(agreed, compared):>9}")
    for disagreement in result.unexplained:
        lines.append(f"  DISAGREES  {disagreement}")
    if result.explained:
        lines.append(f"  {len(result.explained)} known differences (see docs/fidelity.md)")
    for missing in result.missing:
        lines.append(f"  MISSING    {missing}")
    return "\n".join(lines)


def fuzz_summary(result: FuzzResult) -> str:
    """Verdict counts, what was explored, and each group of findings once, with its count
    and smallest shrunk example."""
    verdicts = Counter(run.judgement.verdict.value for run in result.suite.runs)
    exploration = result.exploration
    lines = [
        f"{exploration.workloads} workloads, {exploration.interleavings} interleavings, {exploration.runs} runs: "
        + ", ".join(f"{verdicts.get(verdict.value, 0)} {verdict.value}" for verdict in Verdict),
        f"distinct binlogs: {exploration.distinct_binlogs}, distinct master end states: {exploration.distinct_master_states}",
    ]
    for outcome in result.suite.runs:
        if outcome.judgement.verdict in (Verdict.ERROR, Verdict.UNSUPPORTED):
            lines.append(f"{outcome.judgement.verdict.value.upper():<8} {outcome.record.run_id}: {outcome.judgement.explanation[0]}")
    lines.extend(not_run_lines(result.suite))
    for group in result.groups:
        example = group.example
        runs = "run" if len(group.findings) == 1 else "runs"
        formats = "/".join(sorted({finding.outcome.record.variant.get("binlog_format", "") for finding in group.findings}))
        lines.append(f"FINDING  {group.signature.title}: {len(group.findings)} {runs} under {formats}, e.g. {example.outcome.record.run_id}")
        lines.append(f"         {example.kind}")
        statement = example.statement
        if statement is not None:
            lines.append(f"         caused by step {statement.index} ({statement.session}): {statement.sql}")
        if example.shrunk is not None:
            shrunk = example.shrunk
            lines.append(f"         shrunk to {len(shrunk.scenario.steps)} steps: {shrunk.yaml} and {shrunk.test}")
    return "\n".join(lines)


def written_paths(paths: dict[str, Path]) -> str:
    """`report: OUT/report.json`, `junit: OUT/junit.xml`, `html: OUT/report.html`."""
    return "\n".join(f"{kind}: {path}" for kind, path in paths.items())


def recorded(outcomes: Sequence[RunOutcome], written: Sequence[Path], errors: Sequence[object]) -> str:
    """record-oracle's listing: each recording's verdict and file, the input errors, the counts."""
    lines = [f"{outcome.judgement.verdict.value:<14} {path}" for outcome, path in zip(outcomes, written)]
    lines.extend(f"INPUT ERROR  {error}" for error in errors)
    lines.append(f"{len(written)} runs recorded, {len(errors)} input errors")
    return "\n".join(lines)


def replay_status(db: Path, result: ReplayResult) -> str:
    """Where a replay started and ended, its retries and warnings, and why the slave stopped if it did."""
    status = result.status
    start = f"resumed at position {result.resumed_from}" if result.resumed_from is not None else "new database"
    lines = [f"{db}: {start}; applied {status.events_applied} events; position {status.applied_position}"]
    lines.extend(
        f"retry {retry.attempt} of the transaction at {retry.position} after {retry.wait_seconds:.2f} s: error {retry.code}: {retry.message}"
        for retry in status.retries
    )
    lines.extend(f"warning: {warning}" for warning in status.warnings)
    if status.waiting is not None:
        lines.append(f"waiting: {status.waiting}")
    if not status.running:
        error = status.error
        lines.append(f"slave stopped at position {status.error_position} ({status.error_event}): error {error.code} ({error.name}): {error.message}")
    return "\n".join(lines)
