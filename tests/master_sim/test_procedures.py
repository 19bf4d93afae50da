"""CALL on the master: each statement of the body logged on its own (NAME_CONST under
STATEMENT, rows under ROW, decided per statement under MIXED), CALL never logged, OUT
parameters in user variables, handlers, and the errors of CALL and CREATE/DROP."""

from __future__ import annotations

import pytest

from server_sim.binlog.control_events import FRAMING_EVENTS
from server_sim.binlog.events import Query_log_event, type_name_of
from server_sim.binlog.file import read_binlog
from server_sim.flavor import MARIADB_1011

SCHEMA = [
    "CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10)) ENGINE=InnoDB",
    "CREATE PROCEDURE fill(IN n INT, OUT c INT) BEGIN DECLARE i INT DEFAULT 1; WHILE i <= n DO INSERT INTO t VALUES (i, 'x'); SET i = i + 1; END WHILE; SELECT COUNT(*) INTO c FROM t; DELETE FROM t WHERE a > c - 1 LIMIT 1; END",
]


def logged(master, start: int = 0) -> list[str]:
    """The events from `start` on, Query events by their text; MariaDB's GTID events (its BEGIN) left out."""
    names = [
        p.event.query if isinstance(p.event, Query_log_event) else type_name_of(p.event)
        for p in read_binlog(master.binlog_path)
        if p.position >= start and not isinstance(p.event, FRAMING_EVENTS)
    ]
    return [name for name in names if name != "Gtid"]


@pytest.mark.parametrize(
    ("binlog_format", "expected"),
    [
        (
            "STATEMENT",
            ["INSERT INTO t VALUES ( NAME_CONST('i',1), 'x')", "Xid", "INSERT INTO t VALUES ( NAME_CONST('i',2), 'x')", "Xid",
             "DELETE FROM t WHERE a > NAME_CONST('c',2) - 1 LIMIT 1", "Xid"],
        ),
        (
            "MIXED",
            ["INSERT INTO t VALUES ( NAME_CONST('i',1), 'x')", "Xid", "INSERT INTO t VALUES ( NAME_CONST('i',2), 'x')", "Xid",
             "Annotate_rows", "Table_map", "Delete_rows", "Xid"],
        ),
        (
            "ROW",
            ["Annotate_rows", "Table_map", "Write_rows", "Xid", "Annotate_rows", "Table_map", "Write_rows", "Xid",
             "Annotate_rows", "Table_map", "Delete_rows", "Xid"],
        ),
    ],
)
def test_each_statement_of_a_procedure_is_logged_on_its_own(new_master, binlog_format: str, expected: list[str]) -> None:
    master = new_master(SCHEMA, binlog_format, flavor=MARIADB_1011)
    start = master.writer.position
    result = master.submit("con1", "CALL fill(2, @c)", 1)
    assert result.error is None
    assert logged(master, start) == expected
    assert master.server.dump()["t"][1] == [(1, "x")]
    assert master.sessions["con1"].session.user_variables["c"] == 2
    assert [n.code for n in result.notes] == ([1592] if binlog_format == "STATEMENT" else [])


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("CALL nothing()", 1305),
        ("CALL fill(1)", 1318),
        ("CALL fill(1, 2)", 1414),
        ("CREATE PROCEDURE fill() BEGIN END", 1304),
        ("DROP PROCEDURE nothing", 1305),
        ("CREATE FUNCTION f() RETURNS INT RETURN 1", 1418),
        ("CREATE FUNCTION f() RETURNS INT BEGIN SIGNAL SQLSTATE '45000'; RETURN 1; END", 1235),
    ],
)
def test_call_and_routine_ddl_errors(new_master, sql: str, code: int) -> None:
    master = new_master(SCHEMA, "ROW", flavor=MARIADB_1011)
    assert master.submit("con1", sql, 1).error.code == code


@pytest.mark.parametrize(
    ("handler", "condition", "rows", "notes"),
    [
        ("CONTINUE", "SQLEXCEPTION", [(1, "x"), (2, "after")], []),
        ("EXIT", "SQLEXCEPTION", [(1, "x")], []),
        ("CONTINUE", "SQLSTATE '23000'", [(1, "x"), (2, "after")], []),
        ("EXIT", "1062", [(1, "x")], []),
        ("CONTINUE", "duplicate", [(1, "x"), (2, "after")], []),
    ],
)
def test_a_handler_catches_a_failed_statement(new_master, handler: str, condition: str, rows: list[tuple], notes: list[int]) -> None:
    named = "DECLARE duplicate CONDITION FOR 1062; "
    body = f"BEGIN {named}DECLARE {handler} HANDLER FOR {condition} SET @caught = 1; INSERT INTO t VALUES (1, 'dup'); INSERT INTO t VALUES (2, 'after'); END"
    master = new_master([*SCHEMA, "INSERT INTO t VALUES (1, 'x')", f"CREATE PROCEDURE h() {body}"], "ROW", flavor=MARIADB_1011)
    result = master.submit("con1", "CALL h()", 1)
    assert result.error is None and [n.code for n in result.notes] == notes
    assert master.server.dump()["t"][1] == rows
    assert master.sessions["con1"].session.user_variables["caught"] == 1


