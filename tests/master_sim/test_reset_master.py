"""RESET MASTER on a master with no replica: an implicit commit, then a new binlog file
whose groups are numbered from 1 again; refused while a replica is connected (the servers
leave undefined what it reads next). The other RESET statements are refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from master_sim.master import Master
from server_sim.binlog.file import BinlogReader
from server_sim.errors import SqlError
from server_sim.flavor import FLAVORS, MARIADB_1011, MYSQL_80
from server_sim.parser import parse_statement
from server_sim.statement import StatementKind


@pytest.mark.parametrize(
    ("sql", "code", "names"),
    [
        ("RESET MASTER", None, None),
        ("reset  master ;", None, None),
        ("RESET MASTER TO 5", 1235, "RESET MASTER TO n"),
        ("RESET SLAVE", 1235, "RESET SLAVE"),
        ("RESET REPLICA ALL", 1235, "RESET REPLICA"),
        ("RESET QUERY CACHE", 1235, "RESET QUERY CACHE"),
        ("RESET PERSIST", 1235, "RESET PERSIST"),
        ("RESET TABLES", 1064, "near 'TABLES'"),
        ("RESET", 1064, "near ''"),
    ],
)
def test_reset_statements(sql: str, code: int | None, names: str | None) -> None:
    if code is None:
        assert parse_statement(sql).kind is StatementKind.RESET_MASTER
        return
    with pytest.raises(SqlError) as raised:
        parse_statement(sql)
    assert raised.value.code == code and names in raised.value.message


def _master(tmp_path: Path, flavor_name: str, replica_connected: bool = False) -> Master:
    master = Master(FLAVORS[flavor_name], {"binlog_format": "STATEMENT"}, tmp_path / "run.binlog", 1, replica_connected=replica_connected)
    assert master.submit("setup", "CREATE TABLE t (a INT PRIMARY KEY) ENGINE=InnoDB").error is None
    return master


def _events(path: Path) -> list[tuple[str, str]]:
    return [(positioned.event.type_name, positioned.event.info()) for positioned in BinlogReader(path).events()]


@pytest.mark.parametrize("flavor_name", [MYSQL_80.name, MARIADB_1011.name])
def test_reset_master_commits_then_starts_a_new_file(tmp_path: Path, flavor_name: str) -> None:
    master = _master(tmp_path, flavor_name)
    for sql in ("BEGIN", "INSERT INTO t VALUES (1)"):
        assert master.submit("con1", sql).error is None
    reset = master.submit("con1", "RESET MASTER")
    assert reset.error is None and reset.reset_binlog and reset.logged_as == "none"
    assert master.submit("con1", "INSERT INTO t VALUES (2)").error is None
    master.finish()
    [before] = master.reset_binlogs
    old, new = _events(before), _events(master.binlog_path)
    assert ("Query", "INSERT INTO t VALUES (1)") in old and ("Query", "INSERT INTO t VALUES (2)") not in old
    assert ("Query", "INSERT INTO t VALUES (2)") in new and ("Query", "INSERT INTO t VALUES (1)") not in new
    assert new[0][0] == "Format_desc"
    if flavor_name == MARIADB_1011.name:  # the GTIDs start again: the binlog state was reset
        assert [info for kind, info in new if kind == "Gtid"] == ["BEGIN GTID 0-1-1"]
    assert master.submit("con2", "SELECT a FROM t ORDER BY a").error is None  # the data stays


def test_reset_master_with_a_replica_connected_is_refused(tmp_path: Path) -> None:
    master = _master(tmp_path, MYSQL_80.name, replica_connected=True)
    refused = master.submit("con1", "RESET MASTER")
    assert refused.error is not None and refused.error.code == 1235
    assert "a replica connected" in refused.error.message and not master.reset_binlogs


def test_reset_master_under_lock_tables_is_refused(tmp_path: Path) -> None:
    master = _master(tmp_path, MYSQL_80.name)
    assert master.submit("con1", "LOCK TABLES t WRITE").error is None
    refused = master.submit("con1", "RESET MASTER")
    assert refused.error is not None and refused.error.code == 1235 and "LOCK TABLES" in refused.error.message


def test_reset_master_inside_a_procedure_is_refused(tmp_path: Path) -> None:
    master = _master(tmp_path, MYSQL_80.name)
    assert master.submit("con1", "CREATE PROCEDURE p() BEGIN RESET MASTER; END").error is None
    called = master.submit("con1", "CALL p()")
    assert called.error is not None and called.error.code == 1235 and "RESET MASTER inside a stored procedure" in called.error.message
