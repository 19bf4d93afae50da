"""Statements real masters log that change accounts, privileges or the server's caches
(CREATE USER, GRANT, FLUSH, ...): a real replica runs them and goes on; this one, which
models no accounts, notes each as a no-op and goes on too. A statement it does not model
that does change tables still stops it."""

from __future__ import annotations

import pytest

from server_sim.binlog.events import Query_log_event
from server_sim.binlog.file import PositionedEvent
from server_sim.execute.executor import Executor
from server_sim.flavor import MARIADB_1011
from server_sim.server import Server, ServerIdentity
from slave_sim.events import EventApplier
from slave_sim.status import SlaveStatus, SlaveStop


@pytest.fixture
def applier():
    server = Server(MARIADB_1011, ServerIdentity(2, "slave", 1))
    yield EventApplier(MARIADB_1011, server, Executor(server), SlaveStatus())
    server.close()


def _query(applier: EventApplier, sql: str, position: int = 4) -> None:
    applier.apply(PositionedEvent(position, position + 1, Query_log_event(timestamp=1700000000, db="test", query=sql)))


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("CREATE USER 'app'@'%' IDENTIFIED BY 'secret'", "CREATE USER"),
        ("create role reader", "CREATE ROLE"),
        ("DROP USER IF EXISTS 'app'@'%'", "DROP USER"),
        ("ALTER USER 'app'@'%' ACCOUNT LOCK", "ALTER USER"),
        ("RENAME USER 'a'@'%' TO 'b'@'%'", "RENAME USER"),
        ("GRANT SELECT, INSERT ON test.* TO 'app'@'%'", "GRANT SELECT,"),
        ("REVOKE INSERT ON test.* FROM 'app'@'%'", "REVOKE INSERT"),
        ("SET PASSWORD FOR 'app'@'%' = PASSWORD('x')", "SET PASSWORD"),
        ("FLUSH PRIVILEGES", "FLUSH PRIVILEGES"),
        ("/* generated */ FLUSH TABLES", "/* GENERATED"),
    ],
)
def test_an_account_statement_is_noted_and_the_replica_goes_on(applier: EventApplier, sql: str, named: str) -> None:
    _query(applier, "CREATE TABLE t (a INT PRIMARY KEY)", 4)
    _query(applier, sql, 40)
    _query(applier, "INSERT INTO t VALUES (1)", 80)
    assert applier.server.dump()["t"][1] == [(1,)]
    assert applier.status.warnings == [f"{named} at position 40 applied as a no-op (accounts, privileges and caches are not modelled)"]


def test_a_statement_on_tables_the_simulator_does_not_model_still_stops_it(applier: EventApplier) -> None:
    with pytest.raises(SlaveStop) as stop:
        _query(applier, "CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO DELETE FROM t")
    assert stop.value.error.code == 1235
