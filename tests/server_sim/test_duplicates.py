"""The executor's duplicate handling: REPLACE, INSERT/UPDATE IGNORE, ON DUPLICATE KEY
UPDATE and CREATE ... SELECT.

Every test runs SQL the way the simulators do (parse_statement, then Executor.run with a
statement context from the server, through tests.support.Db) and states what a real MySQL 8.0
server does, in strict mode with the default sql_mode and the utf8mb4_0900_ai_ci collation.
Tests marked xfail(strict=True) document simulator bugs: they state MySQL's behaviour.
"""

from __future__ import annotations

import datetime as dt

import pytest

from server_sim.flavor import get_flavor
from server_sim.parser import parse_statement
from server_sim.session import ChangeKind
from tests.support import Db, images, kinds


@pytest.fixture
def keyed(db: Db) -> Db:
    """id is the PK, u the last unique key, v has a default."""
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, v VARCHAR(10) DEFAULT 'dflt')")
    db.ok("INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y')")
    return db


def test_replace_deletes_the_conflicting_row_then_inserts_with_defaults(keyed: Db) -> None:
    outcome = keyed.ok("REPLACE INTO t (id, u) VALUES (1, 30)")
    assert images(outcome) == [("delete", (1, 10, "x"), None), ("write", None, (1, 30, "dflt"))]
    assert outcome.affected_rows == 2
    assert sorted(keyed.rows("t")) == [(1, 30, "dflt"), (2, 20, "y")]


def test_replace_without_conflict_is_a_plain_insert(keyed: Db) -> None:
    outcome = keyed.ok("REPLACE INTO t VALUES (3, 30, 'z')")
    assert images(outcome) == [("write", None, (3, 30, "z"))]
    assert outcome.affected_rows == 1


def test_replace_conflicting_on_the_last_unique_key_updates_in_place(keyed: Db) -> None:
    outcome = keyed.ok("REPLACE INTO t (id, u) VALUES (3, 20)")
    assert [change.kind for change in outcome.changes] == [ChangeKind.UPDATE]
    assert images(outcome) == [("update", (2, 20, "y"), (3, 20, "dflt"))]
    assert outcome.affected_rows == 2
    assert sorted(keyed.rows("t")) == [(1, 10, "x"), (3, 20, "dflt")]


def test_replace_conflicting_with_two_rows_deletes_one_and_updates_the_other(keyed: Db) -> None:
    outcome = keyed.ok("REPLACE INTO t (id, u) VALUES (1, 20)")
    assert images(outcome) == [("delete", (1, 10, "x"), None), ("update", (2, 20, "y"), (1, 20, "dflt"))]
    assert outcome.affected_rows == 3
    assert keyed.rows("t") == [(1, 20, "dflt")]


