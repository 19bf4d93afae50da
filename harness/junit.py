"""junit.xml: the report document as JUnit XML, the test-result format CI servers display.

One test case per run (classname the scenario, name the variant), one test suite per
scenario. A run fails on an unmet `expect` entry or a finding and errs when the simulator
failed; a divergence an expectation allows, or none covers, passes. Files that could not
be loaded are test cases in error, named after the file.
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


def _testcase(run: Mapping[str, Any], finding: Mapping[str, Any] | None) -> ET.Element:
    case = ET.Element("testcase", classname=_text(run["scenario"]), name=_text(run["variant"]), time="0")
    verdict = run["verdict"]
    explanation = [str(line) for line in run.get("explanation") or []]
    unmet = [str(e["message"]) for e in run.get("expectations") or [] if not e["held"]]
    if verdict == "error":
        error = ET.SubElement(case, "error", message=_text("; ".join(explanation) or "simulator error"), type="error")
        error.text = _text("\n".join([str(run.get("error") or ""), *(f"expectation failed: {m}" for m in unmet)]).strip())
    elif verdict == "finding" or unmet:
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
        failure = ET.SubElement(case, "failure", message=_text("; ".join(messages)), type=", ".join(types))
        failure.text = _text("\n".join(bodies))
    out = ET.SubElement(case, "system-out")
    out.text = _text("\n".join([f"verdict: {verdict}", *explanation, f"binlog: {run.get('binlog')}"]))
    return case


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
    """`<testsuites>`: a test suite per scenario, in run order, then one of input errors."""
    findings = {finding["run_id"]: finding for finding in report.get("findings") or []}
    scenarios: dict[str, list[ET.Element]] = {}
    for run in report["runs"]:
        scenarios.setdefault(str(run["scenario"]), []).append(_testcase(run, findings.get(run["run_id"])))
    suites = [_suite(name, cases) for name, cases in scenarios.items()]
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
