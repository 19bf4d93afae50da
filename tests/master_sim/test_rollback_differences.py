"""Rollback warnings, savepoint events, UPDATE IGNORE's warnings, auto-increment exhaustion
and the unsafe reasons' wording, as each server gives them."""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor

SCHEMA = [
    "CREATE TABLE n (a INT PRIMARY KEY, b INT) ENGINE=MyISAM",
    "CREATE TABLE i (a INT PRIMARY KEY, b INT UNIQUE) ENGINE=InnoDB",
    "CREATE TABLE ti (a TINYINT AUTO_INCREMENT PRIMARY KEY, b INT) ENGINE=InnoDB",
    "INSERT INTO n VALUES (1, 1)",
    "INSERT INTO i VALUES (1, 1), (2, 2)",
]
from tests.support import logged_statements


def _codes(result) -> list[int]:
    return [note.code for note in result.notes]


@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=lambda f: f.name)
@pytest.mark.parametrize(
    ("steps", "last_codes"),
    [
        (["INSERT INTO n VALUES (5, 5), (1, 1)"], [1196]),  # autocommit: the statement is the transaction
        (["BEGIN", "INSERT INTO n VALUES (5, 5), (1, 1)"], []),
        (["BEGIN", "INSERT INTO i VALUES (3, 3)", "INSERT INTO n VALUES (5, 5), (1, 1)", "ROLLBACK"], [1196]),
        (["SET autocommit = 0", "INSERT INTO n VALUES (5, 5), (1, 1)"], []),
    ],
)
def test_warning_1196_comes_with_the_rollback_of_the_transaction(new_master, flavor: Flavor, steps: list[str], last_codes: list[int]) -> None:
    master = new_master(SCHEMA, "ROW", flavor)
    results = [master.submit("con1", sql) for sql in steps]
    assert [c for c in _codes(results[-1]) if c == 1196] == last_codes


@pytest.mark.parametrize(
    ("flavor", "codes"),
    [(MARIADB_1011, [1196]), (MYSQL_80, [])],
    ids=lambda value: value.name if isinstance(value, Flavor) else str(value),
)
def test_rollback_to_after_create_temporary_table(new_master, flavor: Flavor, codes: list[int]) -> None:
    master = new_master(SCHEMA, "STATEMENT", flavor)
    for sql in ["BEGIN", "INSERT INTO i VALUES (4, 4)", "SAVEPOINT s1", "CREATE TEMPORARY TABLE tt (a INT)"]:
        assert master.submit("con1", sql).error is None
    assert _codes(master.submit("con1", "ROLLBACK TO s1")) == codes


@pytest.mark.parametrize(
    ("flavor", "codes"),
    [(MARIADB_1011, [1592]), (MYSQL_80, [1062, 1592])],
    ids=lambda value: value.name if isinstance(value, Flavor) else str(value),
)
def test_update_ignore_skipping_a_duplicate(new_master, flavor: Flavor, codes: list[int]) -> None:
    master = new_master(SCHEMA, "STATEMENT", flavor)
    assert _codes(master.submit("con1", "UPDATE IGNORE i SET b = 2 WHERE a = 1")) == codes


@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=lambda f: f.name)
def test_an_exhausted_tinyint_auto_increment_is_error_167(new_master, flavor: Flavor) -> None:
    master = new_master(SCHEMA, "ROW", flavor)
    assert master.submit("con1", "INSERT INTO ti VALUES (127, 1)").error is None
    error = master.submit("con1", "INSERT INTO ti (b) VALUES (2)").error
    assert (error.code, error.message) == (167, "Out of range value for column 'a' at row 1")


@pytest.mark.parametrize(
    ("flavor", "logged"),
    [
        (MYSQL_80, ["BEGIN", "INSERT INTO i VALUES (3, 3)", "SAVEPOINT `s`", "Xid"]),
        (MARIADB_1011, ["BEGIN", "INSERT INTO i VALUES (3, 3)", "Xid"]),
    ],
    ids=lambda value: value.name if isinstance(value, Flavor) else "",
)
def test_rollback_to_a_savepoint_with_nothing_after_it_kept(new_master, flavor: Flavor, logged: list[str]) -> None:
    master = new_master(SCHEMA, "STATEMENT", flavor)
    start = master.writer.position
    for sql in ["BEGIN", "INSERT INTO i VALUES (3, 3)", "SAVEPOINT s", "INSERT INTO i VALUES (4, 4)", "ROLLBACK TO s", "COMMIT"]:
        assert master.submit("con1", sql).error is None
    master.finish()
    events = logged_statements(master.binlog_path, start)
    assert events == logged


@pytest.mark.parametrize(
    ("flavor", "ending"),
    [
        (MYSQL_80, "may return a different value on the replica."),
        (MARIADB_1011, "may return a different value on the slave"),
    ],
    ids=lambda value: value.name if isinstance(value, Flavor) else "",
)
def test_unsafe_reasons_in_each_servers_wording(new_master, flavor: Flavor, ending: str) -> None:
    master = new_master(SCHEMA, "STATEMENT", flavor)
    (note,) = master.submit("con1", "INSERT INTO i VALUES (UUID_SHORT() % 100 + 10, 10)").notes
    assert note.message.endswith(ending)


@pytest.mark.parametrize(
    ("flavor", "steps", "codes"),
    [
        # MySQL 8.0.27's binlog_*_mix_innodb_myisam record these (push_unsafe_rollback_warnings).
        (MYSQL_80, ["BEGIN", "CREATE TEMPORARY TABLE tt (a INT) ENGINE=InnoDB"], [1751]),
        (MYSQL_80, ["BEGIN", "CREATE TEMPORARY TABLE tt (a INT) ENGINE=InnoDB", "INSERT INTO n VALUES (7, 7)"], [1196, 1751]),
        (MYSQL_80, ["CREATE TEMPORARY TABLE tt (a INT)", "BEGIN", "DROP TEMPORARY TABLE tt"], [1752]),
        (MYSQL_80, ["BEGIN", "INSERT INTO i VALUES (3, 3)"], []),
        # MariaDB 10.11 (recorded in the oracle runs): no such warning.
        (MARIADB_1011, ["BEGIN", "CREATE TEMPORARY TABLE tt (a INT) ENGINE=InnoDB"], []),
    ],
    ids=lambda value: value.name if isinstance(value, Flavor) else None,
)
def test_rollback_warns_of_temporary_tables_it_cannot_undo(new_master, flavor: Flavor, steps: list[str], codes: list[int]) -> None:
    master = new_master(SCHEMA, "STATEMENT", flavor)
    for sql in steps:
        assert master.submit("con1", sql).error is None, sql
    assert _codes(master.submit("con1", "ROLLBACK")) == codes