def test_replace_with_a_single_primary_key_updates_in_place(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    db.ok("INSERT INTO t VALUES (1, 1)")
    outcome = db.ok("REPLACE INTO t VALUES (1, 2)")
    assert images(outcome) == [("update", (1, 1), (1, 2))]
    assert outcome.affected_rows == 2


def test_replace_with_an_identical_row_changes_nothing(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
    db.ok("INSERT INTO t VALUES (1, 1)")
    outcome = db.ok("REPLACE INTO t VALUES (1, 1)")
    assert outcome.changes == []
    assert outcome.affected_rows == 1


def test_insert_ignore_skips_duplicates_with_a_1062_warning(keyed: Db) -> None:
    outcome = keyed.ok("INSERT IGNORE INTO t VALUES (1, 99, 'dup'), (3, 30, 'new'), (4, 20, 'dup2')")
    assert images(outcome) == [("write", None, (3, 30, "new"))]
    assert outcome.affected_rows == 1
    assert [(w.level, w.code, w.message) for w in outcome.warnings] == [
        ("Warning", 1062, "Duplicate entry '1' for key 't.PRIMARY'"),
        ("Warning", 1062, "Duplicate entry '20' for key 't.u'"),
    ]
    assert sorted(keyed.rows("t")) == [(1, 10, "x"), (2, 20, "y"), (3, 30, "new")]


def test_update_ignore_leaves_a_conflicting_row_with_a_1062_warning_and_goes_on(keyed: Db) -> None:
    outcome = keyed.ok("UPDATE IGNORE t SET u = u + 10")
    # In primary-key order: row 1's u 10 -> 20 collides with row 2 and stays; row 2 moves to 30.
    assert images(outcome) == [("update", (2, 20, "y"), (2, 30, "y"))]
    assert outcome.affected_rows == 1
    assert [(w.level, w.code, w.message) for w in outcome.warnings] == [("Warning", 1062, "Duplicate entry '20' for key 't.u'")]
    assert sorted(keyed.rows("t")) == [(1, 10, "x"), (2, 30, "y")]


def test_update_without_ignore_stops_at_the_first_duplicate(keyed: Db) -> None:
    assert keyed.error("UPDATE t SET u = u + 10").code == 1062


@pytest.mark.parametrize(
    ("sql", "mode"),
    [
        ("UPDATE IGNORE t SET u = 1", "ignore"),
        ("UPDATE t SET v = 'IGNORE'", "error"),
        ("INSERT IGNORE INTO t VALUES (1, 2, 'x')", "ignore"),
        ("INSERT IGNORE INTO t VALUES (1, 2, 'x') ON DUPLICATE KEY UPDATE v = 'y'", "on duplicate key update"),
        ("REPLACE INTO t VALUES (1, 2, 'x')", "replace"),
        ("CREATE TABLE c (a INT) IGNORE SELECT id FROM t", "ignore"),
        ("CREATE TABLE c (a INT) REPLACE AS SELECT id FROM t", "replace"),
        ("CREATE TABLE c (a INT) IGNORE (SELECT id FROM t)", "ignore"),
        ("CREATE TABLE c (a VARCHAR(10) DEFAULT 'REPLACE') SELECT id FROM t", "error"),
    ],
)
def test_duplicate_keywords_sqlglot_rejects_become_the_write_mode(sql: str, mode: str) -> None:
    assert parse_statement(sql).write_mode.value == mode


def test_create_select_appends_the_selected_columns_and_copies_their_definition(keyed: Db) -> None:
    outcome = keyed.ok("CREATE TABLE c (n INT AUTO_INCREMENT PRIMARY KEY, u INT) ENGINE=MyISAM SELECT u, v AS w, id FROM t")
    table = keyed.server.catalog.get("c")
    assert [(c.name, c.type.sql, c.nullable, c.default, c.auto_increment) for c in table.columns] == [
        ("n", "INT", False, None, True),
        ("u", "INT", True, None, False),  # declared: the definition wins
        ("w", "VARCHAR(10)", True, "dflt", False),  # from t.v, renamed, its default kept
        ("id", "INT", False, None, False),  # NOT NULL kept, the key not
    ]
    assert [key.columns for key in table.keys] == [("n",)]
    assert kinds(outcome) == ["write", "write"] and outcome.affected_rows == 2
    assert keyed.rows("c") == [(1, 10, "x", 1), (2, 20, "y", 2)]


def test_create_select_star_copies_every_column(keyed: Db) -> None:
    keyed.ok("CREATE TABLE c SELECT * FROM t")
    assert keyed.columns("c") == ["id", "u", "v"] and keyed.rows("c") == [(1, 10, "x"), (2, 20, "y")]


@pytest.mark.parametrize(
    ("sql", "rows", "warnings"),
    [
        ("CREATE TABLE c (u2 INT PRIMARY KEY) IGNORE SELECT id DIV 2 AS u2, v FROM t", [(0, "x"), (1, "y")], []),
        ("CREATE TABLE c (k INT PRIMARY KEY) IGNORE SELECT 1 AS k, v FROM t", [(1, "x")], [1062]),
        ("CREATE TABLE c (k INT PRIMARY KEY) REPLACE SELECT 1 AS k, v FROM t", [(1, "y")], []),
    ],
)
def test_create_select_handles_duplicates_as_its_keyword_says(keyed: Db, sql: str, rows: list[tuple], warnings: list[int]) -> None:
    outcome = keyed.ok(sql)
    assert keyed.rows("c") == rows
    assert [w.code for w in outcome.warnings] == warnings


def test_failed_create_select_leaves_no_table_and_no_changes(keyed: Db) -> None:
    outcome = keyed.run("CREATE TABLE c (k INT PRIMARY KEY) SELECT 1 AS k, v FROM t")
    assert outcome.error is not None and outcome.error.code == 1062
    assert outcome.changes == [] and outcome.affected_rows == 0
    assert keyed.server.catalog.find("c") is None
    keyed.ok("CREATE TABLE c (k INT)")  # the name is free again


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("CREATE TABLE c SELECT id + 1 FROM t", 1235),
        ("CREATE TABLE c SELECT nope FROM t", 1054),
        ("CREATE TABLE c SELECT id, u AS id FROM t", 1060),
        ("CREATE TABLE c SELECT id FROM t UNION SELECT u FROM t", 1235),
    ],
)
def test_create_select_errors(keyed: Db, sql: str, code: int) -> None:
    assert keyed.error(sql).code == code
    assert keyed.server.catalog.find("c") is None


