"""The executor's DDL: CREATE/DROP TABLE and their notes, ALTER TABLE's columns and keys,
engines, temporary tables.

Every test runs SQL the way the simulators do (parse_statement, then Executor.run with a
statement context from the server, through tests.support.Db) and states what a real MySQL 8.0
server does, in strict mode with the default sql_mode and the utf8mb4_0900_ai_ci collation.
Tests marked xfail(strict=True) document simulator bugs: they state MySQL's behaviour.
"""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor
from tests.support import Db


def test_create_table_if_not_exists_on_existing_table_is_a_note(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT)")
    db.ok("INSERT INTO t VALUES (1)")
    outcome = db.ok("CREATE TABLE IF NOT EXISTS t (x VARCHAR(3))")
    assert [(w.level, w.code, w.message) for w in outcome.warnings] == [("Note", 1050, "Table 't' already exists")]
    assert db.columns("t") == ["id"] and db.rows("t") == [(1,)]


def test_duplicate_create_table_is_1050(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT)")
    error = db.error("CREATE TABLE t (x INT)")
    assert (error.code, error.name, error.message) == (1050, "ER_TABLE_EXISTS_ERROR", "Table 't' already exists")


def test_drop_missing_table_is_1051(db: Db) -> None:
    error = db.error("DROP TABLE nope")
    assert (error.code, error.name, error.message) == (1051, "ER_BAD_TABLE_ERROR", "Unknown table 'test.nope'")


def test_drop_table_if_exists_on_missing_table_is_a_note(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT)")
    outcome = db.ok("DROP TABLE IF EXISTS t, nope")
    assert [(w.level, w.code, w.message) for w in outcome.warnings] == [("Note", 1051, "Unknown table 'test.nope'")]
    assert db.server.dump() == {}


@pytest.fixture
def two_rows(db: Db) -> Db:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    db.ok("INSERT INTO t VALUES (1, 5), (2, 5)")
    return db


def test_alter_add_column_with_default_fills_existing_rows(two_rows: Db) -> None:
    two_rows.ok("ALTER TABLE t ADD COLUMN w INT NOT NULL DEFAULT 7")
    two_rows.ok("ALTER TABLE t ADD COLUMN s VARCHAR(3) DEFAULT 'x'")
    two_rows.ok("ALTER TABLE t ADD COLUMN z INT NOT NULL")  # implicit default 0
    two_rows.ok("ALTER TABLE t ADD COLUMN n INT")
    assert two_rows.columns("t") == ["id", "v", "w", "s", "z", "n"]
    assert two_rows.rows("t") == [(1, 5, 7, "x", 0, None), (2, 5, 7, "x", 0, None)]


def test_alter_add_column_first_and_after(two_rows: Db) -> None:
    two_rows.ok("ALTER TABLE t ADD COLUMN f INT DEFAULT 0 FIRST")
    two_rows.ok("ALTER TABLE t ADD COLUMN g INT DEFAULT 9 AFTER id")
    assert two_rows.columns("t") == ["f", "id", "g", "v"]
    assert two_rows.rows("t") == [(0, 1, 9, 5), (0, 2, 9, 5)]
    outcome = two_rows.ok("INSERT INTO t VALUES (1, 3, 2, 8)")
    assert outcome.changes[0].after == (1, 3, 2, 8)
    assert two_rows.query("SELECT * FROM t WHERE id = 3") == [(1, 3, 2, 8)]


def test_alter_drop_column(two_rows: Db) -> None:
    two_rows.ok("ALTER TABLE t ADD COLUMN w INT DEFAULT 1")
    two_rows.ok("ALTER TABLE t DROP COLUMN v")
    assert two_rows.columns("t") == ["id", "w"]
    assert two_rows.rows("t") == [(1, 1), (2, 1)]
    assert two_rows.error("SELECT v FROM t").code == 1054
    error = two_rows.error("ALTER TABLE t DROP COLUMN nope")
    assert (error.code, error.message) == (1091, "Can't DROP 'nope'; check that column/key exists")


