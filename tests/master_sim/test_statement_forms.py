"""What the master does with statement forms beyond plain DML: locking reads below
REPEATABLE READ under STATEMENT, ANALYZE TABLE and SHOW, INSERT DELAYED."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor

SCHEMA = [
    "CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
    "CREATE TABLE m (a INT PRIMARY KEY, b INT) ENGINE=MyISAM",
    "INSERT INTO t VALUES (1, 1)",
]
from tests.support import logged_statements


def _logged(master, after: int) -> list[str]:
    return logged_statements(master.binlog_path, after)


@pytest.mark.parametrize(
    ("binlog_format", "isolation", "sql", "error"),
    [
        ("STATEMENT", "READ-COMMITTED", "SELECT * FROM t FOR UPDATE", 1665),
        ("STATEMENT", "READ-UNCOMMITTED", "SELECT * FROM t WHERE a = 1 FOR UPDATE", 1665),
        ("STATEMENT", "READ-COMMITTED", "SELECT * FROM t LOCK IN SHARE MODE", None),
        ("STATEMENT", "READ-COMMITTED", "SELECT * FROM t FOR SHARE", None),
        ("STATEMENT", "READ-COMMITTED", "SELECT * FROM m FOR UPDATE", None),
        ("STATEMENT", "REPEATABLE-READ", "SELECT * FROM t FOR UPDATE", None),
        ("MIXED", "READ-COMMITTED", "SELECT * FROM t FOR UPDATE", None),
        ("ROW", "READ-COMMITTED", "SELECT * FROM t FOR UPDATE", None),
    ],
)
def test_a_locking_read_below_repeatable_read_under_statement(new_master, binlog_format: str, isolation: str, sql: str, error: int | None) -> None:
    master = new_master(SCHEMA, binlog_format, MARIADB_1011)
    assert master.submit("con1", f"SET SESSION transaction_isolation = '{isolation}'").error is None
    result = master.submit("con1", sql)
    assert (result.error.code if result.error else None) == error


@pytest.mark.parametrize(
    ("steps", "logged"),
    [
        (["ANALYZE TABLE t"], ["ANALYZE TABLE t"]),
        (["ANALYZE TABLE no_such_table"], ["ANALYZE TABLE no_such_table"]),
        (["ANALYZE LOCAL TABLE t", "ANALYZE NO_WRITE_TO_BINLOG TABLE t"], []),
        (["BEGIN", "INSERT INTO t VALUES (2, 2)", "ANALYZE TABLE t", "ROLLBACK"], ["BEGIN", "INSERT INTO t VALUES (2, 2)", "Xid", "ANALYZE TABLE t"]),
        (["SHOW TABLES", "SHOW COLUMNS FROM t", "SHOW CREATE TABLE t"], []),
        (["BEGIN", "INSERT INTO t VALUES (2, 2)", "SHOW TABLES", "ROLLBACK"], []),
    ],
)
def test_analyze_table_is_logged_after_an_implicit_commit_and_show_logs_nothing(new_master, steps: list[str], logged: list[str]) -> None:
    master = new_master(SCHEMA, "STATEMENT", MARIADB_1011)
    start = master.writer.position
    for sql in steps:
        assert master.submit("con1", sql).error is None, sql
    master.finish()
    assert _logged(master, start) == logged


@pytest.mark.parametrize(
    ("flavor", "global_format", "error", "warnings", "logged"),
    [
        (MYSQL_80, "STATEMENT", None, [3005], "INSERT DELAYED INTO m VALUES (5, 5)"),
        (MYSQL_80, "ROW", None, [3005], "Write_rows"),
        (MARIADB_1011, "STATEMENT", None, [], "INSERT  INTO m VALUES (5, 5)"),
        (MARIADB_1011, "MIXED", 1235, [], None),
    ],
)
def test_insert_delayed_runs_as_insert(new_master, flavor: Flavor, global_format: str, error: int | None, warnings: list[int], logged: str | None) -> None:
    master = new_master(SCHEMA, global_format, flavor)
    start = master.writer.position
    result = master.submit("con1", "INSERT DELAYED INTO m VALUES (5, 5)")
    assert (result.error.code if result.error else None) == error
    assert [n.code for n in result.notes] == warnings
    master.finish()
    events = _logged(master, start)
    assert (logged in events) if logged is not None else events == []


@pytest.mark.parametrize(
    ("flavor", "binlog_format", "sql", "logged"),
    [
        # With a SELECT, over an existing table: nothing done, nothing logged (both servers).
        (MYSQL_80, "STATEMENT", "CREATE TABLE IF NOT EXISTS t (PRIMARY KEY (a)) SELECT * FROM m", []),
        (MYSQL_80, "ROW", "CREATE TABLE IF NOT EXISTS t (PRIMARY KEY (a)) SELECT * FROM m", []),
        (MARIADB_1011, "MIXED", "CREATE TABLE IF NOT EXISTS t (PRIMARY KEY (a)) SELECT * FROM m", []),
        # Without: MySQL logs it as written (BUG#45574), MariaDB 10.11 logs nothing.
        (MYSQL_80, "ROW", "CREATE TABLE IF NOT EXISTS t (id INT)", ["CREATE TABLE IF NOT EXISTS t (id INT)"]),
        (MARIADB_1011, "ROW", "CREATE TABLE IF NOT EXISTS t (id INT)", []),
    ],
)
def test_create_if_not_exists_over_an_existing_table(new_master, flavor: Flavor, binlog_format: str, sql: str, logged: list[str]) -> None:
    master = new_master(SCHEMA, binlog_format, flavor)
    start = master.writer.position
    result = master.submit("con1", sql)
    assert result.error is None and [note.code for note in result.notes] == [1050]
    master.finish()
    assert _logged(master, start) == logged
    assert master.server.dump()["t"][1] == [(1, 1)]


@pytest.mark.parametrize(
    ("sql", "left"),
    [
        ("DELETE t.* FROM t, m WHERE t.a = m.a", [2]),
        ("DELETE FROM t.* USING t, m WHERE t.a = m.a", [2]),
        ("DELETE t.*, m.* FROM t JOIN m ON t.a = m.a", [2]),
        ("DELETE t FROM t, m WHERE t.a = m.a", [2]),
    ],
)
def test_a_multi_table_delete_target_may_end_in_star(new_master, sql: str, left: list[int]) -> None:
    """`t.*` names the table t in a multi-table DELETE's target list; the statement is
    logged as sent."""
    master = new_master([*SCHEMA, "INSERT INTO t VALUES (2, 2)", "INSERT INTO m VALUES (1, 1)"], "STATEMENT", MYSQL_80)
    after = master.writer.position
    result = master.submit("con1", sql)
    assert result.error is None
    assert [row[0] for row in master.storage.rows(master.server.catalog.tables["t"])] == left
    assert sql in _logged(master, after)
