"""The consistency report: report.json for CI (docs/report-format.md), rendered as junit.xml and
report.html. What the commands print for people is harness/console.py's."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from master_sim.results import StepResult
from scenarios.model import Verdict
from scenarios.writer import write_atomically
from server_sim.errors import Condition
from slave_sim.status import SlaveStatus

from .compare import TableDiff
from .fidelity import FidelityResult
from .html.page import write_html
from .judge import ErrorCheck, ExpectationResult, declared_errors
from .junit import write_junit
from .suite import RunOutcome, SuiteResult

if TYPE_CHECKING:
    from .fuzz import Finding, FindingGroup, FuzzConfig, FuzzResult

REPORT_FORMAT_VERSION = 5


def _condition(condition: Condition | None) -> dict[str, object] | None:
    if condition is None:
        return None
    return {"code": condition.code, "name": condition.name, "message": condition.message}


def _step(step: StepResult, declared: dict[int, tuple[int, ...]]) -> dict[str, object]:
    return {
        "index": step.index,
        "session": step.session,
        "sql": step.sql,
        "status": step.status,
        "error": _condition(step.error),
        "notes": [{"level": n.level, "code": n.code, "message": n.message} for n in step.notes],
        "reads": step.reads,
        "writes": step.writes,
        "unsafe": step.unsafe,
        "logged_as": step.logged_as,
        "affected_rows": step.affected_rows,
        "blocked_by": step.blocked_by,
        "ran_after_step": step.ran_after_step,
        "expected_error": list(declared.get(step.index, ())) if step.index is not None else [],
    }


def _diff(table: TableDiff) -> dict[str, object]:
    return asdict(table) | {
        "columns": list(table.columns),
        "key": list(table.key),
        "master_samples": list(table.master_samples),
        "slave_samples": list(table.slave_samples),
    }


def _slave(slave: SlaveStatus, detail: bool) -> dict[str, object]:
    """Where the slave ended; its row lookups only with `detail`."""
    return {
        "running": slave.running,
        "error": _condition(slave.error),
        "error_position": slave.error_position,
        "error_event": slave.error_event,
        "applied_position": slave.applied_position,
        "events_applied": slave.events_applied,
        "warnings": slave.warnings,
        "row_lookups": [{"position": l.position, "table": l.table, "key": l.key, "paths": l.paths} for l in slave.lookups] if detail else [],
    }


def _expectation(result: ExpectationResult) -> dict[str, object]:
    """An expect entry as written, and whether it held."""
    expectation = result.expectation
    return {
        "when": {k: list(v) for k, v in expectation.when.items()},
        "verdict": expectation.verdict.value if expectation.verdict else None,
        "slave_error": expectation.slave_error,
        "step": expectation.step,
        "notes": None if expectation.notes is None else list(expectation.notes),
        "error": expectation.error,
        "events": None if expectation.events is None else [str(e) for e in expectation.events],
        "held": result.held,
        "message": result.message,
    }


def _error_check(check: ErrorCheck) -> dict[str, object]:
    """A statement's declared error against the one it ended with."""
    return {
        "where": check.where,
        "sql": check.sql,
        "expected": list(check.expected),
        "actual": _condition(check.actual),
        "held": check.held,
        "message": check.message,
    }


def run_json(run: RunOutcome, detail: bool = True) -> dict[str, object]:
    """One run; without `detail` its statements and row lookups are left out (`[]`), as
    fuzz does for consistent runs, which it can regenerate from seed and index."""
    record = run.record
    declared = declared_errors(record.scenario)
    return {
        "detail": detail,
        "run_id": record.run_id,
        "scenario": record.scenario.name,
        "file": str(record.scenario.source) if record.scenario.source else None,
        "variant": record.label,
        "settings": record.variant,
        "seed": record.seed,
        "flavor": record.flavor,
        "master_schema": [_step(step, declared) for step in record.schema_steps] if detail else [],
        "steps": [_step(step, declared) for step in record.steps] if detail else [],
        "slave_schema": [{"sql": s.sql, "error": _condition(s.error)} for s in record.slave_schema],
        "binlog": str(record.binlog) if record.binlog else None,
        "server_binlogs": [str(path) for path in record.server_binlogs],
        "slave": None if record.slave is None else _slave(record.slave, detail),
        "verdict": run.judgement.verdict.value,
        "explanation": list(run.judgement.explanation),
        "diff": [_diff(table) for table in run.diff.tables] if run.diff else [],
        "expectations": [_expectation(result) for result in run.expectations],
        "error_checks": [_error_check(check) for check in run.error_checks],
        "covered": run.covered,
        "passed": run.passed,
        "error": record.error,
    }