def test_on_duplicate_key_update_affected_rows_are_1_2_0(keyed: Db) -> None:
    sql = "INSERT INTO t (id, u, v) VALUES ({}, {}, 'new') ON DUPLICATE KEY UPDATE v = VALUES(v)"
    inserted = keyed.ok(sql.format(3, 30))
    assert (inserted.affected_rows, kinds(inserted)) == (1, ["write"])
    updated = keyed.ok(sql.format(1, 10))
    assert updated.affected_rows == 2
    assert images(updated) == [("update", (1, 10, "x"), (1, 10, "new"))]
    unchanged = keyed.ok(sql.format(1, 10))
    assert (unchanged.affected_rows, unchanged.changes) == (0, [])
    assert sorted(keyed.rows("t")) == [(1, 10, "new"), (2, 20, "y"), (3, 30, "new")]


def test_on_duplicate_key_update_reads_old_values_and_values_function(keyed: Db) -> None:
    outcome = keyed.ok("INSERT INTO t VALUES (2, 20, 'q') ON DUPLICATE KEY UPDATE u = u + 1, v = CONCAT(v, VALUES(v))")
    assert images(outcome) == [("update", (2, 20, "y"), (2, 21, "yq"))]


def test_on_duplicate_key_update_into_a_taken_key_is_1062(keyed: Db) -> None:
    error = keyed.error("INSERT INTO t VALUES (1, 0, 'z') ON DUPLICATE KEY UPDATE u = 20")
    assert error.message == "Duplicate entry '20' for key 't.u'"


def test_on_duplicate_key_update_multi_row_counts_each_row(keyed: Db) -> None:
    outcome = keyed.ok("INSERT INTO t (id, u) VALUES (1, 10), (5, 50), (2, 20) ON DUPLICATE KEY UPDATE v = 'hit'")
    assert kinds(outcome) == ["update", "write", "update"]
    assert outcome.affected_rows == 2 + 1 + 2


def test_on_duplicate_key_update_refreshes_on_update_timestamp(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP)")
    db.ok("INSERT INTO t (id, v) VALUES (1, 1)", timestamp=dt.datetime(2030, 1, 1))
    later = dt.datetime(2030, 6, 1)
    db.ok("INSERT INTO t (id, v) VALUES (1, 1) ON DUPLICATE KEY UPDATE v = v + 1", timestamp=later)
    assert db.rows("t") == [(1, 2, later)]


@pytest.mark.parametrize(
    ("sql", "rows"),
    [
        # MySQL 8.0.19's row alias: new.v is the value the INSERT proposes (VALUES(v), without its 1287).
        ("INSERT INTO t (id, u, v) VALUES (1, 10, 'new') AS n ON DUPLICATE KEY UPDATE v = n.v", [(1, 10, "new"), (2, 20, "y")]),
        ("INSERT INTO t VALUES (2, 20, 'q') AS n ON DUPLICATE KEY UPDATE v = CONCAT(v, n.v, n.id)", [(1, 10, "x"), (2, 20, "yq2")]),
        # Column aliases name the listed columns in order, qualified or not.
        ("INSERT INTO t (id, v) VALUES (1, 'w') AS n(i, w) ON DUPLICATE KEY UPDATE v = CONCAT(w, n.i)", [(1, 10, "w1"), (2, 20, "y")]),
        ("INSERT INTO t SET id = 3, v = 'z' AS n ON DUPLICATE KEY UPDATE v = n.v", [(1, 10, "x"), (2, 20, "y"), (3, None, "z")]),
    ],
)
def test_on_duplicate_key_update_with_row_alias(keyed: Db, sql: str, rows: list[tuple]) -> None:
    outcome = keyed.ok(sql)
    assert outcome.warnings == []
    assert sorted(keyed.rows("t")) == rows


@pytest.mark.parametrize(
    ("sql", "flavor", "code", "message"),
    [
        ("INSERT INTO t VALUES (1, 10, 'q') AS n ON DUPLICATE KEY UPDATE v = n.nope", "mysql-8.0", 1054, "Unknown column 'n.nope' in 'field list'"),
        ("INSERT INTO t (id, v) VALUES (1, 'q') AS n(i, v) ON DUPLICATE KEY UPDATE u = v", "mysql-8.0", 1235, "This version of MySQL doesn't yet support 'the column alias v of the row alias, also a column of t'"),
        ("INSERT INTO t VALUES (1, 10, 'q') AS n ON DUPLICATE KEY UPDATE v = n.v", "mariadb-10.11", 1235, "This version of MySQL doesn't yet support 'a row alias, INSERT ... VALUES (...) AS name (MariaDB's parser says 1064)'"),
    ],
)
def test_a_row_alias_the_server_rejects(sql: str, flavor: str, code: int, message: str) -> None:
    db = Db(flavor=get_flavor(flavor))
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, v VARCHAR(10) DEFAULT 'dflt')")
    db.ok("INSERT INTO t VALUES (1, 10, 'x')")
    error = db.error(sql)
    assert (error.code, error.message) == (code, message)
    db.close()
