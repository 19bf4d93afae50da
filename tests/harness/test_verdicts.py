"""Honest verdicts through the command line: declared and undeclared errors, SQL the
simulator cannot run, expectations that could never match, and the exit codes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.cli import main
from harness.compare import diff_snapshots
from harness.findings import causing_step, signature, statement_kind
from harness.judge import judge
from harness.runner import RunRecord, run_variant
from scenarios.loader import load_scenario
from scenarios.model import Scenario, Verdict
from server_sim.errors import Condition
from server_sim.flavor import MYSQL_80
from slave_sim.status import SlaveStatus
from tests.support import run_command, scenario_file


def write(directory: Path, name: str, text: str) -> Path:
    return scenario_file(directory, f"name: {name}\n" + textwrap.dedent(text), f"{name}.yaml")


SCHEMA = """\
master_schema:
  - CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB
  - INSERT INTO t VALUES (1, 1)
"""


def test_an_undeclared_error_fails_the_run_and_the_console_says_which_step(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "dup", SCHEMA + 'steps:\n  - {session: con1, sql: "INSERT INTO t VALUES (1, 2)"}\nsettings: {binlog_format: ROW}\n')
    code, report = run_command(tmp_path / "out", str(path))
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL" in out and "step 1 (con1) failed with error 1062 ER_DUP_ENTRY: Duplicate entry '1' for key 't.PRIMARY'" in out
    run_json = report["runs"][0]
    assert run_json["verdict"] == "consistent" and run_json["passed"] is False
    assert run_json["error_checks"] == [
        {
            "where": "step 1 (con1)",
            "sql": "INSERT INTO t VALUES (1, 2)",
            "expected": [],
            "actual": {"code": 1062, "name": "ER_DUP_ENTRY", "message": "Duplicate entry '1' for key 't.PRIMARY'"},
            "held": False,
            "message": "failed with error 1062 ER_DUP_ENTRY: Duplicate entry '1' for key 't.PRIMARY' (declare it with `error:` on the step)",
        }
    ]


def test_errors_declared_by_name_code_or_list_hold(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path,
        "declared",
        SCHEMA
        + textwrap.dedent(
            """\
        steps:
          - {session: con1, sql: "INSERT INTO t VALUES (1, 2)", error: ER_DUP_ENTRY}
          - {session: con1, sql: "INSERT INTO t VALUES (1, 3)", error: 1062}
          - {session: con1, sql: "INSERT INTO t VALUES (2, 2)", error: [0, ER_DUP_ENTRY]}
          - {session: con1, sql: "INSERT INTO nope VALUES (1)", error: [ER_NO_SUCH_TABLE, 1062]}
        """
        ),
    )
    code, report = run_command(tmp_path / "out", str(path))
    capsys.readouterr()
    assert code == 0
    assert all(run["passed"] for run in report["runs"])
    checks = report["runs"][0]["error_checks"]
    assert [(check["where"], check["expected"], check["held"]) for check in checks] == [
        ("step 1 (con1)", [1062], True),
        ("step 2 (con1)", [1062], True),
        ("step 3 (con1)", [0, 1062], True),
        ("step 4 (con1)", [1146, 1062], True),
    ]
    assert report["runs"][0]["steps"][0]["expected_error"] == [1062]


def test_a_declared_error_that_does_not_happen_fails_as_in_mysqltest(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "no-dup", SCHEMA + 'steps:\n  - {session: con1, sql: "INSERT INTO t VALUES (2, 2)", error: ER_DUP_ENTRY}\nsettings: {binlog_format: ROW}\n')
    code, _ = run_command(tmp_path / "out", str(path))
    assert code == 1
    assert "step 1 (con1) expected 1062 ER_DUP_ENTRY, got no error" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("section", "sql"),
    [
        ("steps", "INSRT INTO t VALUES (2, 2)"),
        ("steps", "FLUSH TABLES"),
        ("steps", "LOAD DATA INFILE 'x' INTO TABLE t"),
        ("master_schema", "CREATE TABEL u (a INT)"),
    ],
)
def test_sql_the_simulator_cannot_run_is_never_consistent(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, sql: str) -> None:
    text = SCHEMA + "settings: {binlog_format: ROW}\n"
    if section == "steps":
        text += f'steps:\n  - {{session: con1, sql: "{sql}"}}\n'
    else:
        text = text.replace("master_schema:\n", f'master_schema:\n  - "{sql}"\n')
    code, report = run_command(tmp_path / "out", str(write(tmp_path, "refused", text)))
    out = capsys.readouterr().out
    assert code == 1
    run_json = report["runs"][0]
    assert run_json["verdict"] == "unsupported"
    assert report["summary"]["unsupported"] == 1
    assert run_json["error_checks"][0]["actual"]["code"] in (1064, 1235)
    assert "unsupported" in out and sql in out


def test_a_declared_refusal_is_not_unsupported(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "refusal", SCHEMA + 'settings: {binlog_format: ROW}\nsteps:\n  - {session: con1, sql: "FLUSH TABLES", error: ER_NOT_SUPPORTED_YET}\n')
    code, report = run_command(tmp_path / "out", str(path))
    capsys.readouterr()
    assert (code, report["runs"][0]["verdict"]) == (0, "consistent")


@pytest.mark.parametrize(
    ("when", "key", "message"),
    [
        ("{binlog_format: STATMENT}", "expect[0].when.binlog_format", "no run of this scenario has binlog_format = STATMENT; its runs have MIXED, ROW, STATEMENT"),
        ("{flavour: mysql-8.0}", "expect[0].when.flavour", "no run of this scenario sets flavour; `when` can name binlog_format, flavor"),
        ("{flavor: mysql-9.0}", "expect[0].when.flavor", "no run of this scenario has flavor = mysql-9.0; its runs have mariadb-10.11, mysql-8.0"),
        ("{binlog_row_image: MINIMAL}", "expect[0].when.binlog_row_image", "no run of this scenario sets binlog_row_image"),
    ],
)
def test_an_expectation_no_run_can_match_is_an_input_error(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str], when: str, key: str, message: str) -> None:
    path = write(tmp_path, "never", SCHEMA + f"expect:\n  - when: {when}\n    verdict: consistent\n")
    code, report = run_command(tmp_path / "out", str(path))
    out = capsys.readouterr().out
    assert code == 2
    assert f"INPUT ERROR  {path}: {key}: {message}" in out
    assert report["runs"] == []


def test_a_pinned_flavor_is_honoured_and_bounds_when(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pinned = write(tmp_path, "pinned", "flavor: mariadb-10.11\nsettings: {binlog_format: ROW}\n" + SCHEMA + "expect:\n  - when: {flavor: mariadb-10.11}\n    verdict: consistent\n")
    code, report = run_command(tmp_path / "out", str(pinned))
    capsys.readouterr()
    assert code == 0
    assert [run["flavor"] for run in report["runs"]] == ["mariadb-10.11"]
    wrong = write(tmp_path, "pinned-wrong", "flavor: mariadb-10.11\n" + SCHEMA + "expect:\n  - when: {flavor: mysql-8.0}\n    verdict: consistent\n")
    assert main(["run", str(wrong), "--out", str(tmp_path / "wrong")]) == 2
    assert "no run of this scenario has flavor = mysql-8.0; its runs have mariadb-10.11" in capsys.readouterr().out


UUID = """\
master_schema:
  - CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(36)) ENGINE=InnoDB
