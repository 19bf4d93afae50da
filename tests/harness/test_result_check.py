"""`rplharness check-result`: a mysqltest file run in the simulator and judged against a
`.result` recorded in mysqltest's format. The files here are written for this project
in mtr's dialect, with MySQL 8.0's message texts; MySQL's own suites are measured in
docs/fidelity.md."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from harness.cli import main
from harness.result_check import ResultComparison, _judge, compare_with_result
from harness.result_file import Answer, ResultFile
from master_sim.results import StepResult
from server_sim.errors import ErrorCode, SqlError, note
from server_sim.flavor import FLAVORS

TEST = """--source include/have_binlog_format_statement.inc
--source include/master-slave.inc
--disable_warnings
DROP TABLE IF EXISTS t1, t2;
--enable_warnings
create table t1 (a int) engine=innodb;
create table t2 (a int) engine=myisam;
--source include/sync_slave_sql_with_master.inc
--connection master
begin;
insert into t1 values(1);
insert into t2 select * from t1;
commit;
--source include/show_binlog_events.inc
--error ER_NO_SUCH_TABLE
insert into t3 values (1);
INSERT INTO t1 VALUES (COALESCE(1, UUID()));
SELECT * FROM t1;
--source include/sync_slave_sql_with_master.inc
--source include/rpl_end.inc
"""
UNSAFE = "Unsafe statement written to the binary log using statement format since BINLOG_FORMAT = STATEMENT. "
RESULT_LINES = [
    "include/master-slave.inc",
    "[connection master]",
    "DROP TABLE IF EXISTS t1, t2;",
    "create table t1 (a int) engine=innodb;",
    "create table t2 (a int) engine=myisam;",
    "include/sync_slave_sql_with_master.inc",
    "[connection master]",
    "begin;",
    "insert into t1 values(1);",
    "insert into t2 select * from t1;",
    "Warnings:",
    f"Note\t1592\t{UNSAFE}Statement accesses nontransactional table as well as transactional or temporary table, and writes to any of them.",
    "commit;",
    "include/show_binlog_events.inc",
    "Log_name\tPos\tEvent_type\tServer_id\tEnd_log_pos\tInfo",
    "master-bin.000001\t#\tQuery\t#\t#\tBEGIN",
    "master-bin.000001\t#\tQuery\t#\t#\tuse `test`; insert into t1 values(1)",
    "master-bin.000001\t#\tQuery\t#\t#\tuse `test`; insert into t2 select * from t1",
    "master-bin.000001\t#\tXid\t#\t#\tCOMMIT /* XID */",
    "insert into t3 values (1);",
    "ERROR 42S02: Table 'test.t3' doesn't exist",
    "INSERT INTO t1 VALUES (COALESCE(1, UUID()));",
    "Warnings:",
    f"Note\t1592\t{UNSAFE}Statement is unsafe because it uses a system function that may return a different value on the replica.",
    "SELECT * FROM t1;",
    "a",
    "1",
    "1",
    "include/sync_slave_sql_with_master.inc",
    "include/rpl_end.inc",
]


def _files(tmp_path: Path, lines: list[str]) -> tuple[Path, Path]:
    suite = tmp_path / "suite" / "rpl"
    (suite / "t").mkdir(parents=True)
    (suite / "r").mkdir()
    test = suite / "t" / "rpl_sample.test"
    test.write_text(TEST)
    result = suite / "r" / "rpl_sample.result"
    result.write_text("\n".join(lines) + "\n")
    return test, result


def test_a_result_the_simulator_reproduces_agrees_everywhere(tmp_path: Path) -> None:
    test, result = _files(tmp_path, RESULT_LINES)
    comparison = compare_with_result(test, result, FLAVORS["mysql-8.0"], tmp_path / "work")
    assert (comparison.count("outcome"), comparison.count("warnings"), comparison.count("events")) == ((9, 9), (2, 2), (1, 1))
    # mtr's default configuration is the servers' (include/default_mysqld.cnf).
    assert comparison.variant == {"log_bin_trust_function_creators": "ON", "binlog_format": "STATEMENT"}


def _changed(line: int, text: str) -> list[str]:
    return [text if number == line else original for number, original in enumerate(RESULT_LINES, 1)]


@pytest.mark.parametrize(
    ("line", "text", "kind", "echo_line"),
    [
        # the server recorded another error
        (21, "ERROR 42S02: Table 'test.t4' doesn't exist", "outcome", 20),
        # the server gave another reason
        (12, f"Note\t1592\t{UNSAFE}Statement is unsafe because it uses a LIMIT clause.", "warnings", 10),
        # the server logged the statements otherwise
        (18, "master-bin.000001\t#\tQuery\t#\t#\tuse `test`; insert into t2 values (1)", "events", 13),
    ],
)
def test_a_disagreement_names_the_result_line_and_both_answers(line: int, text: str, kind: str, echo_line: int, tmp_path: Path) -> None:
    test, result = _files(tmp_path, _changed(line, text))
    comparison = compare_with_result(test, result, FLAVORS["mysql-8.0"], tmp_path / "work")
    [disagreement] = [item for item in comparison.items if not item.agree]
    assert (disagreement.kind, disagreement.line) == (kind, echo_line)
    assert text.split("\t")[-1].split(": ", 1)[-1].removeprefix("use `test`; ") in disagreement.expected


def test_warnings_are_not_judged_where_the_test_disables_them(tmp_path: Path) -> None:
    """The .result shows no Note 1051 for the DROP inside --disable_warnings."""
    test, result = _files(tmp_path, RESULT_LINES)
    comparison = compare_with_result(test, result, FLAVORS["mysql-8.0"], tmp_path / "work")
    assert [item.statement for item in comparison.items if item.kind == "warnings"] == [
        "insert into t2 select * from t1", "INSERT INTO t1 VALUES (COALESCE(1, UUID()))",
    ]


def test_statements_are_found_by_their_text_across_lines(tmp_path: Path) -> None:
    path = tmp_path / "x.result"
    path.write_text("SELECT 1;\n1\nINSERT INTO t\nVALUES (1);\nWarnings:\nNote\t####\tmasked\nINSERT INTO t VALUES (1);\n")
    recorded = ResultFile(path)
    assert recorded.echo_of("INSERT INTO t VALUES (1)") == (2, 4)
    assert recorded.answer(4, 6).warnings[0].code is None
    assert recorded.echo_of("INSERT INTO t VALUES (1)") == (6, 7)
    assert recorded.echo_of("SELECT 1") is None  # searching goes on from the last one found


def test_check_result_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    test, _ = _files(tmp_path, _changed(21, "ERROR 42S02: Table 'test.t4' doesn't exist"))
    assert main(["check-result", str(test), "--out", str(tmp_path / "out")]) == 1
    out = capsys.readouterr().out
    assert "outcome   8/9 agree (9/9 both failed or both succeeded)" in out and "rpl_sample.result:20: outcome" in out
    assert (tmp_path / "out" / "rpl_sample.check-result.json").is_file()
    assert main(["check-result", str(test), "--result", str(tmp_path / "missing.result")]) == 2


def test_loose_agreement_ignores_texts_that_changed_between_versions(tmp_path: Path) -> None:
    """MySQL 8.0.26 says "replica" where earlier versions said "slave": same code, other text."""
    test, result = _files(tmp_path, _changed(24, f"Note\t1592\t{UNSAFE}Statement is unsafe because it uses a system function that may return a different value on the slave."))
    comparison = compare_with_result(test, result, FLAVORS["mysql-8.0"], tmp_path / "work")
    assert comparison.count("warnings") == (1, 2) and comparison.count("warnings", loosely=True) == (2, 2)


MYSQL_TESTS = Path(__file__).resolve().parents[3] / "shared" / "testdata" / "mysql-test-8.0.27" / "mysql-test" / "suite"


@pytest.mark.skipif(not MYSQL_TESTS.is_dir(), reason="MySQL 8.0.27's mysql-test files not in ../shared/testdata")
@pytest.mark.parametrize("test", ["binlog/t/binlog_stm_unsafe_warning.test", "rpl/t/rpl_unsafe_statements.test", "rpl_nogtid/t/rpl_binlog_format_errors.test"])
def test_mysql_recorded_results_are_judged(test: str, tmp_path: Path) -> None:
    """Real MySQL 8.0.27 tests and results: every statement shown is judged, most agree,
    and what differs is listed (docs/fidelity.md has the figures)."""
    path = MYSQL_TESTS / test
    comparison = compare_with_result(path, path.parent.parent / "r" / f"{path.stem}.result", FLAVORS["mysql-8.0"], tmp_path)
    agree, judged = comparison.count("outcome", loosely=True)
    assert judged > 20 and agree / judged > 0.6


DISCONNECT_TEST = """--source include/have_binlog_format_statement.inc
--source include/master-slave.inc
create table t1 (a int) engine=innodb;
create table t2 (a int) engine=myisam;
--source include/sync_slave_sql_with_master.inc
--connect (con1,127.0.0.1,root,,test,$MASTER_MYPORT,)
begin;
insert into t1 values(1);
insert into t2 values(1);
--disconnect con1
--connection master
--source include/wait_until_disconnected.inc
--source include/show_binlog_events.inc
insert into t1 values(2);
--source include/sync_slave_sql_with_master.inc
--source include/rpl_end.inc
"""
DISCONNECT_RESULT = [
    "include/master-slave.inc",
    "[connection master]",
    "create table t1 (a int) engine=innodb;",
    "create table t2 (a int) engine=myisam;",
    "include/sync_slave_sql_with_master.inc",
    "begin;",
    "insert into t1 values(1);",
    "insert into t2 values(1);",
    "[connection master]",
    "include/show_binlog_events.inc",
    "Log_name\tPos\tEvent_type\tServer_id\tEnd_log_pos\tInfo",
    "master-bin.000001\t#\tQuery\t#\t#\tBEGIN",
    "master-bin.000001\t#\tQuery\t#\t#\tuse `test`; insert into t1 values(1)",
    "master-bin.000001\t#\tQuery\t#\t#\tuse `test`; insert into t2 values(1)",
    "master-bin.000001\t#\tQuery\t#\t#\tROLLBACK",
    "insert into t1 values(2);",
    "include/sync_slave_sql_with_master.inc",
    "include/rpl_end.inc",
]


def test_what_a_disconnect_logs_is_in_the_events_shown_after_it(tmp_path: Path) -> None:
    suite = tmp_path / "suite" / "rpl"
    (suite / "t").mkdir(parents=True)
    (suite / "r").mkdir()
    (suite / "t" / "rpl_disconnect.test").write_text(DISCONNECT_TEST)
    (suite / "r" / "rpl_disconnect.result").write_text("\n".join(DISCONNECT_RESULT) + "\n")
    comparison = compare_with_result(suite / "t" / "rpl_disconnect.test", suite / "r" / "rpl_disconnect.result", FLAVORS["mysql-8.0"], tmp_path / "work")
    assert comparison.count("events") == (1, 1), [item for item in comparison.items if item.kind == "events"]
    assert comparison.count("outcome") == (6, 6) and comparison.not_shown == 0


RESET_TEST = """--source include/have_binlog_format_statement.inc
create table t1 (a int) engine=innodb;
insert into t1 values (1);
reset master;
insert into t1 values (2);
--source include/show_binlog_events.inc
reset master;
insert into t1 values (3);
--source include/show_binlog_events.inc
"""
RESET_RESULT = [
    "create table t1 (a int) engine=innodb;",
    "insert into t1 values (1);",
    "reset master;",
    "insert into t1 values (2);",
    "include/show_binlog_events.inc",
    "Log_name\tPos\tEvent_type\tServer_id\tEnd_log_pos\tInfo",
    "binlog.000001\t#\tQuery\t#\t#\tBEGIN",
    "binlog.000001\t#\tQuery\t#\t#\tuse `test`; insert into t1 values (2)",
    "binlog.000001\t#\tXid\t#\t#\tCOMMIT /* XID */",
    "reset master;",
    "insert into t1 values (3);",
    "include/show_binlog_events.inc",
    "Log_name\tPos\tEvent_type\tServer_id\tEnd_log_pos\tInfo",
    "binlog.000001\t#\tQuery\t#\t#\tBEGIN",
    "binlog.000001\t#\tQuery\t#\t#\tuse `test`; insert into t1 values (3)",
    "binlog.000001\t#\tXid\t#\t#\tCOMMIT /* XID */",
]


@pytest.mark.parametrize("replication", [False, True])
def test_a_binlog_test_resets_its_master_and_a_replicated_one_cannot(tmp_path: Path, replication: bool) -> None:
    """A test of the binlog alone runs its master without a replica: RESET MASTER empties
    the binlog, and each events table after it is compared with the new file. With a
    replica set up, the simulator refuses RESET MASTER (the replica's next read is undefined)."""
    suite = tmp_path / "suite" / "binlog"
    (suite / "t").mkdir(parents=True)
    (suite / "r").mkdir()
    setup = "--source include/master-slave.inc\n" if replication else ""
    (suite / "t" / "binlog_reset.test").write_text(setup + RESET_TEST)
    (suite / "r" / "binlog_reset.result").write_text("\n".join(RESET_RESULT) + "\n")
    comparison = compare_with_result(suite / "t" / "binlog_reset.test", suite / "r" / "binlog_reset.result", FLAVORS["mysql-8.0"], tmp_path / "work")
    if replication:
        assert comparison.count("outcome") == (4, 6)
        assert [refusal for refusal in comparison.refused if "a replica connected" in refusal] and len(comparison.refused) == 2
        return
    assert comparison.count("outcome") == (6, 6) and comparison.refused == []
    assert comparison.count("events") == (2, 2), [item for item in comparison.items if item.kind == "events"]


def test_a_failed_statement_s_warnings_are_not_judged() -> None:
    """mysqltest shows no Warnings block after a statement that failed (run_query_normal
    handles the error and never reads the warnings), so the simulator's notes for it, a
    Note 1592 among them, are not compared with that absence."""
    step = StepResult(1, "master", "insert into t2 values (f(1))", status="error")
    step.error = SqlError(ErrorCode.ER_DUP_ENTRY, "1", "t2.PRIMARY").condition()
    step.notes = [note(ErrorCode.ER_WARNING_NOT_COMPLETE_ROLLBACK, level="Warning"), note(ErrorCode.ER_BINLOG_UNSAFE_STATEMENT, "Statement is unsafe because it invokes a trigger or a stored function that inserts into an AUTO_INCREMENT column.")]
    comparison = ResultComparison(Path("t.test"), Path("t.result"), {})
    _judge(step, Answer(error=("23000", "Duplicate entry '1' for key 't2.PRIMARY'")), 7, True, [], comparison)
    assert [item.kind for item in comparison.items] == ["outcome"]
    _judge(dataclasses.replace(step, status="ok", error=None), Answer(), 9, True, [], comparison)
    assert [item.kind for item in comparison.items] == ["outcome", "outcome", "warnings"]


REAP_TEST = """--source include/have_binlog_format_statement.inc
--source include/master-slave.inc
create table t1 (a int primary key) engine=innodb;
--connect (con1,localhost,root,,)
--connect (con2,localhost,root,,)
--connection con1
begin;
insert into t1 values (1);
--connection con2
send insert into t1 values (1);
--connection con1
insert into t1 values (2);
--connection con2
--error ER_LOCK_WAIT_TIMEOUT
reap;
--connection con1
commit;
"""
REAP_RESULT = [
    "include/master-slave.inc",
    "[connection master]",
    "create table t1 (a int primary key) engine=innodb;",
    "begin;",
    "insert into t1 values (1);",
    "insert into t1 values (1);",
    "insert into t1 values (2);",
    "ERROR HY000: Lock wait timeout exceeded; try restarting transaction",
    "commit;",
]


def test_a_sent_statement_is_judged_where_it_is_reaped(tmp_path: Path) -> None:
    """mysqltest prints a sent statement's answer at its reap, after the output of the
    statement before the reap: the timeout is con2's INSERT's, and con1's INSERT before the
    reap is not judged, its block holding the other's answer."""
    suite = tmp_path / "suite" / "rpl"
    (suite / "t").mkdir(parents=True)
    (suite / "r").mkdir()
    (suite / "t" / "rpl_reap.test").write_text(REAP_TEST)
    (suite / "r" / "rpl_reap.result").write_text("\n".join(REAP_RESULT) + "\n")
    comparison = compare_with_result(suite / "t" / "rpl_reap.test", suite / "r" / "rpl_reap.result", FLAVORS["mysql-8.0"], tmp_path / "work")
    outcomes = [(item.line, item.agree, item.expected, item.got) for item in comparison.items if item.kind == "outcome"]
    assert (7, True, "ERROR HY000: Lock wait timeout exceeded; try restarting transaction", "ERROR 1205: Lock wait timeout exceeded; try restarting transaction") in outcomes
    assert all(agree for _, agree, _, _ in outcomes), outcomes
    assert comparison.not_shown == 1


MASKED_TEST = """--source include/have_binlog_format_statement.inc
create table t1 (a int) engine=innodb;
reset master;
insert into t1 values (1);
--let $mask_binlog_commit_events= 1
--source include/show_binlog_events.inc
--let $mask_binlog_commit_events= 0
reset master;
insert into t1 values (2);
--source include/show_binlog_events.inc
"""
MASKED_RESULT = [
    "create table t1 (a int) engine=innodb;",
    "reset master;",
    "insert into t1 values (1);",
    "include/show_binlog_events.inc",
    "Log_name\tPos\tEvent_type\tServer_id\tEnd_log_pos\tInfo",
    "binlog.000001\t#\tQuery\t#\t#\tBEGIN",
    "binlog.000001\t#\tQuery\t#\t#\tuse `test`; insert into t1 values (1)",
    "binlog.000001\t#\tQuery\t#\t#\tCOMMIT",
    "reset master;",
    "insert into t1 values (2);",
    "include/show_binlog_events.inc",
    "Log_name\tPos\tEvent_type\tServer_id\tEnd_log_pos\tInfo",
    "binlog.000001\t#\tQuery\t#\t#\tBEGIN",
    "binlog.000001\t#\tQuery\t#\t#\tuse `test`; insert into t1 values (2)",
    "binlog.000001\t#\tXid\t#\t#\tCOMMIT /* XID */",
]


def test_an_events_table_shown_with_commits_masked_shows_xid_as_query_commit(tmp_path: Path) -> None:
    """include/show_events.inc rewrites Xid as Query and drops its /* XID */ where the test
    set $mask_binlog_commit_events, and only there."""
    suite = tmp_path / "suite" / "binlog"
    (suite / "t").mkdir(parents=True)
    (suite / "r").mkdir()
    (suite / "t" / "masked.test").write_text(MASKED_TEST)
    (suite / "r" / "masked.result").write_text("\n".join(MASKED_RESULT) + "\n")
    comparison = compare_with_result(suite / "t" / "masked.test", suite / "r" / "masked.result", FLAVORS["mysql-8.0"], tmp_path / "work")
    assert comparison.count("events") == (2, 2), [item for item in comparison.items if item.kind == "events"]
