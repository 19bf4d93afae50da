"""junit.xml: one test case per run, failures for unmet expectations and findings, errors for
simulator failures and input errors, counters that add up."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from harness.junit import write_junit


def _written(report: dict[str, object], tmp_path: Path) -> ET.Element:
    path = write_junit(report, tmp_path / "junit.xml")
    assert path == tmp_path / "junit.xml"
    assert [p.name for p in tmp_path.iterdir()] == ["junit.xml"]
    return ET.parse(path).getroot()


def _cases(root: ET.Element) -> dict[tuple[str, str], ET.Element]:
    return {(case.get("classname"), case.get("name")): case for case in root.iter("testcase")}


def test_each_run_is_a_test_case_under_its_scenario(made_report: dict[str, object], tmp_path: Path) -> None:
    root = _written(made_report, tmp_path)
    assert root.tag == "testsuites"
    assert [suite.get("name") for suite in root] == ["plain", "hunted", "<b>broken</b>", "unparsable", "locks", "fidelity", "input_errors"]
    plain = root.find("testsuite[@name='plain']")
    assert [case.get("name") for case in plain] == ["binlog_format=ROW", "binlog_format=STATEMENT", "binlog_format=MIXED"]
    assert (plain.get("tests"), plain.get("failures"), plain.get("errors"), plain.get("skipped")) == ("3", "1", "0", "0")
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("13", "6", "3", "0")
    assert all(suite.get("time") == "0" for suite in root)


def test_runs_that_meet_their_expectations_pass_with_their_verdict_in_system_out(made_report: dict[str, object], tmp_path: Path) -> None:
    cases = _cases(_written(made_report, tmp_path))
    divergent = cases[("plain", "binlog_format=STATEMENT")]
    assert divergent.find("failure") is None and divergent.find("error") is None
    out = divergent.find("system-out").text
    assert out.startswith("verdict: divergent\n") and "tables that differ: t" in out


def test_unmet_expectation_and_finding_are_failures(made_report: dict[str, object], tmp_path: Path) -> None:
    cases = _cases(_written(made_report, tmp_path))
    unmet = cases[("plain", "binlog_format=MIXED")].find("failure")
    assert (unmet.get("message"), unmet.get("type")) == ("expected verdict consistent, got divergent", "expectation")
    finding = cases[("hunted", "binlog_format=ROW,binlog_row_image=MINIMAL")].find("failure")
    assert finding.get("type") == "finding"
    assert finding.get("message") == "divergence under ROW with identical schemas; tables that differ: t"
    assert "caused by step 1 (con1): INSERT INTO t VALUES ('<script>" in finding.text
    assert "shrunk to 1 steps: out/shrunk/hunted.yaml (test out/shrunk/test_hunted.py)" in finding.text


def test_runs_that_did_not_pass_fail(made_report: dict[str, object], tmp_path: Path) -> None:
    cases = _cases(_written(made_report, tmp_path))
    unsupported = cases[("unparsable", "binlog_format=ROW")].find("failure")
    assert unsupported.get("type") == "unsupported, error-check"
    assert unsupported.get("message") == (
        "unsupported; step 1 (con1): the simulator could not parse it: 1064 ER_PARSE_ERROR; "
        "step 1 (con1): error 1064 ER_PARSE_ERROR, and no error was declared"
    )
    assert "error check failed at step 1 (con1): SELECT <script>\n  expected no error, got 1064 ER_PARSE_ERROR: You have an error" in unsupported.text
    check = cases[("locks", "binlog_format=ROW")].find("failure")
    assert (check.get("type"), check.get("message")) == ("error-check", "step 2 (con1): expected error 1062, got success")
    assert "expected 1062, got success: expected error 1062, got success" in check.text


def test_a_verdict_no_expectation_allows_fails_as_unchecked(made_report: dict[str, object], tmp_path: Path) -> None:
    made_report["runs"][6]["error_checks"][0]["held"] = True
    unchecked = _cases(_written(made_report, tmp_path))[("locks", "binlog_format=ROW")].find("failure")
    assert (unchecked.get("type"), unchecked.get("message")) == ("unchecked", "slave_stopped, and no expect entry allows it")
    assert "slave stopped at position 420 (Update_rows): error 1032" in unchecked.text


def test_without_passed_runs_fail_as_they_always_did(made_report: dict[str, object], tmp_path: Path) -> None:
    for run in made_report["runs"]:
        del run["passed"], run["covered"]
    del made_report["fidelity"]
    root = _written(made_report, tmp_path)
    cases = _cases(root)
    assert cases[("unparsable", "binlog_format=ROW")].find("failure") is None and cases[("locks", "binlog_format=ROW")].find("failure") is None
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("9", "2", "3")


def test_fidelity_is_a_suite_of_compared_runs(made_report: dict[str, object], tmp_path: Path) -> None:
    root = _written(made_report, tmp_path)
    suite = root.find("testsuite[@name='fidelity']")
    assert [(case.get("classname"), case.get("name")) for case in suite] == [
        ("fidelity.plain", "binlog_format=ROW"), ("fidelity.plain", "binlog_format=STATEMENT"), ("fidelity.locks", "binlog_format=ROW"),
        ("fidelity.missing", "<b>gone</b> [binlog_format=ROW]: no recording expected/gone__binlog_format_ROW.json"),
    ]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "2", "0")
    agrees, disagrees, known, missing = list(suite)
    assert agrees.find("failure") is None and agrees.find("system-out").text == "agrees with the server"
    failure = disagrees.find("failure")
    assert (failure.get("type"), failure.get("message")) == ("disagreement", "steps step 1 (con1): simulator ok | server error 1064 <script>alert(1)</script>")
    assert known.find("failure") is None
    assert known.find("system-out").text == (
        "0 unexplained disagreements, 1 known\nknown: blocking step 3 (con2): simulator blocked | server ran at once (the server's gap locks differ)"
    )
    assert missing.find("failure").get("type") == "missing"


def test_finding_without_a_findings_entry_fails_with_its_explanation(made_report: dict[str, object], tmp_path: Path) -> None:
    del made_report["findings"]
    failure = _cases(_written(made_report, tmp_path))[("hunted", "binlog_format=ROW,binlog_row_image=MINIMAL")].find("failure")
    assert failure.get("message") == "finding; tables that differ: t"


def test_simulator_error_and_input_errors_are_errors(made_report: dict[str, object], tmp_path: Path) -> None:
    cases = _cases(_written(made_report, tmp_path))
    error = cases[("<b>broken</b>", "binlog_format=STATEMENT")].find("error")
    assert error.get("message") == "ValueError: boom" and error.text.startswith("Traceback (most recent call last):")
    bad = cases[("input_errors", "suite/bad.yaml")].find("error")
    assert bad.get("type") == "input error"
    assert bad.get("message") == "steps[0]: unknown key extra; settings.binlog_format: Variable 'binlog_format' can't be set to the value of 'FOO'"
    assert cases[("input_errors", "suite/worse.yaml")].find("error").get("message") == "not valid YAML"


def test_characters_xml_cannot_carry_are_replaced(made_report: dict[str, object], tmp_path: Path) -> None:
    made_report["runs"][4]["error"] = "Traceback\x00\x1b[31m\nValueError: boom"
    error = _cases(_written(made_report, tmp_path))[("<b>broken</b>", "binlog_format=STATEMENT")].find("error")
    assert error.text == "Traceback\ufffd\ufffd[31m\nValueError: boom"


def test_real_report(real_report: dict[str, object], tmp_path: Path) -> None:
    root = _written(real_report, tmp_path)
    summary = real_report["summary"]
    assert root.get("tests") == str(summary["runs"] + 1)
    assert root.get("failures") == str(summary["expectations_failed"]) == "1"
    assert root.get("errors") == "1"
    cases = _cases(root)
    assert {(run["scenario"], run["variant"]) for run in real_report["runs"]} | {("input_errors", real_report["input_errors"][0]["file"])} == set(cases)
    assert cases[("hostile", "binlog_format=ROW")].find("failure").get("message") == "expected verdict divergent, got consistent"
    stopped = cases[("slave-missing-row", "binlog_format=ROW")]
    assert stopped.find("failure") is None and "verdict: slave_stopped" in stopped.find("system-out").text