def report_json(result: SuiteResult, flavor: str, fidelity: FidelityResult | None = None, command: str = "run") -> dict[str, object]:
    verdicts = [run.judgement.verdict.value for run in result.runs]
    detailed = command != "fuzz"
    return {
        "format_version": REPORT_FORMAT_VERSION,
        "command": command,
        "flavor": flavor,
        "partial": result.partial,
        "summary": {
            "runs": len(result.runs),
            **{name: verdicts.count(name) for name in (verdict.value for verdict in Verdict)},
            "runs_with_expectations": sum(bool(run.expectations) for run in result.runs),
            "expectations_met": sum(bool(run.expectations) and run.expectations_held for run in result.runs),
            "expectations_failed": sum(not run.expectations_held for run in result.runs),
            "runs_without_expectations": sum(not run.expectations for run in result.runs),
            "not_passed": sum(not run.passed for run in result.runs),
            "input_errors": len(result.input_errors),
            "exit_code": result.exit_code,
        },
        "input_errors": [{"file": str(e.source), "key": e.key, "message": e.message} for e in result.input_errors],
        "runs": [run_json(run, detailed or run.judgement.verdict is not Verdict.CONSISTENT) for run in result.runs],
        **({"fidelity": fidelity.to_json()} if fidelity is not None else {}),
        **({"not_run": list(result.not_run)} if result.not_run else {}),
    }


def fuzz_report_json(result: FuzzResult, flavor: str, config: FuzzConfig) -> dict[str, object]:
    """report_json for `rplharness fuzz`, with what was generated and explored, and the findings."""
    return report_json(result.suite, flavor, command="fuzz") | {
        "fuzz": {
            "seed": config.seed,
            "count": config.count,
            "interleavings": config.interleavings,
            "variants": config.variants,
            "generator": asdict(config.generator),
        },
        "exploration": result.exploration.as_dict(),
        "finding_groups": [_group(group, flavor) for group in result.groups],
        "findings": [_finding(finding) for finding in result.findings],
    }


FINDING_GROUP_RUN_IDS = 20  # run ids listed per group; report.json's findings has them all


def _group(group: FindingGroup, flavor: str) -> dict[str, object]:
    return {
        "signature": group.signature.as_dict(),
        "title": group.signature.title,
        "count": len(group.findings),
        "formats": sorted({finding.outcome.record.variant.get("binlog_format", "") for finding in group.findings}),
        "run_ids": [finding.outcome.record.run_id for finding in group.findings[:FINDING_GROUP_RUN_IDS]],
        "flavor": flavor,
        "example": _finding(group.example),
    }


def _finding(finding: Finding) -> dict[str, object]:
    record = finding.outcome.record
    statement = finding.statement
    shrunk = finding.shrunk
    return {
        "run_id": record.run_id,
        "scenario": record.scenario.name,
        "variant": record.label,
        "kind": finding.kind,
        "signature": finding.signature.as_dict(),
        "explanation": list(finding.outcome.judgement.explanation),
        "statement": None if statement is None else {"step": statement.index, "session": statement.session, "sql": statement.sql},
        "shrunk": None
        if shrunk is None
        else {
            "yaml": str(shrunk.yaml),
            "test": str(shrunk.test),
            "steps": len(shrunk.scenario.steps),
            "sql": [step.sql for step in shrunk.scenario.steps],
            "runs": shrunk.runs,
            "reproduced": shrunk.reproduced,
            "scenario_yaml": shrunk.text,
            "passes": [stats.as_dict() for stats in shrunk.passes],
        },
    }


def write_reports(result: SuiteResult, flavor: str, out: Path, fidelity: FidelityResult | None = None, command: str = "run") -> dict[str, Path]:
    """OUT/report.json, OUT/junit.xml and OUT/report.html for `run` and `check-fidelity`."""
    return write_documents(report_json(result, flavor, fidelity, command), out)


# The documents `write_documents` writes into OUT, which a new command retires first.
REPORT_FILES = ("report.json", "junit.xml", "report.html")


def write_documents(document: dict[str, object], out: Path) -> dict[str, Path]:
    """Write the report document as report.json, junit.xml and report.html, each
    atomically; the paths by kind (`report`, `junit`, `html`)."""
    report, junit, html = REPORT_FILES
    return {
        "report": write_atomically(out / report, report_text(document)),
        "junit": write_junit(document, out / junit),
        "html": write_html(document, out / html),
    }


def report_text(document: dict[str, object]) -> str:
    """The report as JSON text, a line per top-level key and per item of a top-level list
    (a run, a finding): readable and greppable. Each line comes from the json module's C
    encoder; indent=2 would take its Python one, ten times slower on a 10 000-run report."""
    lines = ["{"]
    for number, (key, value) in enumerate(document.items(), start=1):
        comma = "," if number < len(document) else ""
        if isinstance(value, list) and value:
            lines.append(f"  {json.dumps(key)}: [")
            lines.extend(f"    {json.dumps(item, default=str)}{',' if index < len(value) else ''}" for index, item in enumerate(value, start=1))
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, default=str)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"
