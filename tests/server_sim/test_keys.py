"""The executor's keys: duplicate errors and their key names, collation-aware uniqueness,
row-by-row checks.

Every test runs SQL the way the simulators do (parse_statement, then Executor.run with a
statement context from the server, through tests.support.Db) and states what a real MySQL 8.0
server does, in strict mode with the default sql_mode and the utf8mb4_0900_ai_ci collation.
Tests marked xfail(strict=True) document simulator bugs: they state MySQL's behaviour.
"""

from __future__ import annotations

import pytest

from tests.support import Db, images


def test_duplicate_primary_key_is_1062_with_qualified_key_name(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    db.ok("INSERT INTO t VALUES (1, 10)")
    outcome = db.run("INSERT INTO t VALUES (1, 20)")
    assert outcome.error is not None
    assert (outcome.error.code, outcome.error.name) == (1062, "ER_DUP_ENTRY")
    assert outcome.error.message == "Duplicate entry '1' for key 't.PRIMARY'"
    assert outcome.changes == [] and outcome.affected_rows == 0
    assert db.rows("t") == [(1, 10)]


def test_duplicate_composite_key_shows_values_joined_by_dash(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT, b VARCHAR(5), UNIQUE KEY ab (a, b))")
    db.ok("INSERT INTO t VALUES (1, 'x')")
    assert db.error("INSERT INTO t VALUES (1, 'x')").message == "Duplicate entry '1-x' for key 't.ab'"


def test_unique_key_allows_several_null_rows(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, a INT, b INT, UNIQUE KEY ab (a, b))")
    outcome = db.ok("INSERT INTO t VALUES (1, NULL, 1, NULL), (2, NULL, 1, NULL), (3, NULL, NULL, NULL)")
    assert outcome.affected_rows == 3
    db.ok("INSERT INTO t VALUES (4, NULL, 1, NULL)")
    db.ok("INSERT INTO t VALUES (5, 5, 1, 2)")
    error = db.error("INSERT INTO t VALUES (6, 5, NULL, NULL)")
    assert error.message == "Duplicate entry '5' for key 't.u'"


@pytest.mark.parametrize(
    ("definition", "key"),
    [("k VARCHAR(10) UNIQUE", "t.k"), ("k VARCHAR(10) PRIMARY KEY", "t.PRIMARY"), ("k CHAR(10) UNIQUE", "t.k")],
)
def test_string_keys_compare_case_insensitively(db: Db, definition: str, key: str) -> None:
    db.ok(f"CREATE TABLE t ({definition})")
    db.ok("INSERT INTO t VALUES ('abc')")
    error = db.error("INSERT INTO t VALUES ('ABC')")
    assert error.code == 1062
    assert error.message == f"Duplicate entry 'ABC' for key '{key}'"
    assert db.rows("t") == [("abc",)]


def test_string_keys_compare_accent_insensitively(db: Db) -> None:
    db.ok("CREATE TABLE t (k VARCHAR(10) PRIMARY KEY)")
    db.ok("INSERT INTO t VALUES ('resume')")
    assert db.error("INSERT INTO t VALUES ('résumé')").code == 1062


def test_an_accented_stored_key_holds_its_unaccented_twin(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, k VARCHAR(10) UNIQUE)")
    db.ok("INSERT INTO t VALUES (1, 'Résumé')")
    assert db.error("INSERT INTO t VALUES (2, 'RESUME')").code == 1062
    assert db.ok("INSERT INTO t VALUES (3, 'resumes')").affected_rows == 1


@pytest.mark.parametrize(
    ("column", "stored", "duplicate", "distinct"),
    [
        ("INT", "7", "'7'", "8"),
        ("BIGINT UNSIGNED", "18446744073709551615", "18446744073709551615", "18446744073709551614"),
        ("DECIMAL(5,2)", "1.5", "1.50", "1.51"),
        ("FLOAT", "0.1", "0.1", "0.2"),
        ("DOUBLE", "0.1", "0.1", "0.30000000000000004"),
        ("CHAR(3)", "'ab'", "'AB'", "'abc'"),
        ("VARBINARY(3)", "'ab'", "'ab'", "'AB'"),
        ("DATE", "'2024-01-02'", "'2024-01-02'", "'2024-01-03'"),
        ("DATETIME", "'2024-01-02 03:04:05'", "'2024-01-02 03:04:05'", "'2024-01-02 03:04:06'"),
    ],
)
def test_a_unique_key_of_each_type_finds_its_duplicate(db: Db, column: str, stored: str, duplicate: str, distinct: str) -> None:
    db.ok(f"CREATE TABLE t (id INT PRIMARY KEY, k {column}, UNIQUE KEY uk (k))")
    db.ok(f"INSERT INTO t VALUES (1, {stored})")
    assert db.error(f"INSERT INTO t VALUES (2, {duplicate})").code == 1062
    assert db.ok(f"INSERT INTO t VALUES (3, {distinct})").affected_rows == 1
    assert db.ok(f"INSERT IGNORE INTO t VALUES (4, {duplicate})").affected_rows == 0
    assert db.error(f"UPDATE t SET k = {duplicate} WHERE id = 3").code == 1062


def test_unique_checks_follow_a_column_added_and_a_row_deleted(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY) ENGINE=InnoDB")
    db.ok("INSERT INTO t VALUES (1), (2)")
    db.ok("ALTER TABLE t ADD COLUMN k INT, ADD UNIQUE KEY uk (k)")
    db.ok("UPDATE t SET k = 5 WHERE id = 1")
    assert db.error("UPDATE t SET k = 5 WHERE id = 2").code == 1062
    db.ok("DELETE FROM t WHERE id = 1")
    assert db.ok("UPDATE t SET k = 5 WHERE id = 2").affected_rows == 1


def test_string_where_compares_case_insensitively(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5))")
    db.ok("INSERT INTO t VALUES (1, 'abc'), (2, 'xyz')")
    assert db.query("SELECT id FROM t WHERE v = 'ABC'") == [(1,)]
    outcome = db.ok("DELETE FROM t WHERE v = 'XYZ'")
    assert images(outcome) == [("delete", (2, "xyz"), None)]


