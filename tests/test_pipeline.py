"""End to end: scenario -> master -> binlog -> slave -> Spark comparison -> verdict and report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.report import REPORT_FORMAT_VERSION
from harness.runner import run_variant
from harness.suite import RunOutcome, run_suite
from scenarios.loader import load_scenario
from server_sim.binlog.file import read_binlog
from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import ROOT, run_command, scenario_file


SUITE = ROOT / "scenarios" / "suites"


def run_yaml(text: str, spark, tmp_path: Path) -> dict[str, RunOutcome]:
    """Run one scenario through the packages; outcomes keyed by binlog format."""
    path = scenario_file(tmp_path, text, dedent=True)
    result = run_suite([path], MYSQL_80, tmp_path / "out", lambda: spark)
    assert result.input_errors == []
    return {run.record.variant["binlog_format"]: run for run in result.runs}


def verdicts(runs: dict[str, RunOutcome]) -> dict[str, str]:
    return {fmt: run.judgement.verdict.value for fmt, run in runs.items()}


def test_uuid_diverges_only_under_statement(spark, tmp_path: Path) -> None:
    runs = run_yaml(
        """
        name: uuid
        master_schema: ["CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(36))"]
        steps: [{session: con1, sql: "INSERT INTO t VALUES (1, UUID())"}]
        """,
        spark,
        tmp_path,
    )
    assert verdicts(runs) == {"STATEMENT": "divergent", "MIXED": "consistent", "ROW": "consistent"}
    explanation = runs["STATEMENT"].judgement.explanation
    assert any("SYSTEM_FUNCTION" in line for line in explanation)
    diff = runs["STATEMENT"].diff.tables[0]
    assert diff.only_on_master == 1 and diff.only_on_slave == 1
    assert diff.master_samples[0]["u"] != diff.slave_samples[0]["u"]


LIMIT_SCENARIO = """
    name: limit
    master_schema:
      - CREATE TABLE t (a INT NOT NULL, b INT NOT NULL, c INT DEFAULT 0, PRIMARY KEY (a)) ENGINE=InnoDB
      - INSERT INTO t (a, b) VALUES (1, 20), (2, 10)
    slave_schema: [{slave_schema}]
    steps: [{{session: con1, sql: "UPDATE t SET c = 1 LIMIT 1"}}]
