"""Binlogs a real MariaDB 10.11 server writes, made fresh by a private mariadbd with
--log-bin: every event reads, checksums verify (CRC32 and NONE), and each event written
back gives the same bytes; the row values read are the rows the server stored."""

from __future__ import annotations

import datetime as dt
import shutil
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

from harness.cli import main
from harness.oracle.mariadb import MariaDBServer
from harness.snapshot import canonical
from server_sim.binlog.binary.codec import MARIADB, FormatContext
from server_sim.binlog.binary.format_description import context_of
from server_sim.binlog.binary.registry import encode_event
from server_sim.binlog.control_events import Binlog_checkpoint_log_event, Gtid_list_log_event, Gtid_log_event, Rotate_log_event
from server_sim.binlog.events import (
    Annotate_rows_log_event,
    Delete_rows_log_event,
    Format_description_log_event,
    Intvar_log_event,
    Query_log_event,
    Rand_log_event,
    Table_map_log_event,
    Update_rows_log_event,
    User_var_log_event,
    Write_rows_log_event,
    Xid_log_event,
)
from server_sim.binlog.file import BinlogReader, read_binlog
from server_sim.flavor import MARIADB_1011
from slave_sim.slave import Slave

pytestmark = pytest.mark.skipif(shutil.which("mariadbd") is None, reason="mariadbd is not installed")

TABLE = (
    "CREATE TABLE t (id INT PRIMARY KEY, ti TINYINT UNSIGNED, si SMALLINT, mi MEDIUMINT, bi BIGINT UNSIGNED, "
    "d DECIMAL(10,2), d2 DECIMAL(30,9), f FLOAT, db DOUBLE, c CHAR(10), vc VARCHAR(300), tx TEXT, bl BLOB, "
    "bn BINARY(4), vb VARBINARY(8), dt DATE, dtm DATETIME, ts TIMESTAMP NULL) ENGINE=InnoDB"
)
ROW = (
    "(1, 200, -32768, -5, 18446744073709551615, -12.34, 123456789012345678901.123456789, 1.5, 0.1, 'ab', "
    "'héllo', 'a text', x'00ff', x'0102', x'03', '2024-02-29', '2024-12-31 23:59:58', '2038-01-19 03:14:07')"
)
STATEMENTS = [
    "CREATE DATABASE test",
    "USE test",
    TABLE,
    f"INSERT INTO t VALUES {ROW}, (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    "UPDATE t SET vc = REPEAT('y', 299), d = 99.99 WHERE id = 1",
    "DELETE FROM t WHERE id = 2",
    "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB",
    "CREATE TABLE m (id INT PRIMARY KEY, v DOUBLE) ENGINE=MyISAM",
    "SET SESSION binlog_format = STATEMENT",
    "SET @v = 5, @s = 'text', @r = 0.25e0, @dec = -12.345",
    "INSERT INTO a (v) VALUES (@v)",
    "INSERT INTO a (v) VALUES (LAST_INSERT_ID())",
    "INSERT INTO m VALUES (1, RAND())",
    "INSERT INTO t (id, vc, d) VALUES (3, @s, @dec)",
    "SET SESSION time_zone = '+01:00'",
    "INSERT INTO t (id, dtm) VALUES (4, NOW())",
    "SET SESSION auto_increment_increment = 3",
    "INSERT INTO a (v) VALUES (@r)",
    "FLUSH BINARY LOGS",
    "SET GLOBAL binlog_checksum = NONE",
    "SET SESSION binlog_format = ROW",
    "INSERT INTO t (id, si) VALUES (5, 7)",
    "FLUSH BINARY LOGS",
]


# The server's database `test` is created under character_set_server=utf8mb4, so its tables
# are utf8mb4: the simulated replica's database is made so too (the flavor's is latin1).
UTF8MB4_DATABASE = {"character_set_server": "utf8mb4", "collation_server": "utf8mb4_general_ci", "character_set_database": "utf8mb4", "collation_database": "utf8mb4_general_ci"}


