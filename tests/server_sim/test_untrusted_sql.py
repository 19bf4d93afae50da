"""The executor on input it must refuse: untrusted SQL, unknown functions, text that does
not parse, statements not modelled, other databases.

Every test runs SQL the way the simulators do (parse_statement, then Executor.run with a
statement context from the server, through tests.support.Db) and states what a real MySQL 8.0
server does, in strict mode with the default sql_mode and the utf8mb4_0900_ai_ci collation.
Tests marked xfail(strict=True) document simulator bugs: they state MySQL's behaviour.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from server_sim.errors import SqlError
from server_sim.parser import parse_statement
from tests.support import Db


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_csv_auto('/etc/passwd')",
        "SELECT * FROM read_parquet('/etc/passwd')",
        "SELECT read_text('/etc/passwd')",
        "SELECT * FROM glob('/etc/*')",
        "SELECT * FROM '/etc/passwd'",
        "INSERT INTO t SELECT * FROM read_csv('/etc/passwd')",
        "SELECT list_value(1, 2)",
        "SELECT epoch_ms(0)",
        "SELECT * FROM duckdb_settings()",
        "SELECT current_setting('threads')",
        "SELECT getenv('HOME')",
        "SELECT * FROM generate_series(1, 3)",
        "SELECT * FROM range(3)",
        "SELECT rpl_uuid()",
        "ATTACH '/tmp/rplharness-never.db' AS x",
        "COPY t TO '/tmp/rplharness-never.csv'",
        "COPY t FROM '/etc/passwd'",
        "EXPORT DATABASE '/tmp/rplharness-never'",
        "INSTALL httpfs",
        "LOAD httpfs",
        "PRAGMA version",
        "SET GLOBAL enable_external_access = true",
        "LOAD DATA INFILE '/etc/passwd' INTO TABLE t",
        "SELECT * FROM t INTO OUTFILE '/tmp/rplharness-never.out'",
    ],
)
def test_untrusted_sql_fails_with_a_clear_error(db: Db, sql: str) -> None:
    db.ok("CREATE TABLE t (line VARCHAR(200))")
    error = db.error(sql)
    # 1064 cannot parse, 1235 not modelled, 1305 no such (MySQL) function, 1146 no such table.
    assert error.code in (1064, 1235, 1305, 1146), error
    assert db.rows("t") == []


def test_untrusted_sql_touches_no_file(db: Db, tmp_path: Path) -> None:
    db.ok("CREATE TABLE t (line VARCHAR(200))")
    db.ok("INSERT INTO t VALUES ('secret')")
    sentinel = tmp_path / "input.csv"
    sentinel.write_text("line\nfrom-file\n")
    targets = [tmp_path / name for name in ("attached.db", "out.csv", "exported", "outfile.txt", "out.parquet")]
    statements = [
        f"ATTACH '{targets[0]}' AS x",
        f"COPY t TO '{targets[1]}'",
        f"EXPORT DATABASE '{targets[2]}'",
        f"SELECT * FROM t INTO OUTFILE '{targets[3]}'",
        f"COPY (SELECT * FROM t) TO '{targets[4]}' (FORMAT PARQUET)",
        f"COPY t FROM '{sentinel}'",
        f"INSERT INTO t SELECT * FROM read_csv('{sentinel}')",
        f"INSERT INTO t SELECT line FROM read_csv_auto('{sentinel}')",
        f"INSERT INTO t SELECT * FROM '{sentinel}'",
    ]
    for sql in statements:
        assert db.error(sql).code in (1064, 1235, 1305, 1146), sql
    assert sorted(path.name for path in tmp_path.iterdir()) == ["input.csv"]
    assert db.rows("t") == [("secret",)]


def test_unknown_function_is_1305(db: Db) -> None:
    error = db.error("SELECT foo(1)")
    assert (error.code, error.name, error.message) == (1305, "ER_SP_DOES_NOT_EXIST", "FUNCTION test.foo does not exist")
    db.ok("CREATE TABLE t (a INT)")
    assert db.error("INSERT INTO t VALUES (foo(1))").code == 1305


def test_unknown_function_in_update_is_1305(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT)")
    db.ok("INSERT INTO t VALUES (1)")
    assert db.error("UPDATE t SET a = foo(1)").code == 1305
    assert db.error("DELETE FROM t WHERE a = foo(1)").code == 1305
    assert db.rows("t") == [(1,)]


@pytest.mark.parametrize("sql", ["SELEC 1", "SELECT FROM WHERE", "INSERT INTO t VALUES (1", "SELECT 1; SELECT 2", "", "UPDATE"])
def test_sql_that_cannot_be_parsed_is_1064(sql: str) -> None:
    with pytest.raises(SqlError) as raised:
        parse_statement(sql)
    assert (raised.value.code, raised.value.name) == (1064, "ER_PARSE_ERROR")
    assert raised.value.message.startswith("You have an error in your SQL syntax")


@pytest.mark.parametrize(
    ("sql", "near"),
    [
        ("CREATE TABEL x (a INT)", "TABEL x (a INT)"),
        ("DROP TABEL x", "TABEL x"),
        ("FOO BAR", "FOO BAR"),
        ("SELEC 1", "SELEC 1"),
        ("SELECT 1; SELECT 2", "SELECT 2"),
        ("SELECT 'abc", "'abc"),
        ("WITH c AS (SELECT 1) INSERT INTO t SELECT * FROM c", "INSERT INTO t SELECT * FROM c"),
        ("REPLACE INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 2", "ON DUPLICATE KEY UPDATE a = 2"),
        ("DELETE t FROM t JOIN u ON t.a = u.a LIMIT 1", "LIMIT 1"),
        ("SELECT 1 FROM t WHERE\nFOO BAR BAZ", "BAR BAZ"),
    ],
)
def test_1064_says_where_as_the_server_does(sql: str, near: str) -> None:
    with pytest.raises(SqlError) as raised:
        parse_statement(sql)
    line = sql.count("\n", 0, sql.index(near)) + 1
    assert raised.value.message == (
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version "
        f"for the right syntax to use near '{near}' at line {line}"
    )


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("LOCK INSTANCE FOR BACKUP", "LOCK"),
        ("CALL p()", "CALL"),
        ("SHOW FIELDS FROM t", "SHOW"),
        ("LOAD DATA INFILE 'rows.txt' INTO TABLE t", "LOAD"),
        ("CHECK TABLE t", "CHECK"),
        ("ANALYZE TABLE t UPDATE HISTOGRAM ON a", "ANALYZE other than ANALYZE TABLE"),
        ("INSERT LOW_PRIORITY INTO t VALUES (1)", "INSERT LOW_PRIORITY"),
        ("SELECT * FROM t FOR UPDATE SKIP LOCKED", "SKIP LOCKED"),
        ("WITH c AS (SELECT a FROM t) UPDATE t JOIN c ON t.a = c.a SET t.a = 2", "UPDATE with WITH"),
        ("CREATE TABLE y AS SELECT 1 AS a", "CREATE TABLE ... SELECT"),
        ("CREATE TABLE y (LIKE t)", "LIKE t"),
    ],
)
def test_statements_not_modelled_are_1235_naming_the_statement(db: Db, sql: str, named: str) -> None:
    db.ok("CREATE TABLE t (a INT)")
    error = db.error(sql)
    assert (error.code, error.name) == (1235, "ER_NOT_SUPPORTED_YET")
    assert error.message.startswith("This version of MySQL doesn't yet support '")
    assert named in error.message


def test_table_in_another_database_is_not_read_as_test(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT)")
    db.ok("INSERT INTO t VALUES (1)")
    assert db.error("SELECT * FROM other.t").code in (1146, 1049, 1235)


def test_dml_on_a_table_in_another_database_is_refused(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT)")
    assert db.error("INSERT INTO other.t VALUES (1)").code == 1146
    assert db.ok("INSERT INTO test.t VALUES (1)").affected_rows == 1