def test_alter_column_set_and_drop_default(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL DEFAULT 4)")
    db.ok("ALTER TABLE t ALTER COLUMN v SET DEFAULT 9")
    assert db.ok("INSERT INTO t (id) VALUES (1)").changes[0].after == (1, 9)
    db.ok("ALTER TABLE t ALTER COLUMN v DROP DEFAULT")
    assert db.error("INSERT INTO t (id) VALUES (2)").code == 1364
    assert db.rows("t") == [(1, 9)]


def test_alter_drop_and_add_primary_key(two_rows: Db) -> None:
    two_rows.ok("ALTER TABLE t DROP PRIMARY KEY")
    two_rows.ok("INSERT INTO t VALUES (1, 6)")  # no key any more
    error = two_rows.error("ALTER TABLE t ADD PRIMARY KEY (id)")
    assert (error.code, error.name) == (1062, "ER_DUP_ENTRY")
    assert error.message.startswith("Duplicate entry '1' for key ")
    two_rows.ok("DELETE FROM t WHERE v = 6")
    two_rows.ok("ALTER TABLE t ADD PRIMARY KEY (id)")
    assert two_rows.error("INSERT INTO t VALUES (2, 0)").message == "Duplicate entry '2' for key 't.PRIMARY'"
    assert two_rows.error("ALTER TABLE t ADD PRIMARY KEY (v)").code == 1068


def test_alter_drop_primary_key_when_there_is_none_is_1091(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT)")
    assert db.error("ALTER TABLE t DROP PRIMARY KEY").code == 1091


def test_alter_add_unique_over_duplicate_data_is_1062(two_rows: Db) -> None:
    error = two_rows.error("ALTER TABLE t ADD UNIQUE KEY uv (v)")
    assert (error.code, error.name) == (1062, "ER_DUP_ENTRY")
    assert error.message.startswith("Duplicate entry '5' for key ")
    # The failed ALTER changed nothing: a second row with v = 5 is still accepted.
    two_rows.ok("INSERT INTO t VALUES (3, 5)")


def test_alter_add_unique_over_case_variants_is_1062(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(5))")
    db.ok("INSERT INTO t VALUES (1, 'abc'), (2, 'ABC')")
    assert db.error("ALTER TABLE t ADD UNIQUE (s)").code == 1062


def test_alter_add_column_and_unique_key_over_its_default_is_1062(two_rows: Db) -> None:
    assert two_rows.error("ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 5, ADD UNIQUE KEY (c)").code == 1062


def test_alter_drop_missing_key_is_1091(two_rows: Db) -> None:
    for sql in ("ALTER TABLE t DROP KEY nokey", "ALTER TABLE t DROP INDEX nokey"):
        error = two_rows.error(sql)
        assert (error.code, error.name) == (1091, "ER_CANT_DROP_FIELD_OR_KEY")
        assert error.message == "Can't DROP 'nokey'; check that column/key exists"


def test_alter_drop_key_removes_the_uniqueness(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, u INT, UNIQUE KEY uk (u))")
    db.ok("INSERT INTO t VALUES (1, 1)")
    assert db.error("INSERT INTO t VALUES (2, 1)").code == 1062
    db.ok("ALTER TABLE t DROP KEY uk")
    db.ok("INSERT INTO t VALUES (2, 1)")


def test_unknown_engine_is_1286(db: Db) -> None:
    error = db.error("CREATE TABLE t (a INT) ENGINE=Foo")
    assert (error.code, error.name, error.message) == (1286, "ER_UNKNOWN_STORAGE_ENGINE", "Unknown storage engine 'Foo'")
    assert db.server.dump() == {}


