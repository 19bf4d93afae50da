"""Unsafe-statement detection on the master: the reason, Note 1592, and the format it leads to."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from master_sim.master import Master
from master_sim.results import StepResult
from server_sim.flavor import MARIADB_1011, MYSQL_80

SCHEMA = [
    "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(64), n BIGINT UNSIGNED, d DATETIME, x DOUBLE) ENGINE=InnoDB",
    "CREATE TABLE m (id INT PRIMARY KEY, v INT) ENGINE=MyISAM",
    "INSERT INTO t VALUES (1, 'a', 1, NOW(), 0), (2, 'b', 2, NOW(), 0)",
]


@pytest.fixture
def master_factory(new_master) -> Callable[..., Master]:
    return lambda binlog_format, flavor=MYSQL_80: new_master(SCHEMA, binlog_format, flavor)


UNSAFE_STATEMENTS = [
    ("LIMIT on UPDATE", "UPDATE t SET v = 'z' LIMIT 1", "LIMIT"),
    ("LIMIT on DELETE", "DELETE FROM t LIMIT 1", "LIMIT"),
    ("ORDER BY primary key does not make LIMIT safe", "UPDATE t SET v = 'z' ORDER BY id LIMIT 1", "LIMIT"),
    ("UUID()", "INSERT INTO t (id, v) VALUES (3, UUID())", "SYSTEM_FUNCTION"),
    ("UUID_SHORT()", "INSERT INTO t (id, n) VALUES (3, UUID_SHORT())", "SYSTEM_FUNCTION"),
    ("SYSDATE()", "INSERT INTO t (id, d) VALUES (3, SYSDATE())", "SYSTEM_FUNCTION"),
    ("USER()", "INSERT INTO t (id, v) VALUES (3, USER())", "SYSTEM_FUNCTION"),
    ("CURRENT_USER()", "INSERT INTO t (id, v) VALUES (3, CURRENT_USER())", "SYSTEM_FUNCTION"),
    ("FOUND_ROWS()", "INSERT INTO t (id, n) VALUES (3, FOUND_ROWS())", "SYSTEM_FUNCTION"),
    ("ROW_COUNT()", "INSERT INTO t (id, x) VALUES (3, ROW_COUNT())", "SYSTEM_FUNCTION"),
    ("RAND()", "UPDATE t SET x = RAND()", "SYSTEM_FUNCTION"),
    ("GET_LOCK()", "INSERT INTO t (id, n) VALUES (3, GET_LOCK('a', 0))", "SYSTEM_FUNCTION"),
    ("IS_FREE_LOCK()", "INSERT INTO t (id, n) VALUES (3, IS_FREE_LOCK('a'))", "SYSTEM_FUNCTION"),
    ("RELEASE_LOCK()", "UPDATE t SET n = RELEASE_LOCK('a') WHERE id = 1", "SYSTEM_FUNCTION"),
    ("RANDOM_BYTES()", "INSERT INTO t (id, v) VALUES (3, HEX(RANDOM_BYTES(4)) IS NOT NULL)", "SYSTEM_FUNCTION"),
    ("SLEEP()", "INSERT INTO t (id, n) VALUES (3, SLEEP(0))", "SYSTEM_FUNCTION"),
    ("MASTER_POS_WAIT()", "INSERT INTO t (id, n) VALUES (3, MASTER_POS_WAIT('f', 4))", "SYSTEM_FUNCTION"),
    ("@@server_id", "INSERT INTO t (id, n) VALUES (3, @@server_id)", "SYSTEM_VARIABLE"),
    ("@@global.time_zone", "INSERT INTO t (id, v) VALUES (3, @@global.time_zone)", "SYSTEM_VARIABLE"),
    ("SKIP LOCKED", "INSERT INTO t SELECT id + 10, v, n, d, x FROM t FOR UPDATE SKIP LOCKED", "SKIP_LOCKED"),
    ("NOWAIT", "INSERT INTO t SELECT id + 10, v, n, d, x FROM t FOR SHARE NOWAIT", "NOWAIT"),
    ("UPDATE IGNORE", "UPDATE IGNORE t SET id = id + 1", "UPDATE_IGNORE"),
    ("CREATE ... IGNORE SELECT", "CREATE TABLE c (id INT PRIMARY KEY) IGNORE SELECT id, v FROM t", "CREATE_IGNORE_SELECT"),
    ("CREATE ... REPLACE SELECT", "CREATE TABLE c (id INT PRIMARY KEY) REPLACE AS SELECT id FROM t", "CREATE_REPLACE_SELECT"),
    ("CREATE ... SELECT into an AUTO_INCREMENT table", "CREATE TABLE c (k INT AUTO_INCREMENT PRIMARY KEY) SELECT v FROM t", "CREATE_SELECT_AUTOINC"),
    ("LIMIT in CREATE ... SELECT", "CREATE TABLE c SELECT id FROM t ORDER BY id LIMIT 1", "LIMIT"),
]


@pytest.mark.parametrize(("case", "sql", "reason"), UNSAFE_STATEMENTS, ids=[c[0] for c in UNSAFE_STATEMENTS])
@pytest.mark.parametrize("binlog_format", ["STATEMENT", "MIXED", "ROW"])
def test_unsafe_statement_is_flagged_and_logged_per_format(master_factory, binlog_format: str, case: str, sql: str, reason: str) -> None:
    result: StepResult = master_factory(binlog_format).submit("con1", sql, 1)
    assert result.error is None
    assert reason in result.unsafe
    notes = [note for note in result.notes if note.code == 1592]
    if binlog_format == "STATEMENT":
        assert result.logged_as == "STATEMENT"
        assert len(notes) == len(result.unsafe)  # one Note 1592 per reason
        assert "Unsafe statement written to the binary log using statement format" in notes[0].message
    else:
        assert result.logged_as == "ROW"
        assert notes == []


SAFE_STATEMENTS = [
    ("NOW()", "INSERT INTO t (id, d) VALUES (3, NOW())"),
    ("CURRENT_TIMESTAMP", "INSERT INTO t (id, d) VALUES (3, CURRENT_TIMESTAMP)"),
    ("CONNECTION_ID()", "INSERT INTO t (id, n) VALUES (3, CONNECTION_ID())"),
    ("LAST_INSERT_ID()", "INSERT INTO t (id, n) VALUES (3, LAST_INSERT_ID())"),
    ("LAST_INSERT_ID(expr)", "UPDATE t SET n = LAST_INSERT_ID(n + 1) WHERE id = 1"),
    ("CRC32() is a built-in function, no UDF", "INSERT INTO t (id, n) VALUES (3, CRC32('a'))"),
    ("JSON_LENGTH() is a built-in function, no UDF", "INSERT INTO t (id, n) VALUES (3, JSON_LENGTH('[1, 2]'))"),
    ("string, date and bit functions", "INSERT INTO t (id, v, d, n) VALUES (3, SUBSTRING_INDEX(MD5('a'), 'c', 1), DATE_ADD('2024-01-31', INTERVAL 1 MONTH), ~0 >> 1)"),
    ("VALUES() in ON DUPLICATE KEY UPDATE is no UDF", "INSERT INTO t (id, v) VALUES (1, 'q') ON DUPLICATE KEY UPDATE v = VALUES(v)"),
    ("@@session.time_zone", "INSERT INTO t (id, v) VALUES (3, @@session.time_zone)"),
    ("UPDATE without LIMIT", "UPDATE t SET v = 'z' WHERE id = 1"),
    ("plain CREATE ... SELECT", "CREATE TABLE c (id INT PRIMARY KEY) SELECT id, v FROM t"),
]


@pytest.mark.parametrize(("case", "sql"), SAFE_STATEMENTS, ids=[c[0] for c in SAFE_STATEMENTS])
def test_safe_statement_stays_statement_in_mixed(master_factory, case: str, sql: str) -> None:
    result = master_factory("MIXED").submit("con1", sql, 1)
    assert result.error is None and result.unsafe == [] and result.logged_as == "STATEMENT"


@pytest.mark.parametrize("binlog_format", ["STATEMENT", "MIXED", "ROW"])
def test_a_user_level_lock_function_is_a_system_function_not_a_udf(master_factory, binlog_format: str) -> None:
    result = master_factory(binlog_format).submit("con1", "INSERT INTO t (id, n) VALUES (3, GET_LOCK('a', 0))", 1)
    assert result.error is None and result.unsafe == ["SYSTEM_FUNCTION"]


@pytest.mark.parametrize("binlog_format", ["STATEMENT", "MIXED", "ROW"])
def test_an_unknown_function_is_a_udf_and_fails_without_being_logged_when_not_loaded(master_factory, binlog_format: str) -> None:
    result = master_factory(binlog_format).submit("con1", "UPDATE t SET x = myudf(id)", 1)
    assert result.unsafe == ["UDF"]
    assert result.error.code == 1305 and result.logged_as == "none" and result.notes == []


def test_select_with_unsafe_function_is_not_logged_and_gets_no_note(master_factory) -> None:
    result = master_factory("STATEMENT").submit("con1", "SELECT UUID()", 1)
    assert result.logged_as == "none" and result.notes == []


def test_nontransactional_write_after_transactional_change_is_unsafe(master_factory) -> None:
    master = master_factory("STATEMENT")
    master.submit("con1", "BEGIN", 1)
    assert master.submit("con1", "INSERT INTO m VALUES (1, 1)", 2).unsafe == []  # N before any T: safe
    master.submit("con1", "INSERT INTO t (id) VALUES (10)", 3)
    result = master.submit("con1", "INSERT INTO m VALUES (2, 2)", 4)
    assert result.unsafe == ["NONTRANS_AFTER_TRANS"]
    assert [note.code for note in result.notes] == [1592]


def test_binlog_direct_non_transactional_updates_removes_nontrans_after_trans(master_factory) -> None:
    master = master_factory("STATEMENT")
    master.submit("con1", "SET SESSION binlog_direct_non_transactional_updates = ON", 1)
    master.submit("con1", "BEGIN", 2)
    master.submit("con1", "INSERT INTO t (id) VALUES (10)", 3)
    assert master.submit("con1", "INSERT INTO m VALUES (2, 2)", 4).unsafe == []


def test_mixed_statement_writing_both_engines_in_a_transaction(master_factory) -> None:
    master = master_factory("MIXED")
    master.submit("con1", "BEGIN", 1)
    result = master.submit("con1", "INSERT INTO m SELECT id, 1 FROM t", 2)
    assert result.logged_as == "STATEMENT"  # trx cache empty: case 9 needs a non-empty cache
    master.submit("con1", "INSERT INTO t (id) VALUES (10)", 3)
    result = master.submit("con1", "INSERT INTO m SELECT id + 10, 1 FROM t", 4)
    assert "MIXED_STATEMENT" in result.unsafe and result.logged_as == "ROW"


def test_mariadb_does_not_flag_rand_in_insert_values(master_factory) -> None:
    assert master_factory("STATEMENT", MARIADB_1011).submit("con1", "INSERT INTO t (id, x) VALUES (3, RAND())", 1).unsafe == []
    assert master_factory("STATEMENT", MYSQL_80).submit("con1", "INSERT INTO t (id, x) VALUES (3, RAND())", 1).unsafe == ["SYSTEM_FUNCTION"]


def test_binlog_format_cannot_change_inside_a_transaction(master_factory) -> None:
    master = master_factory("MIXED")
    master.submit("con1", "BEGIN", 1)
    master.submit("con1", "INSERT INTO t (id) VALUES (10)", 2)
    assert master.submit("con1", "SET SESSION binlog_format = 'ROW'", 3).error.code == 1679
