"""A stored function that changes data, called once per row: where the server evaluates
row by row (a single-table UPDATE's SET, the WHERE of a full scan), the simulator makes
each call for its row, between the statement's own row changes, and an error stops both
at the same row; elsewhere the call is refused, naming why (server_sim/execute/per_row_calls.py).

The schema is MySQL's binlog_*_mix_innodb_myisam tests' for bug #27417: a function that
inserts into a MyISAM AUTO_INCREMENT table, called on InnoDB and MyISAM tables."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db

SCHEMA = [
    "CREATE TABLE t1 (a INT NOT NULL AUTO_INCREMENT PRIMARY KEY) ENGINE=MyISAM",
    "CREATE TABLE t2 (a INT NOT NULL, PRIMARY KEY (a)) ENGINE=InnoDB",
    "CREATE TABLE t3 (a INT, PRIMARY KEY (a), b INT UNIQUE) ENGINE=MyISAM",
    "CREATE TABLE plain (c INT, d INT) ENGINE=InnoDB",
    "INSERT INTO t2 VALUES (1), (2)",
    "INSERT INTO t3 VALUES (1, 1), (2, 3), (3, 4)",
    "INSERT INTO plain VALUES (1, 10), (2, 20), (3, 30)",
    "CREATE FUNCTION f(n INT) RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO t1 VALUES (NULL); RETURN n; END",
    "CREATE FUNCTION fd(n INT) RETURNS INT MODIFIES SQL DATA DETERMINISTIC BEGIN INSERT INTO t1 VALUES (NULL); RETURN n; END",
]


@pytest.fixture(params=[(MYSQL_80, True), (MYSQL_80, False), (MARIADB_1011, True)], ids=["mysql-fast", "mysql-duckdb", "mariadb-fast"])
def db(request: pytest.FixtureRequest) -> Iterator[Db]:
    flavor, fast_path = request.param
    server = Db(flavor=flavor, sorted_rows=True, fast_path=fast_path)
    server.server.global_variables["log_bin_trust_function_creators"] = "ON"
    for sql in SCHEMA:
        server.ok(sql)
    yield server
    server.close()


# statement, its error (None: it succeeds), the calls made (t1's rows), the tables of the
# statement's row changes in order, then the table it writes as the statement left it.
@pytest.mark.parametrize(
    ("statement", "error", "calls", "changes", "table", "rows"),
    [
        # SET: called for each row just before it is written; the second row's new b (4)
        # is a duplicate, and MyISAM keeps the first row's update and both calls' rows.
        ("UPDATE t3 SET b = b + f(1)", 1062, 2, ["t1", "t3", "t1"], "t3", [(1, 2), (2, 3), (3, 4)]),
        ("UPDATE plain SET d = d + f(c)", None, 3, ["t1", "plain"] * 3, "plain", [(1, 11), (2, 22), (3, 33)]),
        ("UPDATE plain SET d = fd(c)", None, 3, ["t1", "plain"] * 3, "plain", [(1, 1), (2, 2), (3, 3)]),
        ("UPDATE plain SET d = f(1) WHERE c > 1", None, 2, ["t1", "plain"] * 2, "plain", [(1, 10), (2, 1), (3, 1)]),
        # WHERE: the primary key compared with the call serves no index; every row is read.
        ("DELETE FROM t2 WHERE a = f(3)", None, 2, ["t1", "t1"], "t2", [(1,), (2,)]),
        ("DELETE FROM t2 WHERE a = f(2)", None, 2, ["t1", "t1", "t2"], "t2", [(1,)]),
        ("DELETE t2 FROM t2 WHERE t2.a = f(1)", None, 2, ["t1", "t2", "t1"], "t2", [(2,)]),
        ("UPDATE plain SET d = 0 WHERE c = f(2) - 0", None, 3, ["t1", "t1", "plain", "t1"], "plain", [(1, 10), (2, 0), (3, 30)]),
        ("DELETE FROM plain WHERE f(c) > 1 AND d < 30", None, 3, ["t1", "t1", "plain", "t1"], "plain", [(1, 10), (3, 30)]),
        # INSERT ... SELECT of one other table: each row read, its call made, then written.
        ("INSERT INTO t2 SELECT c + 10 + f(c) - c FROM plain", None, 3, ["t1", "t2"] * 3, "t2", [(1,), (11,), (12,), (13,), (2,)]),  # rows sorted by their repr
        ("INSERT INTO t2 SELECT f(c) FROM plain", 1062, 1, ["t1"], "t2", [(1,), (2,)]),
        ("INSERT INTO t2 SELECT f(c) + 5 FROM plain WHERE d > 10", None, 2, ["t1", "t2"] * 2, "t2", [(1,), (2,), (7,), (8,)]),
        # SELECTs of no table: each call once, in the order written, before any row.
        ("INSERT INTO t2 SELECT f(5) UNION SELECT f(6)", None, 2, ["t1", "t1", "t2", "t2"], "t2", [(1,), (2,), (5,), (6,)]),
        ("INSERT INTO t2 SELECT f(2)", 1062, 1, ["t1"], "t2", [(1,), (2,)]),
    ],
)
def test_a_call_per_row_falls_between_the_statement_s_rows(db: Db, statement: str, error: int | None, calls: int, changes: list[str], table: str, rows: list[tuple]) -> None:
    outcome = db.run(statement)
    assert (outcome.error.code if outcome.error else None) == error
    assert [change.table.name for change in outcome.changes] == changes
    assert len(db.rows("t1")) == calls
    assert db.rows(table) == rows


@pytest.mark.parametrize(
    ("statement", "why"),
    [
        ("UPDATE plain SET d = fd(1)", "declared DETERMINISTIC, with constant arguments (the server may call it once for the whole statement)"),
        ("DELETE FROM t2 WHERE a = 1 AND f(a) > 0", "in a later operand of AND in a WHERE (the server skips it when the first decides)"),
        ("DELETE FROM plain WHERE c > 1 OR f(c) > 0", "in a later operand of OR in a WHERE (the server skips it when the first decides)"),
        ("DELETE FROM plain WHERE d = CASE WHEN c > 1 THEN f(c) END", "inside CASE in a WHERE (which may not evaluate it for every row)"),
        ("UPDATE plain SET d = 0 ORDER BY f(c)", "in the ORDER clause of UPDATE"),
        ("UPDATE t2, plain SET t2.a = f(1)", "where it may run more than once, or with arguments that are not constants"),
        ("INSERT INTO t2 SELECT f(c) FROM plain ORDER BY d", "in an INSERT ... SELECT whose rows the server reads whole before writing (a join, grouping, order, DISTINCT, LIMIT, or the target read)"),
        ("INSERT INTO t2 SELECT f(a) + 10 FROM t2", "in an INSERT ... SELECT whose rows the server reads whole before writing (a join, grouping, order, DISTINCT, LIMIT, or the target read)"),
        ("INSERT INTO t2 SELECT c FROM plain WHERE d = f(c)", "outside the select list of INSERT ... SELECT"),
        ("INSERT INTO t2 VALUES (f(7)) ON DUPLICATE KEY UPDATE a = f(a)", "where it may run more than once, or with arguments that are not constants"),
    ],
)
def test_a_call_the_simulator_cannot_order_is_refused(db: Db, statement: str, why: str) -> None:
    error = db.error(statement)
    assert (error.code, error.message) == (1235, f"This version of MySQL doesn't yet support 'stored function {'fd' if 'fd(' in statement else 'f'}(), which changes data, called {why}'")
    assert db.rows("t1") == []


@pytest.mark.parametrize(
    ("statement", "why"),
    [
        ("DELETE FROM t2 WHERE f(a) > 0 AND a = 1", "called in a WHERE an index could serve (the server calls it for the rows the index reaches)"),
        ("DELETE FROM t2 WHERE a = f(1) AND a IN (1, 2)", "called in a WHERE an index could serve (the server calls it for the rows the index reaches)"),
        ("DELETE FROM plain WHERE c = f(1) LIMIT 1", "called in a WHERE beside LIMIT (the server reads the rows it sorts or counts first)"),
        ("DELETE FROM plain WHERE c = f(1) ORDER BY d", "called in a WHERE beside ORDER (the server reads the rows it sorts or counts first)"),
        ("INSERT INTO t2 SELECT f(a) + 10 FROM t3 WHERE a > 1", "called in an INSERT ... SELECT whose WHERE an index could serve (the rows come in the index's order)"),
    ],
)
def test_a_where_whose_scan_is_not_certain_is_refused(db: Db, statement: str, why: str) -> None:
    error = db.error(statement)
    assert (error.code, error.message) == (1235, f"This version of MySQL doesn't yet support 'a stored function that changes data, {why}'")
    assert db.rows("t1") == []


def test_a_trigger_calls_the_function_for_each_row_it_fires_on(db: Db) -> None:
    db.ok("CREATE TRIGGER keep BEFORE DELETE ON t2 FOR EACH ROW INSERT INTO plain VALUES (f(OLD.a), OLD.a)")
    outcome = db.ok("DELETE FROM t2")
    assert [change.table.name for change in outcome.changes] == ["t1", "plain", "t2"] * 2
    assert db.rows("t1") == [(1,), (2,)]
    assert db.rows("plain") == [(1, 1), (1, 10), (2, 2), (2, 20), (3, 30)]


@pytest.mark.parametrize(
    ("statement", "error", "calls", "changes", "rows"),
    [
        # Each row's values computed just before it is written.
        ("INSERT INTO t2 VALUES (f(7)), (f(8))", None, 2, ["t1", "t2", "t1", "t2"], [(1,), (2,), (7,), (8,)]),
        # The second row is a duplicate: its call was made, the third row's never is.
        ("INSERT INTO t3 VALUES (f(7), 70), (f(8), 1), (f(9), 90)", 1062, 2, ["t1", "t3", "t1"], [(1, 1), (2, 3), (3, 4), (7, 70)]),
        ("INSERT INTO t2 VALUES (f(7)), (f(8), 1)", 1136, 0, [], [(1,), (2,)]),  # counts checked before any row
    ],
)
def test_a_call_in_each_values_row_runs_as_the_row_is_written(db: Db, statement: str, error: int | None, calls: int, changes: list[str], rows: list[tuple]) -> None:
    outcome = db.run(statement)
    assert (outcome.error.code if outcome.error else None) == error
    assert [change.table.name for change in outcome.changes] == changes
    assert len(db.rows("t1")) == calls
    assert db.rows(statement.split()[2]) == rows
