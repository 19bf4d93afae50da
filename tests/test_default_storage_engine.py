"""default_storage_engine and default_tmp_storage_engine: the engine a table created
without ENGINE gets. The Query event does not carry them, so a replica creates the table
with its own default (the oracle scenario default-storage-engine records the master)."""

from __future__ import annotations

from pathlib import Path

import pytest

from master_sim.master import Master
from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor
from slave_sim.slave import Slave

@pytest.mark.parametrize("slave_default", ["InnoDB", "MEMORY"])
def test_a_replica_creates_a_table_without_engine_with_its_own_default(tmp_path: Path, slave_default: str) -> None:
    master = Master(MYSQL_80, {"default_storage_engine": "MyISAM", "binlog_format": "STATEMENT"}, tmp_path / "run.binlog", 1)
    for sql in ("CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)"):
        assert master.submit("con1", sql).error is None
    master.finish()
    slave = Slave(MYSQL_80, {"default_storage_engine": slave_default}, 1)
    assert slave.apply(master.binlog_path).error is None
    assert master.server.catalog.tables["t"].engine.name == "MyISAM"
    assert slave.server.catalog.tables["t"].engine.name == slave_default


@pytest.mark.parametrize(
    ("flavor", "statements", "engines"),
    [
        (MYSQL_80, ["CREATE TEMPORARY TABLE tt (a INT)"], {"tt": "InnoDB"}),  # default_tmp_storage_engine is InnoDB
        (MARIADB_1011, ["CREATE TEMPORARY TABLE tt (a INT)"], {"tt": "MyISAM"}),  # NULL: default_storage_engine's
        (MYSQL_80, ["SET default_tmp_storage_engine = memory", "CREATE TEMPORARY TABLE tt (a INT)"], {"tt": "MEMORY"}),
        (MYSQL_80, ["SET default_storage_engine = InnoDB", "CREATE TABLE u (a INT)", "CREATE TABLE v (a INT) ENGINE=MEMORY"], {"u": "InnoDB", "v": "MEMORY"}),
    ],
)
def test_the_session_default_engines(tmp_path: Path, flavor: Flavor, statements: list[str], engines: dict[str, str]) -> None:
    master = Master(flavor, {"default_storage_engine": "MyISAM"}, tmp_path / "run.binlog", 1)
    for sql in statements:
        assert master.submit("con1", sql).error is None, sql
    catalog = master.server.catalog
    found = {table.name: table.engine.name for table in [*catalog.tables.values(), *catalog.temporary.values()]}
    assert found == engines


@pytest.mark.parametrize(
    ("flavor", "sql", "code"),
    [
        (MYSQL_80, "SET default_storage_engine = 'NoSuchEngine'", 1286),
        (MYSQL_80, "SET default_tmp_storage_engine = NULL", 1231),
        (MARIADB_1011, "SET default_tmp_storage_engine = NULL", None),
    ],
)
def test_setting_a_default_engine(tmp_path: Path, flavor: Flavor, sql: str, code: int | None) -> None:
    master = Master(flavor, {}, tmp_path / "run.binlog", 1)
    result = master.submit("con1", sql)
    assert (result.error.code if result.error else None) == code