@dataclass
class RealServerRun:
    binlogs: list[Path]
    tables: dict[str, list[tuple]]  # what the server holds at the end, canonical values


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> RealServerRun:
    out = tmp_path_factory.mktemp("real-mariadb")
    options = ("--log-bin=master-bin", "--binlog-format=ROW", "--default-time-zone=+00:00", "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci")
    server = MariaDBServer("binlogs", 7, options)
    try:
        server.start()
        connection = server.connect()
        tables = {}
        with connection.cursor() as cursor:
            for sql in STATEMENTS:
                cursor.execute(sql)
            cursor.execute("SET SESSION time_zone = '+00:00'")  # TIMESTAMP values as stored (UTC)
            for table in ("a", "m", "t"):
                cursor.execute(f"SELECT * FROM test.{table} ORDER BY 1")
                tables[table] = [tuple(canonical(value) for value in row) for row in cursor.fetchall()]
        connection.close()
        files = sorted(server.datadir.glob("master-bin.0*"))
        for path in [*files, server.datadir / "master-bin.index"]:
            shutil.copy(path, out / path.name)
    finally:
        server.stop()
    return RealServerRun(sorted(out.glob("master-bin.0*")), tables)


@pytest.fixture(scope="module")
def real_binlogs(real_run: RealServerRun) -> list[Path]:
    return real_run.binlogs


def _events(path: Path) -> list:
    return list(BinlogReader(path).events())


def test_every_event_reads_and_writes_back_byte_for_byte(real_binlogs: list[Path]) -> None:
    closed = real_binlogs[:-1]  # the last is still open when the copy is taken
    assert len(closed) == 3
    seen: set[type] = set()
    for path in closed:
        data = path.read_bytes()
        ctx = FormatContext(MARIADB)
        for positioned in _events(path):
            event = positioned.event
            if isinstance(event, Format_description_log_event):
                ctx = context_of(event)
            seen.add(type(event))
            assert encode_event(event, ctx, positioned.position) == data[positioned.position : positioned.end_log_pos], (path.name, positioned.position)
    assert {
        Format_description_log_event, Gtid_list_log_event, Binlog_checkpoint_log_event, Gtid_log_event, Query_log_event,
        Annotate_rows_log_event, Table_map_log_event, Write_rows_log_event, Update_rows_log_event, Delete_rows_log_event,
        Xid_log_event, Intvar_log_event, Rand_log_event, User_var_log_event, Rotate_log_event,
    } <= seen


def test_checksum_none_file_has_no_crc_but_its_format_description(real_binlogs: list[Path]) -> None:
    events = _events(real_binlogs[2])  # opened by SET GLOBAL binlog_checksum = NONE
    description = events[0].event
    assert isinstance(description, Format_description_log_event) and description.checksum_alg == 0
    assert any(isinstance(p.event, Write_rows_log_event) for p in events)


def test_row_values_read_are_the_values_the_server_stored(real_binlogs: list[Path]) -> None:
    events = [p.event for p in _events(real_binlogs[0])]
    write = next(e for e in events if isinstance(e, Write_rows_log_event))
    first = write.rows[0].after
    # MariaDB writes no signedness and no charset by default: integers read signed, strings as bytes.
    assert first == [
        1, -56, -32768, -5, -1, Decimal("-12.34"), Decimal("123456789012345678901.123456789"), 1.5, 0.1, b"ab",
        "héllo".encode(), b"a text", b"\x00\xff", b"\x01\x02", b"\x03", dt.date(2024, 2, 29), dt.datetime(2024, 12, 31, 23, 59, 58),
        dt.datetime(2038, 1, 19, 3, 14, 7),
    ]
    assert write.rows[1].after == [2] + [None] * 17
    update = next(e for e in events if isinstance(e, Update_rows_log_event))
    assert update.rows[0].after[10] == b"y" * 299 and update.rows[0].after[5] == Decimal("99.99")