# The line is the body's in the definition as the server reads it back (the header, a line
# per characteristic, the body), not in the CREATE as written (recorded on MariaDB 10.11).
@pytest.mark.parametrize(
    ("create", "line"),
    [
        ("CREATE PROCEDURE h()\nBEGIN\n  INSERT INTO t VALUES (1, 'dup');\nEND", 3),
        ("CREATE PROCEDURE h() MODIFIES SQL DATA COMMENT 'c' BEGIN\nINSERT INTO t VALUES (2, 'y');\nINSERT INTO t VALUES (1, 'dup');\nEND", 6),
        ("CREATE PROCEDURE h(\n  a INT,\n  b INT)\nBEGIN\nINSERT INTO t VALUES (1, 'dup');\nEND", 5),
    ],
)
def test_an_unhandled_error_names_the_line_on_mariadb(new_master, create: str, line: int) -> None:
    master = new_master([*SCHEMA, "INSERT INTO t VALUES (1, 'x')", create], "ROW", flavor=MARIADB_1011)
    result = master.submit("con1", "CALL h()" if "b INT" not in create else "CALL h(1, 2)", 1)
    assert result.error.code == 1062
    assert [(n.code, n.message) for n in result.notes] == [(4094, f"At line {line} in test.h")]


def test_create_procedure_is_logged_with_its_definer(new_master) -> None:
    master = new_master(SCHEMA[:1], "ROW", flavor=MARIADB_1011)
    start = master.writer.position
    master.submit("con1", "CREATE DEFINER=someone@somewhere PROCEDURE p(a INT) COMMENT 'c' SELECT a", 1)
    master.submit("con1", "DROP PROCEDURE IF EXISTS p", 2)
    assert logged(master, start) == ["CREATE DEFINER=`root`@`localhost` PROCEDURE `p`(a INT)\n    COMMENT 'c'\nSELECT a", "DROP PROCEDURE IF EXISTS p"]


def test_a_handler_for_another_error_lets_the_error_end_the_call(new_master) -> None:
    body = "BEGIN DECLARE CONTINUE HANDLER FOR 1146 SET @caught = 1; INSERT INTO t VALUES (1, 'dup'); END"
    master = new_master([*SCHEMA, "INSERT INTO t VALUES (1, 'x')", f"CREATE PROCEDURE h() {body}"], "ROW", flavor=MARIADB_1011)
    assert master.submit("con1", "CALL h()", 1).error.code == 1062
    assert "caught" not in master.sessions["con1"].session.user_variables


def test_a_procedure_reads_a_stored_function_in_its_expressions(new_master) -> None:
    schema = [*SCHEMA, "CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2", "CREATE PROCEDURE w(IN n INT) BEGIN DECLARE v INT DEFAULT twice(n); IF twice(v) > 10 THEN INSERT INTO t VALUES (v, 'big'); END IF; END"]
    master = new_master(schema, "STATEMENT", flavor=MARIADB_1011)
    start = master.writer.position
    assert master.submit("con1", "CALL w(3)", 1).error is None
    assert master.server.dump()["t"][1] == [(6, "big")]
    assert "INSERT INTO t VALUES ( NAME_CONST('v',6), 'big')" in logged(master, start)


ACCOUNTS = [
    "CREATE TABLE acct (id INT PRIMARY KEY, bal INT) ENGINE=InnoDB",
    "INSERT INTO acct VALUES (1, 100), (2, 100)",
    "CREATE PROCEDURE take(IN src INT) BEGIN DECLARE b INT; SELECT bal INTO b FROM acct WHERE id = src FOR UPDATE; UPDATE acct SET bal = b - 10 WHERE id = src; END",
    "CREATE PROCEDURE both_rows() BEGIN UPDATE acct SET bal = bal + 1 WHERE id = 2; UPDATE acct SET bal = bal + 1 WHERE id = 1; END",
]


def test_a_call_whose_first_locking_statement_waits_runs_again_from_its_start(new_master) -> None:
    master = new_master(ACCOUNTS, "STATEMENT", flavor=MARIADB_1011)
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", "UPDATE acct SET bal = bal + 50 WHERE id = 1", 2)
    waiting = master.submit("con2", "CALL take(1)", 3)
    assert waiting.blocked_by == "con1"
    master.submit("con1", "COMMIT", 4)
    assert waiting.status == "ok" and waiting.ran_after_step == 4
    assert master.server.dump()["acct"][1] == [(1, 140), (2, 100)]
    assert [step.sql for step in waiting.statements] == ["SELECT bal FROM acct WHERE id = NAME_CONST('src',1) FOR UPDATE", "UPDATE acct SET bal = NAME_CONST('b',150) - 10 WHERE id = NAME_CONST('src',1)"]


def test_a_call_that_must_wait_after_changing_rows_is_refused(new_master) -> None:
    master = new_master(ACCOUNTS, "STATEMENT", flavor=MARIADB_1011)
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", "UPDATE acct SET bal = bal + 50 WHERE id = 1", 2)
    refused = master.submit("con2", "CALL both_rows()", 3)
    assert refused.error.code == 1235 and "waits for a lock" in refused.error.message


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE PROCEDURE bad() BEGIN SIGNAL SQLSTATE '45000'; END",
        "CREATE PROCEDURE bad() BEGIN INSERT INTO t VALUES (1, 'x') END",
        "CREATE TRIGGER bad BEFORE INSERT ON t FOR EACH ROW BEGIN GET DIAGNOSTICS @n = NUMBER; END",
    ],
)
def test_a_body_that_does_not_read_fails_before_the_implicit_commit(new_master, sql: str) -> None:
    master = new_master(SCHEMA, "ROW", flavor=MARIADB_1011)
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", "INSERT INTO t VALUES (9, 'open')", 2)
    assert master.submit("con1", sql, 3).error.code in (1064, 1235)
    assert master.sessions["con1"].session.in_multi_statement_transaction  # still open: nothing committed it
