"""LOCK TABLES and UNLOCK TABLES: what the locking session may do, who waits for it, when
the locks go, and what is refused (scenarios/oracle/lock-tables*.yaml hold the server's
answers these rows follow)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from master_sim.master import Master
from server_sim.binlog.events import Query_log_event
from server_sim.binlog.file import read_binlog
from server_sim.parser import parse_statement
from server_sim.table_lock_statements import TableLock, TableLockMode

SCHEMA = [
    "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(10)) ENGINE=InnoDB",
    "CREATE TABLE m (id INT PRIMARY KEY) ENGINE=MyISAM",
    "CREATE TABLE u (id INT PRIMARY KEY, s VARCHAR(10)) ENGINE=InnoDB",
    "INSERT INTO m VALUES (10)",
]
NOT_SUPPORTED = "This version of MySQL doesn't yet support '{}'"


@pytest.mark.parametrize(
    ("sql", "items"),
    [
        ("LOCK TABLES t READ", (TableLock(None, "t", TableLockMode.READ),)),
        ("lock table t write", (TableLock(None, "t", TableLockMode.WRITE),)),
        ("LOCK TABLES `t` WRITE, test.m READ", (TableLock(None, "t", TableLockMode.WRITE), TableLock("test", "m", TableLockMode.READ))),
    ],
)
def test_lock_tables_is_read_into_its_items(sql: str, items: tuple[TableLock, ...]) -> None:
    assert parse_statement(sql).table_locks == items


@pytest.mark.parametrize(
    ("sql", "code", "refused"),
    [
        ("LOCK TABLES t AS x READ", 1235, "LOCK TABLES with an alias (statements must then name the table by it)"),
        ("LOCK TABLES t READ LOCAL", 1235, "LOCK TABLES ... READ LOCAL (MyISAM's concurrent inserts and lock priorities)"),
        ("LOCK TABLES t LOW_PRIORITY WRITE", 1235, "LOCK TABLES ... LOW_PRIORITY WRITE (MyISAM's concurrent inserts and lock priorities)"),
        ("LOCK TABLES t READ, t WRITE", 1066, None),
        ("LOCK TABLES t", 1064, None),
        ("LOCK TABLES t READ u WRITE", 1064, None),
    ],
)
def test_lock_tables_forms_refused_or_wrong(new_master: Callable[..., Master], sql: str, code: int, refused: str | None) -> None:
    result = new_master(SCHEMA).submit("con1", sql)
    assert result.error is not None and result.error.code == code
    if refused is not None:
        assert result.error.message == NOT_SUPPORTED.format(refused)


@pytest.mark.parametrize(
    ("lock", "sql", "code"),
    [
        ("LOCK TABLES t WRITE, m READ", "INSERT INTO t VALUES (1, 'a')", None),
        ("LOCK TABLES t WRITE, m READ", "INSERT INTO t SELECT id, 'm' FROM m", None),
        ("LOCK TABLES t WRITE, m READ", "INSERT INTO m VALUES (1)", 1099),
        ("LOCK TABLES t WRITE, m READ", "INSERT INTO u VALUES (1, 'u')", 1100),
        ("LOCK TABLES t WRITE, m READ", "INSERT INTO t SELECT id, 'x' FROM u", 1100),
        ("LOCK TABLES t WRITE, m READ", "UPDATE t AS x SET s = 'z'", 1100),
        ("LOCK TABLES t WRITE, m READ", "SELECT * FROM t WHERE id IN (SELECT id FROM t)", 1100),
        ("LOCK TABLES t WRITE, m READ", "UPDATE t JOIN m ON t.id = m.id SET t.s = 'j'", None),
        ("LOCK TABLES t READ, m READ", "UPDATE t JOIN m ON t.id = m.id SET t.s = 'j'", 1099),
        ("LOCK TABLES t WRITE", "SELECT * FROM nowhere", 1100),
        ("LOCK TABLES t WRITE", "INSERT INTO t SELECT * FROM t", 1100),  # a second use needs a lock of its own
        ("LOCK TABLES t WRITE", "WITH c AS (SELECT id FROM t) SELECT * FROM c", None),
        ("LOCK TABLES t READ", "SELECT * FROM t FOR UPDATE", 1099),
        ("LOCK TABLES t READ", "SELECT * FROM t LOCK IN SHARE MODE", None),
        ("LOCK TABLES t READ", "SET @n = (SELECT COUNT(*) FROM u)", 1100),
        ("LOCK TABLES t READ", "SET @n = (SELECT COUNT(*) FROM t)", None),
        ("LOCK TABLES t WRITE", "CREATE TEMPORARY TABLE tmp (a INT)", None),
        ("LOCK TABLES nowhere READ", None, 1146),
    ],
)
def test_the_locking_session_uses_only_what_it_locked(new_master: Callable[..., Master], lock: str, sql: str | None, code: int | None) -> None:
    master = new_master(SCHEMA)
    locked = master.submit("con1", lock)
    result = locked if sql is None else master.submit("con1", sql)
    assert (result.error.code if result.error is not None else None) == code


@pytest.mark.parametrize(
    ("lock", "sql", "waits"),
    [
        ("LOCK TABLES t WRITE", "SELECT * FROM t", True),
        ("LOCK TABLES t WRITE", "INSERT INTO t VALUES (3, 'x')", True),
        ("LOCK TABLES m WRITE", "INSERT INTO m VALUES (3)", True),
        ("LOCK TABLES t READ", "SELECT * FROM t", False),
        ("LOCK TABLES t READ", "INSERT INTO u SELECT id, s FROM t", False),
        ("LOCK TABLES t READ", "UPDATE t SET s = 'w'", True),
        ("LOCK TABLES t READ", "LOCK TABLES t READ", False),
        ("LOCK TABLES t READ", "LOCK TABLES t WRITE", True),
        ("LOCK TABLES t READ", "DROP TABLE t", True),
        ("LOCK TABLES t WRITE", "INSERT INTO u VALUES (3, 'x')", False),
    ],
)
def test_other_sessions_wait_until_unlock_tables(new_master: Callable[..., Master], lock: str, sql: str, waits: bool) -> None:
    master = new_master(SCHEMA)
    master.submit("con1", lock, 1)
    other = master.submit("con2", sql, 2)
    assert (other.blocked_by == "con1") is waits
    master.submit("con1", "UNLOCK TABLES", 3)
    assert other.status == "ok" and other.error is None


@pytest.mark.parametrize(
    ("release", "released"),
    [
        ("UNLOCK TABLES", True),
        ("START TRANSACTION", True),
        ("LOCK TABLES u WRITE", True),
        ("COMMIT", False),
        ("ROLLBACK", False),
        ("INSERT INTO t VALUES (5, 'e')", False),
    ],
)
def test_what_releases_the_table_locks(new_master: Callable[..., Master], release: str, released: bool) -> None:
    master = new_master(SCHEMA)
    master.submit("con1", "LOCK TABLES t WRITE", 1)
    master.submit("con1", release, 2)
    assert (master.submit("con2", "SELECT * FROM t", 3).blocked_by is None) is released


def test_a_transaction_lock_tables_waits_for_and_unlock_tables_commits(new_master: Callable[..., Master]) -> None:
    master = new_master(SCHEMA, "STATEMENT")
    master.submit("con2", "BEGIN", 1)
    master.submit("con2", "UPDATE t SET s = 'o' WHERE id = 1", 2)
    assert master.submit("con1", "LOCK TABLES t READ", 3).blocked_by == "con2"
    master.submit("con2", "COMMIT", 4)
    master.submit("con1", "SET autocommit = 0", 5)
    start = master.writer.position
    master.submit("con1", "UNLOCK TABLES", 6)
    master.submit("con1", "LOCK TABLES t WRITE", 7)
    master.submit("con1", "INSERT INTO t VALUES (1, 'a')", 8)
    master.submit("con1", "INSERT INTO t VALUES (2, 'b')", 9)
    assert master.writer.position == start  # one open transaction, nothing logged yet
    master.submit("con1", "UNLOCK TABLES", 10)
    queries = [p.event.query for p in read_binlog(master.binlog_path) if p.position >= start and isinstance(p.event, Query_log_event)]
    assert queries == ["BEGIN", "INSERT INTO t VALUES (1, 'a')", "INSERT INTO t VALUES (2, 'b')"]


@pytest.mark.parametrize(
    ("used", "lock", "waits"),
    [
        ("SELECT COUNT(*) FROM t", "LOCK TABLES t WRITE", True),
        ("SELECT COUNT(*) FROM t", "LOCK TABLES t READ", False),
        ("INSERT INTO t VALUES (5, 'e')", "LOCK TABLES t READ", True),
        ("INSERT INTO m VALUES (5)", "LOCK TABLES m READ", False),  # recorded: MariaDB keeps it as read
        ("INSERT INTO m VALUES (5)", "LOCK TABLES m WRITE", True),
        ("SELECT COUNT(*) FROM m", "LOCK TABLES m WRITE", True),
        ("SELECT COUNT(*) FROM m", "LOCK TABLES m READ", False),
        ("INSERT INTO m VALUES (5)", "LOCK TABLES t WRITE", False),
    ],
)
def test_lock_tables_waits_for_the_tables_an_open_transaction_used(new_master: Callable[..., Master], used: str, lock: str, waits: bool) -> None:
    """Metadata locks last until the transaction ends, whatever the engine."""
    master = new_master(SCHEMA)
    master.submit("con2", "BEGIN", 1)
    master.submit("con2", used, 2)
    locking = master.submit("con1", lock, 3)
    assert (locking.blocked_by == "con2") is waits
    master.submit("con2", "COMMIT", 4)
    assert locking.status == "ok" and locking.error is None


@pytest.mark.parametrize(
    ("binlog_format", "lock", "refused"),
    [
        ("ROW", "LOCK TABLES t WRITE, m WRITE", True),
        ("ROW", "LOCK TABLES t WRITE, m READ", False),
        ("STATEMENT", "LOCK TABLES t WRITE, m WRITE", False),
    ],
)
def test_row_logging_with_two_write_locks_is_refused(new_master: Callable[..., Master], binlog_format: str, lock: str, refused: bool) -> None:
    master = new_master(SCHEMA, binlog_format)
    master.submit("con1", lock)
    result = master.submit("con1", "INSERT INTO t VALUES (1, 'a')")
    assert (result.error is not None and result.error.code == 1235) is refused
