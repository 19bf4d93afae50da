"""A disconnect step: the server ends the session (rollback, temporary tables, locks)."""

from __future__ import annotations

import pytest

from server_sim.binlog.control_events import FRAMING_EVENTS
from server_sim.binlog.events import Query_log_event, type_name_of
from server_sim.binlog.file import read_binlog
from server_sim.flavor import MARIADB_1011, MYSQL_80

SCHEMA = ["CREATE TABLE t (a INT PRIMARY KEY) ENGINE=InnoDB", "CREATE TABLE n (a INT PRIMARY KEY) ENGINE=MyISAM"]
TEMPORARY = [
    "CREATE TEMPORARY TABLE tmp1 (a INT) ENGINE=InnoDB",
    "CREATE TEMPORARY TABLE tmp2 (a INT) ENGINE=MyISAM",
    "CREATE TEMPORARY TABLE tmp3 (a INT) ENGINE=InnoDB",
]


def queries_after(master, position: int) -> list[str]:
    """Events from `position` on, Query events by their text, GTID events left out."""
    names = [
        p.event.query if isinstance(p.event, Query_log_event) else type_name_of(p.event)
        for p in read_binlog(master.binlog_path)
        if p.position >= position and not isinstance(p.event, FRAMING_EVENTS)
    ]
    return [name for name in names if "Gtid" not in name]


@pytest.mark.parametrize(
    ("flavor", "binlog_format", "drops"),
    [
        # MySQL: the transactional tables' DROP, then the others', each newest first.
        (MYSQL_80, "STATEMENT", ["DROP /*!40005 TEMPORARY */ TABLE IF EXISTS `tmp3`,`tmp1`", "DROP /*!40005 TEMPORARY */ TABLE IF EXISTS `tmp2`"]),
        (MYSQL_80, "MIXED", []),  # MySQL 8.0 logs temporary tables under STATEMENT only
        (MYSQL_80, "ROW", []),
        # MariaDB: one DROP for all, newest first (recorded: session-disconnect-temporary).
        (MARIADB_1011, "STATEMENT", ["DROP /*!40005 TEMPORARY */ TABLE IF EXISTS `tmp3`,`tmp2`,`tmp1`"]),
        (MARIADB_1011, "MIXED", ["DROP /*!40005 TEMPORARY */ TABLE IF EXISTS `tmp3`,`tmp2`,`tmp1`"]),
        (MARIADB_1011, "ROW", []),
    ],
)
def test_a_disconnect_drops_the_temporary_tables_and_logs_the_logged_ones(new_master, flavor, binlog_format, drops) -> None:
    master = new_master(SCHEMA, binlog_format, flavor)
    for sql in TEMPORARY:
        assert master.submit("con1", sql).error is None
    position = master.writer.position
    assert master.disconnect("con1").error is None
    assert queries_after(master, position) == drops
    assert not master.server.catalog.temporary
    # The name connects again as a fresh session: the table of that name is free again.
    assert master.submit("con1", TEMPORARY[0]).error is None


@pytest.mark.parametrize(
    ("statements", "logged"),
    [
        # a non-transactional change cannot be undone: the cache is logged with ROLLBACK
        (["BEGIN", "INSERT INTO t VALUES (1)", "INSERT INTO n VALUES (1)"], ["BEGIN", "INSERT INTO t VALUES (1)", "INSERT INTO n VALUES (1)", "ROLLBACK"]),
        (["BEGIN", "INSERT INTO t VALUES (1)"], []),
    ],
)
def test_a_disconnect_rolls_the_open_transaction_back(new_master, statements, logged) -> None:
    master = new_master(SCHEMA, "STATEMENT")
    position = master.writer.position
    for sql in statements:
        master.submit("con1", sql)
    master.disconnect("con1")
    assert queries_after(master, position) == logged
    assert master.server.dump()["t"][1] == []
    master.submit("con1", "INSERT INTO t VALUES (2)")  # a fresh session, in autocommit
    assert master.server.dump()["t"][1] == [(2,)]


def test_a_disconnect_releases_the_user_locks(new_master) -> None:
    master = new_master(SCHEMA, "ROW")
    master.submit("con1", "SELECT GET_LOCK('a', 0)")
    master.submit("con2", "INSERT INTO t VALUES (GET_LOCK('a', 0))")  # held by con1: 0 at once
    holder = master.server.user_locks.holder("a")
    master.disconnect("con1")
    master.submit("con2", "INSERT INTO t VALUES (10 + GET_LOCK('a', 0))")
    assert holder is not None and master.server.user_locks.holder("a") not in (None, holder)
    assert master.server.dump()["t"][1] == [(0,), (11,)]


def test_a_disconnect_of_a_session_whose_statement_waits_is_refused(new_master) -> None:
    master = new_master(SCHEMA, "ROW")
    master.submit("con1", "BEGIN")
    master.submit("con1", "INSERT INTO t VALUES (1)")
    assert master.submit("con2", "INSERT INTO t VALUES (1)").blocked_by == "con1"
    assert master.disconnect("con2").error.code == 1235
