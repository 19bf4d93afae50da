"""junit.xml: the report document as JUnit XML, the test-result format CI servers display.

One test case per run (classname the scenario, name the variant), one test suite per
scenario. A run fails on an unmet `expect` entry or a finding and errs when the simulator
failed. A run the report says did not pass (`passed` false) fails too: a failed error
check, the unsupported verdict, or a divergence or slave stop no expect entry allows; in
older reports without `passed` such runs pass. With a fidelity section, a "fidelity"
suite has a test case per run compared with a real server, failing on a disagreement no
known difference explains. Files that could not be loaded are test cases in error.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scenarios.writer import write_atomically


# XML 1.0 cannot carry most control characters, not even escaped; SQL and tracebacks may.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: object) -> str:
    return _NOT_XML.sub("\ufffd", str(value))


def _finding_message(finding: Mapping[str, Any]) -> str:
    """`kind: explanation; ...`, the one line a CI server shows for a finding."""
    return "; ".join([str(finding["kind"]), *map(str, finding.get("explanation") or [])])


def _finding_body(finding: Mapping[str, Any]) -> str:
    lines = [f"kind: {finding['kind']}", *map(str, finding.get("explanation") or [])]
    statement = finding.get("statement")
    if statement:
        lines.append(f"caused by step {statement['step']} ({statement['session']}): {statement['sql']}")
    shrunk = finding.get("shrunk")
    if shrunk:
        lines.append(f"shrunk to {shrunk['steps']} steps: {shrunk['yaml']} (test {shrunk['test']})")
        lines.extend(f"  {sql}" for sql in shrunk.get("sql") or [])
    return "\n".join(lines)


def _codes(codes: list[object]) -> str:
    return " or ".join("success" if code == 0 else str(code) for code in codes) or "no error"


def _check_body(check: Mapping[str, Any]) -> str:
    """`error check failed at step 3 (con1): SQL` and what was declared against what came back."""
    actual = check.get("actual")
    got = f"{actual.get('code')} {actual.get('name')}: {actual.get('message')}" if actual else "success"
    return f"error check failed at {check.get('where')}: {check.get('sql')}\n  expected {_codes(list(check.get('expected') or []))}, got {got}: {check.get('message')}"


def _not_passed(run: Mapping[str, Any], failed_checks: list[Mapping[str, Any]], unmet: bool) -> tuple[list[str], list[str], list[str]]:
    """Why a run whose `passed` is false did not pass, beyond findings and unmet expectations:
    messages, bodies and failure types. A verdict no expect entry allows is "unchecked" only
    when nothing the scenario declared failed: a failed check already says what went wrong."""
    verdict = str(run["verdict"])
    explanation = [str(line) for line in run.get("explanation") or []]
    messages, bodies, types = [], [], []
    if verdict == "unsupported":
        messages.append("; ".join(["unsupported", *explanation]))
        bodies.append("\n".join(["the simulator refused or could not parse a statement no step declared", *explanation]))
        types.append("unsupported")
    if failed_checks:
        messages.extend(f"{check.get('where')}: {check.get('message')}" for check in failed_checks)
        bodies.extend(map(_check_body, failed_checks))
        types.append("error-check")
    if verdict in ("divergent", "slave_stopped") and run.get("covered") is False and not failed_checks and not unmet:
        messages.append(f"{verdict}, and no expect entry allows it")
        bodies.append("\n".join([f"verdict {verdict}, and no expect entry allows it", *explanation]))
        types.append("unchecked")
    return messages, bodies, types


def _testcase(run: Mapping[str, Any], finding: Mapping[str, Any] | None) -> ET.Element:
    case = ET.Element("testcase", classname=_text(run["scenario"]), name=_text(run["variant"]), time="0")
    verdict = run["verdict"]
    explanation = [str(line) for line in run.get("explanation") or []]
    unmet = [str(e["message"]) for e in run.get("expectations") or [] if not e["held"]]
    # `passed` (newer documents) decides whether anything beyond findings, errors and unmet
    # expectations fails the case; without it a run fails as it always did.
    judged = run.get("passed") is False
    failed_checks = [check for check in run.get("error_checks") or [] if not check.get("held", True)] if judged else []
    if verdict == "error":
        error = ET.SubElement(case, "error", message=_text("; ".join(explanation) or "simulator error"), type="error")
        lines = [str(run.get("error") or ""), *(f"expectation failed: {m}" for m in unmet), *map(_check_body, failed_checks)]
        error.text = _text("\n".join(lines).strip())
    else:
        messages, bodies, types = [], [], []
        if verdict == "finding":
            finding = finding or {"kind": "finding", "explanation": explanation}
            messages.append(_finding_message(finding))
            bodies.append(_finding_body(finding))
            types.append("finding")
        if unmet:
            messages.extend(unmet)
            bodies.extend(f"expectation failed: {message}" for message in unmet)
            types.append("expectation")
        if judged:
            more = _not_passed(run, failed_checks, bool(unmet))
            messages.extend(more[0])
            bodies.extend(more[1])
            types.extend(more[2])
            if not types:
                messages.append(f"{verdict}: the run did not pass")
                bodies.append("\n".join([f"verdict {verdict}: the run did not pass", *explanation]))
                types.append("not passed")
        if types:
            failure = ET.SubElement(case, "failure", message=_text("; ".join(messages)), type=", ".join(types))
            failure.text = _text("\n".join(bodies))
    out = ET.SubElement(case, "system-out")
    out.text = _text("\n".join([f"verdict: {verdict}", *explanation, f"binlog: {run.get('binlog')}"]))
    return case


def _clip(text: object, limit: int = 200) -> str:
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def _disagreement(d: Mapping[str, Any], limit: int | None = 200) -> str:
    simulator, server = (str(d.get(side)) if limit is None else _clip(d.get(side), limit) for side in ("simulator", "server"))
    return f"{d.get('category')} {d.get('where')}: simulator {simulator} | server {server}"


def _fidelity_cases(section: Mapping[str, Any]) -> list[ET.Element]:
    """A test case per run compared with the server: it fails on a disagreement no known
    difference explains; explained ones and their reasons go to system-out. A run with no
    server observation fails too, as it fails the command."""
    cases = []
    for run in section.get("runs") or []:
        case = ET.Element("testcase", classname=_text(f"fidelity.{run.get('scenario')}"), name=_text(run.get("variant")), time="0")
        disagreements = list(run.get("disagreements") or [])
        unexplained = [d for d in disagreements if d.get("known") is None]
        if unexplained:
            failure = ET.SubElement(case, "failure", message=_text("; ".join(map(_disagreement, unexplained))), type="disagreement")
            failure.text = _text("\n".join(_disagreement(d, None) for d in unexplained))
        known = [f"known: {_disagreement(d, None)} ({d.get('known')})" for d in disagreements if d.get("known") is not None]
        out = ET.SubElement(case, "system-out")
        out.text = _text("\n".join([f"{len(unexplained)} unexplained disagreements, {len(known)} known" if disagreements else "agrees with the server", *known]))
        cases.append(case)
    for missing in section.get("missing") or []:
        case = ET.Element("testcase", classname="fidelity.missing", name=_text(missing), time="0")
        failure = ET.SubElement(case, "failure", message=_text(missing), type="missing")
        failure.text = _text(f"no server observation: {missing}")
        cases.append(case)
    return cases


def _input_error_case(file: str, errors: list[Mapping[str, Any]]) -> ET.Element:
    case = ET.Element("testcase", classname="input_errors", name=_text(file), time="0")
    messages = [f"{e['key']}: {e['message']}" if e["key"] else str(e["message"]) for e in errors]
    error = ET.SubElement(case, "error", message=_text("; ".join(messages)), type="input error")
    error.text = _text("\n".join(messages))
    return case


def _suite(name: str, cases: list[ET.Element]) -> ET.Element:
    suite = ET.Element("testsuite", name=_text(name))
    _count(suite, cases)
    suite.extend(cases)
    return suite


def _count(element: ET.Element, cases: list[ET.Element]) -> None:
    """The counters CI servers read: tests, failures, errors, skipped, time (no timings are recorded)."""
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(case.find("failure") is not None for case in cases)))
    element.set("errors", str(sum(case.find("error") is not None for case in cases)))
    element.set("skipped", "0")
    element.set("time", "0")


def junit_xml(report: Mapping[str, Any]) -> ET.Element:
    """`<testsuites>`: a test suite per scenario, in run order, then one of the fidelity
    against a real server when it was checked, then one of input errors."""
    findings = {finding["run_id"]: finding for finding in report.get("findings") or []}
    scenarios: dict[str, list[ET.Element]] = {}
    for run in report["runs"]:
        scenarios.setdefault(str(run["scenario"]), []).append(_testcase(run, findings.get(run["run_id"])))
    suites = [_suite(name, cases) for name, cases in scenarios.items()]
    fidelity = report.get("fidelity")
    if fidelity:
        suites.append(_suite("fidelity", _fidelity_cases(fidelity)))
    by_file: dict[str, list[Mapping[str, Any]]] = {}
    for error in report.get("input_errors") or []:
        by_file.setdefault(str(error["file"]), []).append(error)
    if by_file:
        suites.append(_suite("input_errors", [_input_error_case(file, errors) for file, errors in by_file.items()]))
    root = ET.Element("testsuites", name="rplharness")
    _count(root, [case for suite in suites for case in suite])
    root.extend(suites)
    return root


def write_junit(report: Mapping[str, Any], path: Path) -> Path:
    """Write the report document as JUnit XML to `path`, atomically."""
    root = junit_xml(report)
    ET.indent(root)
    return write_atomically(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