def test_the_slave_applying_the_real_binlog_ends_with_the_servers_tables(real_run: RealServerRun) -> None:
    """The first file from the group after CREATE DATABASE (the simulated servers have one
    database, `test`): row events of every catalog type, statements with their Intvar,
    Rand and User_var context, time_zone and auto_increment settings, a MyISAM statement
    closed by COMMIT."""
    first = real_run.binlogs[0]
    start = [p.position for p in read_binlog(first) if isinstance(p.event, Gtid_log_event)][1]
    slave = Slave(MARIADB_1011, UTF8MB4_DATABASE, seed=1)
    try:
        status = slave.apply(first, start=start)
        assert status.running and status.error is None, status.error
        tables = {name: sorted(tuple(canonical(value) for value in row) for row in rows) for name, (_, rows) in slave.server.dump().items()}
    finally:
        slave.close()
    # Row 5 is in a later file; row 4 holds NOW() under time_zone +01:00, which the
    # simulated servers do not model (their NOW() is UTC whatever time_zone says).
    expected = {**real_run.tables, "t": [row for row in real_run.tables["t"] if row[0] not in (4, 5)]}
    tables["t"] = [row for row in tables["t"] if row[0] != 4]
    assert tables == expected


MULTI_ENGINE = (
    "CREATE TABLE i (a INT PRIMARY KEY) ENGINE=InnoDB",
    "CREATE TABLE b (a INT PRIMARY KEY) ENGINE=BLACKHOLE",
    "CREATE TRIGGER i_to_b AFTER INSERT ON i FOR EACH ROW INSERT INTO b VALUES (NEW.a)",
    "INSERT INTO i VALUES (1), (2)",
    "INSERT INTO b VALUES (3)",
)


@pytest.mark.parametrize("binlog_format", ["ROW", "STATEMENT"])
def test_gtid_and_table_map_flags_read_and_write_back(mariadb_binlogs, binlog_format: str) -> None:
    """A transaction on a BLACKHOLE table has MariaDB 10.11 put flags_extra and the extra
    engines' count in the 6 bytes a GTID body is padded with; a Table_map of a table with
    triggers carries TM_BIT_HAS_TRIGGERS_F. Both are read and written back as they were."""
    path = mariadb_binlogs.binlog(MULTI_ENGINE, binlog_format=binlog_format)
    data = path.read_bytes()
    ctx = FormatContext(MARIADB)
    gtids = []
    for positioned in _events(path):
        if isinstance(positioned.event, Format_description_log_event):
            ctx = context_of(positioned.event)
        if isinstance(positioned.event, Gtid_log_event):
            gtids.append(positioned.event)
        assert encode_event(positioned.event, ctx, positioned.position) == data[positioned.position : positioned.end_log_pos]
    assert [bool(gtid.extra) for gtid in gtids] == [False, False, False, False, True]
    table_maps = [p.event for p in _events(path) if isinstance(p.event, Table_map_log_event)]
    assert [(t.table, t.map_flags) for t in table_maps] == ([("i", 0x4001), ("b", 0x0001), ("b", 0x0001)] if binlog_format == "ROW" else [])


@pytest.mark.parametrize("split", [False, True], ids=["one-run", "resumed-after-the-first-file"])
def test_replay_follows_each_rotate_to_the_next_file_of_the_index(real_run: RealServerRun, tmp_path: Path, split: bool) -> None:
    """`rplharness replay master-bin.index` applies the files in turn, as a replica moves
    on at a Rotate: row 5, written after two FLUSH BINARY LOGS and a change of
    binlog_checksum, arrives too; a slave that applied the first file alone (its Rotate
    included) goes on in the second when given the index."""
    first = real_run.binlogs[0]
    start = [p.position for p in read_binlog(first) if isinstance(p.event, Gtid_log_event)][1]
    database, index = tmp_path / "slave.duckdb", first.parent / "master-bin.index"
    common = ["--db", str(database), "--flavor", "mariadb-10.11", *(f"--set={name}={value}" for name, value in UTF8MB4_DATABASE.items())]
    if split:
        assert main(["replay", str(first), *common, "--start-position", str(start)]) == 0
    assert main(["replay", str(index), *common, "--start-position", str(start)]) == 0
    slave = Slave(MARIADB_1011, {}, seed=0, database=database)
    try:
        tables = {name: sorted(tuple(canonical(value) for value in row) for row in rows) for name, (_, rows) in slave.server.dump().items()}
        assert slave.master_log_name == real_run.binlogs[-1].name
    finally:
        slave.close()
    expected = {**real_run.tables, "t": [row for row in real_run.tables["t"] if row[0] != 4]}  # NOW() under +01:00: see above
    tables["t"] = [row for row in tables["t"] if row[0] != 4]
    assert tables == expected