"""


def test_unordered_limit_diverges_when_the_slave_primary_key_differs(spark, tmp_path: Path) -> None:
    runs = run_yaml(LIMIT_SCENARIO.format(slave_schema='"ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (b)"'), spark, tmp_path)
    assert verdicts(runs) == {"STATEMENT": "divergent", "MIXED": "consistent", "ROW": "consistent"}
    assert runs["STATEMENT"].record.steps[0].unsafe == ["LIMIT"]


def test_same_unordered_limit_on_identical_tables_does_not_diverge(spark, tmp_path: Path) -> None:
    runs = run_yaml(LIMIT_SCENARIO.format(slave_schema=""), spark, tmp_path)
    assert verdicts(runs) == {"STATEMENT": "consistent", "MIXED": "consistent", "ROW": "consistent"}
    assert [note.code for note in runs["STATEMENT"].record.steps[0].notes] == [1592]


def test_nontransactional_write_inside_a_transaction_diverges_under_statement_not_row(spark, tmp_path: Path) -> None:
    runs = run_yaml((SUITE / "wl2687-rationale-interleaved-updates.yaml").read_text(), spark, tmp_path)
    assert verdicts(runs) == {"STATEMENT": "divergent", "MIXED": "consistent", "ROW": "consistent"}
    master = runs["STATEMENT"].record.master_snapshot.tables["myisam_t"].rows
    slave = runs["STATEMENT"].record.slave_snapshot.tables["myisam_t"].rows
    assert (master, slave) == (((110,),), ((20,),))


def test_slave_fills_its_extra_column_from_its_default(spark, tmp_path: Path) -> None:
    runs = run_yaml((SUITE / "slave-extra-column-default.yaml").read_text(), spark, tmp_path)
    for run in runs.values():
        table = run.record.slave_snapshot.tables["t"]
        assert table.columns == ("a", "b", "c")
        assert {row[0]: row[2] for row in table.rows} == {1: 100, 2: 100}
        assert run.judgement.verdict.value == "consistent"


def test_missing_row_stops_the_slave_with_1032_at_the_update_rows_event(spark, tmp_path: Path) -> None:
    runs = run_yaml((SUITE / "slave-missing-row.yaml").read_text(), spark, tmp_path)
    slave = runs["ROW"].record.slave
    assert runs["ROW"].judgement.verdict.value == "slave_stopped"
    assert slave.error.code == 1032 and slave.error_event == "Update_rows"
    events = {e.position: e.event for e in read_binlog(runs["ROW"].record.binlog)}
    assert events[slave.error_position].type_name == "Update_rows"
    assert f"position {slave.error_position}" in slave.error.message
    # Nothing of the failed transaction stays applied.
    assert runs["ROW"].record.slave_snapshot.tables["t"].rows == ((2, 2),)


def test_bundled_suite_through_the_command_line(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["run", str(SUITE), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "SCENARIO" in printed and "wl2687-rationale-interleaved-updates" in printed
    text = (out / "report.json").read_text()
    report = json.loads(text)
    assert report["format_version"] == REPORT_FORMAT_VERSION
    assert report["summary"]["expectations_failed"] == 0 and report["summary"]["input_errors"] == 0
    lines = text.splitlines()
    first = lines.index('  "runs": [') + 1
    # One line per run, each a JSON object of its own.
    assert [json.loads(line.rstrip(",")) for line in lines[first : first + len(report["runs"])]] == report["runs"]
    loaded = [load_scenario(path) for path in sorted(SUITE.glob("*.yaml"))]
    assert {run["scenario"] for run in report["runs"]} == {scenario.name for scenario in loaded}
    assert len(report["runs"]) == sum(len(scenario.variants()) for scenario in loaded)
    step = next(run for run in report["runs"] if run["run_id"] == "uuid-insert__binlog_format_STATEMENT")["steps"][0]
    assert step["unsafe"] == ["SYSTEM_FUNCTION"] and step["logged_as"] == "STATEMENT"
    assert step["notes"][0]["code"] == 1592
    assert all(Path(run["binlog"]).is_file() for run in report["runs"])
    for kind, name in (("report", "report.json"), ("junit", "junit.xml"), ("html", "report.html")):
        assert f"{kind}: {out / name}" in printed and (out / name).is_file()


def test_malformed_scenario_is_reported_while_the_rest_of_the_suite_runs(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "good.yaml").write_text((SUITE / "uuid-insert.yaml").read_text())
    (suite / "bad.yaml").write_text("name: bad\nsteps:\n  - {session: con1, sql: 42, extra: 1}\n")
    (suite / "broken.yaml").write_text("name: [unclosed\n")
    (suite / "badvar.yaml").write_text("name: badvar\nsettings: {binlog_format: SOMETIMES}\n")
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out)]) == 2
    report = json.loads((out / "report.json").read_text())
    errors = {Path(e["file"]).name: e for e in report["input_errors"]}
    assert set(errors) == {"bad.yaml", "broken.yaml", "badvar.yaml"}
    assert errors["bad.yaml"]["key"].startswith("steps[0]")
    assert errors["badvar.yaml"]["key"] == "settings.binlog_format"
    assert [run["scenario"] for run in report["runs"]] == ["uuid-insert"] * 3
    assert all(run["expectations"] and all(e["held"] for e in run["expectations"]) for run in report["runs"])
    assert "INPUT ERROR" in capsys.readouterr().out


def test_unsupported_sql_fails_its_step_clearly_and_the_run_goes_on(spark, tmp_path: Path) -> None:
    runs = run_yaml(
        """
        name: unsupported
        master_schema: ["CREATE TABLE t (a INT PRIMARY KEY)"]
        steps:
          - {session: con1, sql: "INSERT OR REPLACE INTO t VALUES (1)"}
          - {session: con1, sql: "HANDLER t OPEN"}
          - {session: con1, sql: "SELECT * FROM read_parquet('/etc/passwd')"}
          - {session: con1, sql: "INSERT INTO t VALUES (2)"}
        """,
        spark,
        tmp_path,
    )
    steps = runs["ROW"].record.steps
    assert [s.status for s in steps] == ["error", "error", "error", "ok"]
    assert {steps[1].error.code, steps[2].error.code} == {1235}
    assert steps[0].error.code in (1064, 1235)
    # The tables agree, but the simulator ran only one statement of four: never consistent.
    judgement = runs["ROW"].judgement
    assert judgement.verdict.value == "unsupported"
    assert [line.split(":")[0] for line in judgement.explanation] == ["step 1 (con1)", "step 2 (con1)", "step 3 (con1)"]
    assert "HANDLER t OPEN" in judgement.explanation[1]
    assert not runs["ROW"].passed


@pytest.mark.parametrize(
    ("flavor", "stop_code", "applier_server_id"),
    [(MYSQL_80, 3002, 2), (MARIADB_1011, 0, 1)],
    ids=["mysql-8.0", "mariadb-10.11"],
)
def test_applier_differences_are_flavor_data(tmp_path: Path, flavor, stop_code: int, applier_server_id: int) -> None:
    """A statement that failed differently stops the applier with the flavor's code; MariaDB's
    applier reads @@server_id as the event's server id, MySQL's as its own."""
    failing = load_scenario(ROOT / "scenarios" / "oracle" / "failed-insert-myisam-slave-no-dup.yaml")
    record = run_variant(failing, {"binlog_format": "STATEMENT"}, flavor, tmp_path)
    assert record.slave is not None and not record.slave.running
    assert record.slave.error is not None and record.slave.error.code == stop_code
    probe = load_scenario(ROOT / "scenarios" / "oracle" / "sysvar-in-dml.yaml")
    record = run_variant(probe, {"binlog_format": "STATEMENT"}, flavor, tmp_path)
    slave_rows = record.slave_snapshot.tables["t"]
    assert slave_rows.rows[0][slave_rows.columns.index("sid")] == applier_server_id


def test_failed_step_expectation_fails_the_run_and_is_reported(spark, tmp_path: Path) -> None:
    path = scenario_file(
        tmp_path,
        """\
        name: limit
        master_schema: ["CREATE TABLE t (a INT PRIMARY KEY) ENGINE=InnoDB", "INSERT INTO t VALUES (1), (2)"]
        steps: [{session: con1, sql: "DELETE FROM t LIMIT 1"}]
        expect:
          - {when: {binlog_format: STATEMENT}, step: 1, notes: [LIMIT], events: [Query BEGIN, Query, Xid]}
          - {when: {binlog_format: ROW}, step: 1, notes: [LIMIT]}
        """,
        "limit.yaml",
        dedent=True,
    )
    code, report = run_command(tmp_path / "out", str(path))
    assert code == 1
    assert report["summary"]["expectations_failed"] == 1
    expectations = {run["variant"]: run["expectations"] for run in report["runs"]}
    assert expectations["binlog_format=MIXED"] == []
    [held] = expectations["binlog_format=STATEMENT"]
    assert held["held"] and (held["step"], held["notes"], held["events"], held["error"]) == (1, ["LIMIT"], ["Query BEGIN", "Query", "Xid"], None)
    [failed] = expectations["binlog_format=ROW"]
    assert not failed["held"] and failed["message"] == "step 1 (con1): expected notes [LIMIT], got []"


FLAVOR_SPECIFIC = sorted(path for path in SUITE.glob("*.yaml") if "flavor:" in path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=lambda flavor: flavor.name)
def test_bundled_scenarios_with_flavor_specific_expectations_hold_on_both_flavors(spark, tmp_path: Path, flavor) -> None:
    assert len(FLAVOR_SPECIFIC) >= 2
    result = run_suite(FLAVOR_SPECIFIC, flavor, tmp_path / "out", lambda: spark)
    assert result.input_errors == []
    assert [f"{run.record.run_id}: {e.message}" for run in result.runs for e in run.expectations if not e.held] == []