def test_temporary_table_shadows_the_base_table_for_its_session_only(db: Db) -> None:
    other = db.new_session()
    db.ok("CREATE TABLE t (id INT)")
    db.ok("INSERT INTO t VALUES (1)")
    db.ok("CREATE TEMPORARY TABLE t (id INT, x INT)")
    db.ok("INSERT INTO t VALUES (2, 2)")
    assert db.query("SELECT * FROM t") == [(2, 2)]
    assert db.query("SELECT * FROM t", session=other) == [(1,)]
    db.ok("INSERT INTO t VALUES (3)", session=other)
    assert db.rows("t") == [(1,), (3,)]  # dump() shows the base table only
    assert db.error("DROP TEMPORARY TABLE t", session=other).code == 1051
    assert db.error("CREATE TEMPORARY TABLE t (y INT)").code == 1050
    db.ok("DROP TABLE t")  # drops the session's temporary table first
    assert db.query("SELECT * FROM t") == [(1,), (3,)]


def test_temporary_table_is_invisible_to_other_sessions(db: Db) -> None:
    other = db.new_session()
    db.ok("CREATE TEMPORARY TABLE tmp (id INT)")
    db.ok("INSERT INTO tmp VALUES (1)")
    error = db.error("SELECT * FROM tmp", session=other)
    assert (error.code, error.message) == (1146, "Table 'test.tmp' doesn't exist")
    db.ok("CREATE TEMPORARY TABLE tmp (id INT)", session=other)  # its own, separate one
    assert db.query("SELECT * FROM tmp", session=other) == []
    assert db.server.dump() == {}


def test_missing_table_is_1146(db: Db) -> None:
    for sql in ("SELECT * FROM nope", "INSERT INTO nope VALUES (1)", "UPDATE nope SET a = 1", "DELETE FROM nope"):
        error = db.error(sql)
        assert (error.code, error.message) == (1146, "Table 'test.nope' doesn't exist"), sql


@pytest.mark.parametrize(
    ("flavor", "warnings"),
    [
        (MYSQL_80, []),
        (MARIADB_1011, [("Warning", 1280, "Name 'pk' ignored for PRIMARY key.")]),
    ],
    ids=["mysql-8.0", "mariadb-10.11"],
)
@pytest.mark.parametrize(
    "sql",
    ["CREATE TABLE u (a INT, CONSTRAINT pk PRIMARY KEY (a))", "ALTER TABLE t ADD CONSTRAINT pk PRIMARY KEY (id)"],
)
def test_named_primary_key_is_primary_and_mariadb_warns(flavor: Flavor, warnings: list[tuple], sql: str) -> None:
    db = Db(flavor=flavor)
    db.ok("CREATE TABLE t (id INT)")
    outcome = db.ok(sql)
    assert [(w.level, w.code, w.message) for w in outcome.warnings] == warnings
    table = db.server.catalog.get("u" if sql.startswith("CREATE") else "t")
    assert [(key.name, key.kind.value) for key in table.keys] == [("PRIMARY", "PRIMARY")]
    db.close()


@pytest.mark.parametrize(
    ("sql_mode", "code"),
    [("STRICT_TRANS_TABLES", 1264), ("STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION", 1264), ("", 1235), ("NO_ENGINE_SUBSTITUTION", 1235)],
)
def test_alter_converting_a_value_that_does_not_fit_is_strict_or_refused(db: Db, sql_mode: str, code: int) -> None:
    """Outside strict mode the server clips the value and warns; the model converts only
    strictly, so it refuses instead of failing where the server succeeds."""
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, w INT) ENGINE=MyISAM")
    db.ok("INSERT INTO t VALUES (1, 300)")
    db.session.variables["sql_mode"] = sql_mode
    assert db.error("ALTER TABLE t MODIFY w TINYINT").code == code
    assert db.rows("t") == [(1, 300)]


def test_tables_whose_names_differ_in_case_are_two_tables(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT)")
    db.ok("CREATE TABLE T (b INT)")
    db.ok("INSERT INTO t VALUES (1)")
    db.ok("INSERT INTO T VALUES (2)")
    assert db.query("SELECT * FROM t") == [(1,)] and db.query("SELECT * FROM T") == [(2,)]
    db.ok("DROP TABLE T")
    assert db.query("SELECT * FROM t") == [(1,)]
    assert db.error("SELECT * FROM T").code == 1146