steps:
  - {session: con1, sql: "INSERT INTO t VALUES (1, UUID())"}
  - {session: con1, sql: "INSERT INTO t VALUES (2, 'two')"}
"""


def test_exit_codes_follow_pt_table_checksum(spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A divergence nothing allows: exit 1, the table says UNCHECKED with the diff counts.
    uncovered = write(tmp_path, "uuid", UUID)
    code, report = run_command(tmp_path / "out", str(uncovered))
    out = capsys.readouterr().out
    assert code == 1
    statement = next(line for line in out.splitlines() if "binlog_format=STATEMENT" in line)
    assert "divergent" in statement and "UNCHECKED" in statement and "t: 0 missing, 0 extra, 1 changed" in statement
    assert "divergent, and no expect entry allows it" in statement
    assert "3 runs: 0 with expectations (0 met, 0 failed), 3 without (2 consistent, 1 not); 1 need attention; 0 input errors" in out
    assert report["summary"]["not_passed"] == 1 and report["summary"]["runs_without_expectations"] == 3
    # The same divergence, expected: exit 0.
    covered = write(tmp_path, "uuid-expected", UUID + "expect:\n  - when: {binlog_format: STATEMENT}\n    verdict: divergent\n")
    code, report = run_command(tmp_path / "out", str(covered))
    out = capsys.readouterr().out
    assert code == 0
    assert "3 runs: 1 with expectations (1 met, 0 failed), 2 without (2 consistent, 0 not); 0 need attention" in out
    # No scenario at all: exit 2.
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["run", str(empty), "--out", str(tmp_path / "none")]) == 2
    assert "no scenario found" in capsys.readouterr().out


def test_the_cause_is_the_step_that_wrote_the_differing_row(tmp_path: Path) -> None:
    """The UUID() row differs; the later INSERT wrote the same table but not that row."""
    record = run_variant(scenario_of(tmp_path, UUID), {"binlog_format": "STATEMENT"}, MYSQL_80, tmp_path / "binlogs")
    diff = diff_snapshots(record.master_snapshot, record.slave_snapshot)
    cause = causing_step(record, diff)
    assert cause is not None and cause.index == 1
    assert signature(record, diff, cause).title == "divergence after INSERT unsafe: SYSTEM_FUNCTION (primary key, rows changed)"


def test_a_row_logged_slave_stop_with_identical_schemas_is_a_finding(tmp_path: Path) -> None:
    scenario = scenario_of(tmp_path, SCHEMA + 'steps:\n  - {session: con1, sql: "UPDATE t SET b = 2 WHERE a = 1"}\n')
    for binlog_format, event, verdict in [("ROW", "Update_rows", Verdict.FINDING), ("MIXED", "Update_rows", Verdict.FINDING), ("MIXED", "Query", Verdict.SLAVE_STOPPED), ("STATEMENT", "Query", Verdict.SLAVE_STOPPED)]:
        record = RunRecord("r", scenario, {"binlog_format": binlog_format}, "", 0, flavor=MYSQL_80.name)
        record.slave = SlaveStatus(running=False, error=Condition("Error", 1032, "ER_KEY_NOT_FOUND", "Can't find record in 't'"), error_position=300, error_event=event)
        judgement = judge(record, None)
        assert judgement.verdict is verdict, (binlog_format, event)
        if verdict is Verdict.FINDING:
            assert judgement.explanation[0] == f"slave stopped under {binlog_format} with identical schemas: error 1032 ER_KEY_NOT_FOUND"
    # The slave's own tables explain a stop.
    differing = scenario_of(tmp_path, SCHEMA + "slave_schema: [DELETE FROM t]\n")
    record = RunRecord("r", differing, {"binlog_format": "ROW"}, "", 0, flavor=MYSQL_80.name)
    record.slave = SlaveStatus(running=False, error=Condition("Error", 1032, "ER_KEY_NOT_FOUND", "x"), error_position=300, error_event="Update_rows")
    assert judge(record, None).verdict is Verdict.SLAVE_STOPPED


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("INSERT INTO t VALUES (1)", "INSERT"),
        ("INSERT IGNORE INTO t SELECT * FROM u", "INSERT IGNORE ... SELECT"),
        ("INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 2", "INSERT ... ON DUPLICATE KEY UPDATE"),
        ("REPLACE INTO t VALUES (1)", "REPLACE"),
        ("UPDATE t SET a = 1 LIMIT 1", "UPDATE ... LIMIT"),
        ("UPDATE t JOIN u ON t.a = u.a SET t.a = 1", "multi-table UPDATE"),
        ("DELETE FROM t", "DELETE"),
        ("INSRT x", "INSRT"),
    ],
)
def test_statement_kinds_of_a_signature(sql: str, kind: str) -> None:
    assert statement_kind(sql) == kind


def scenario_of(tmp_path: Path, text: str) -> Scenario:
    return load_scenario(write(tmp_path, "s", text))


@pytest.mark.parametrize(
    ("notes", "verdict"),
    [
        ([Condition("Note", 1592, "ER_BINLOG_UNSAFE_STATEMENT", "Unsafe statement written to the binary log")], Verdict.DIVERGENT),
        ([], Verdict.FINDING),
    ],
)
def test_a_real_servers_note_1592_explains_its_divergence(tmp_path: Path, notes: list[Condition], verdict: Verdict) -> None:
    """A real server's steps carry no logging decision: its own Note 1592 says it logged an
    unsafe statement as a statement (a CALL's statements included)."""
    record = run_variant(scenario_of(tmp_path, UUID), {"binlog_format": "STATEMENT"}, MYSQL_80, tmp_path / "binlogs")
    diff = diff_snapshots(record.master_snapshot, record.slave_snapshot)
    for step in record.steps:
        step.logged_as, step.unsafe, step.notes = "none", [], list(notes)
    assert judge(record, diff).verdict is verdict