def test_myisam_multi_row_insert_keeps_rows_before_the_duplicate(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v CHAR(1)) ENGINE=MyISAM")
    db.ok("INSERT INTO t VALUES (3, 'z')")
    outcome = db.run("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    assert outcome.error is not None and outcome.error.code == 1062
    assert outcome.error.message == "Duplicate entry '3' for key 't.PRIMARY'"
    assert images(outcome) == [("write", None, (1, "a")), ("write", None, (2, "b"))]
    assert outcome.affected_rows == 2
    # MyISAM cannot roll back: rows 1-2 stay, in insertion order.
    assert db.rows("t") == [(3, "z"), (1, "a"), (2, "b")]


@pytest.mark.parametrize("engine", ["InnoDB", "MyISAM"])
def test_update_primary_key_is_checked_row_by_row(db: Db, engine: str) -> None:
    db.ok(f"CREATE TABLE t (id INT PRIMARY KEY) ENGINE={engine}")
    db.ok("INSERT INTO t VALUES (1), (2)")
    outcome = db.run("UPDATE t SET id = id + 1")
    assert outcome.error is not None
    assert outcome.error.message == "Duplicate entry '2' for key 't.PRIMARY'"
    assert outcome.changes == []
    assert db.rows("t") == [(1,), (2,)]
    outcome = db.ok("UPDATE t SET id = id + 1 ORDER BY id DESC")
    assert images(outcome) == [("update", (2,), (3,)), ("update", (1,), (2,))]
    assert outcome.affected_rows == 2
    assert sorted(db.rows("t")) == [(2,), (3,)]


def test_update_of_unique_key_to_a_taken_value_is_1062(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE)")
    db.ok("INSERT INTO t VALUES (1, 10), (2, 20)")
    error = db.error("UPDATE t SET u = 20 WHERE id = 1")
    assert error.message == "Duplicate entry '20' for key 't.u'"
