"""The binlog file (events.py, file.py, show.py) and how the slave's applier reads it.

Binlogs are built two ways: by a real master running SQL (what the harness does), or by
writing events with BinlogWriter and appending raw bytes, to get exactly the events and
the damage a test needs. No Spark.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path
from zlib import crc32

import pytest

from harness.cli import main
from master_sim.master import Master
from server_sim.binlog.events import (
    EVENT_CLASSES,
    INTVAR_INSERT_ID,
    INTVAR_LAST_INSERT_ID,
    LOG_EVENT_IGNORABLE_F,
    Annotate_rows_log_event,
    ColumnInfo,
    Delete_rows_log_event,
    Format_description_log_event,
    Ignorable_log_event,
    Intvar_log_event,
    Log_event,
    Partial_update_rows_log_event,
    Query_log_event,
    Rand_log_event,
    Row,
    Rows_log_event,
    Rows_query_log_event,
    Table_map_log_event,
    Unknown_log_event,
    Update_rows_log_event,
    User_var_log_event,
    Write_rows_log_event,
    Xid_log_event,
    type_code_of,
)
from server_sim.binlog.binary.codec import MYSQL, FormatContext
from server_sim.binlog.binary.columns import column_info
from server_sim.binlog.binary.json_binary import JsonDiff, JsonDiffOperation
from server_sim.binlog.binary.format_description import POST_HEADER_LENGTHS
from server_sim.binlog.binary.header import HEADER_LENGTH, frame
from server_sim.binlog.binary.registry import encode_event
from server_sim.binlog.control_events import FRAMING_EVENTS, Stop_log_event
from server_sim.binlog.file import BinlogCorruptError, BinlogWriter, PositionedEvent, read_binlog
from server_sim.binlog.show import show
from server_sim.binlog.show_session import SessionPrinter
from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor
from server_sim.types import ColumnType
from slave_sim.slave import Slave

RPLHARNESS = Path(sys.executable).with_name("rplharness")
T0 = 1767268800  # 2026-01-01 12:00:00 UTC, the simulated servers' epoch
SERVER_ID = 1
TABLE_ID = 100
CREATE_T = "CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB"
UTF8MB4 = 255
T_COLUMNS = [column_info(ColumnType("INT"), False, UTF8MB4), column_info(ColumnType("INT"), True, UTF8MB4)]
ER_KEY_NOT_FOUND = 1032
ER_SLAVE_RELAY_LOG_READ_FAILURE = 1594


# -- building binlogs ----------------------------------------------------------------------


def write_binlog(path: Path, events: Iterable[Log_event], flavor: Flavor = MYSQL_80) -> list[int]:
    """A binlog of a Format_description event (and the events a file starts with), then
    `events` as they are, then the Stop event of a shutdown; the position of the
    Format_description and of each of `events`."""
    writer = BinlogWriter(path, flavor.server_version, flavor.name, SERVER_ID, T0)
    positions = [4] + [writer.write(event) for event in events]
    writer.close()
    return positions


def append_events(path: Path, *items: Log_event | bytes) -> list[int]:
    """Append events (encoded in the MySQL format, table t mapped) or raw bytes; the position of each."""
    ctx = FormatContext(MYSQL, POST_HEADER_LENGTHS[MYSQL], 1, {TABLE_ID: table_map()})
    positions = []
    with path.open("ab") as file:
        for item in items:
            position = file.tell()
            positions.append(position)
            file.write(encode_event(item, ctx, position) if isinstance(item, Log_event) else item)
    return positions


def content(events: Iterable[PositionedEvent]) -> list[Log_event]:
    """The events after the Format_description, without those that frame groups and files."""
    return [p.event for p in events if not isinstance(p.event, (Format_description_log_event, *FRAMING_EVENTS))]


def query(text: str, ts: int = T0 + 1) -> Query_log_event:
    return Query_log_event(server_id=SERVER_ID, timestamp=ts, thread_id=1, db="test", query=text, charset=(UTF8MB4, UTF8MB4, UTF8MB4))


def table_map() -> Table_map_log_event:
    return Table_map_log_event(server_id=SERVER_ID, timestamp=T0 + 2, table_id=TABLE_ID, database="test", table="t", columns=T_COLUMNS)


def write_rows(*rows: tuple[int, int], version: int = 2) -> Write_rows_log_event:
    return Write_rows_log_event(
        server_id=SERVER_ID,
        timestamp=T0 + 2,
        version=version,
        table_id=TABLE_ID,
        width=2,
        columns_after=[True, True],
        rows=[Row(after=list(row)) for row in rows],
    )


def insert_transaction(*rows: tuple[int, int]) -> list[Log_event]:
    """BEGIN, Table_map, Write_rows, Xid: one committed InnoDB transaction inserting `rows`."""
    return [query("BEGIN"), table_map(), write_rows(*rows), Xid_log_event(server_id=SERVER_ID, timestamp=T0 + 2, xid=1)]


def unknown(code: int, flags: int) -> Unknown_log_event:
    return Unknown_log_event(server_id=SERVER_ID, timestamp=T0 + 2, flags=flags, unknown_type_code=code, raw=b"payload")


def run_master(path: Path, flavor: Flavor, schema: list[str], steps: list[str], **settings: str) -> tuple[int, list[PositionedEvent]]:
    """Run a master in ROW format; the binlog position where `steps` start, and the events."""
    master = Master(flavor, {"binlog_format": "ROW", **settings}, path, seed=1)
    try:
        for sql in schema:
            assert master.submit("master_schema", sql).status == "ok", sql
        schema_end = master.writer.position
        for index, sql in enumerate(steps, start=1):
            result = master.submit("con1", sql, index)
            assert result.status == "ok", (sql, result.error)
        master.finish()
    finally:
        master.close()
    return schema_end, list(read_binlog(path))


def rows_of(slave: Slave, table: str = "t") -> list[tuple]:
    return sorted(slave.server.dump().get(table, ([], []))[1])


@pytest.fixture
def slave() -> Iterable[Slave]:
    server = Slave(MYSQL_80, {}, seed=1)
    yield server
    server.close()


# -- writing and reading events ------------------------------------------------------------


def one_of_each_event() -> list[Log_event]:
    """Every event class the project writes, with non-default values in every field."""
    header = {"server_id": 7, "timestamp": T0 + 5}
    return [
        Query_log_event(**header, thread_id=3, exec_time=1, db="test", error_code=1062, query="INSERT INTO t VALUES (1, 'é')",
                        auto_increment_increment=2, auto_increment_offset=2, sql_mode="STRICT_TRANS_TABLES", time_zone="+01:00",
                        flags2=1 << 26, charset=(33, 33, 8)),
        Intvar_log_event(**header, kind=INTVAR_INSERT_ID, value=42),
        Intvar_log_event(**header, kind=INTVAR_LAST_INSERT_ID, value=41),
        Rand_log_event(**header, seed1=123456, seed2=654321),
        User_var_log_event(**header, name="v", value="text", value_type="STRING", value_charset=45, value_flags=0),
        User_var_log_event(**header, name="n", value=None),  # a NULL carries no type
        Xid_log_event(**header, xid=99),
        Table_map_log_event(**header, table_id=101, database="test", table="t2",
                            columns=[column_info(ColumnType(*spec), nullable, UTF8MB4) for spec, nullable in COLUMNS_T2]),
        Write_rows_log_event(**header, version=2, table_id=101, width=3, columns_after=[True, True, True],
                             rows=[Row(after=[1, "a", Decimal("1.50")]), Row(after=[2, None, None])]),
        Write_rows_log_event(**header, version=1, table_id=101, rows_flags=0, width=3, columns_after=[True, False, True],
                             rows=[Row(after=[3, Decimal("2.00")])]),
        Update_rows_log_event(**header, version=2, table_id=101, width=3, columns_before=[True, True, True], columns_after=[True, True, False],
                              rows=[Row(before=[1, "a", Decimal("1.50")], after=[1, "b"])]),
        Update_rows_log_event(**header, version=1, table_id=101, width=3, columns_before=[True, False, False], columns_after=[False, True, False],
                              rows=[Row(before=[1], after=["c"])]),
        Delete_rows_log_event(**header, version=2, table_id=101, width=3, columns_before=[True, True, True], rows=[Row(before=[2, None, None])]),
        Delete_rows_log_event(**header, version=1, table_id=101, width=3, columns_before=[True, False, False], rows=[Row(before=[3])]),
        Table_map_log_event(**header, table_id=102, database="test", table="j",
                            columns=[ColumnInfo("INT", False, 3, 0, False), ColumnInfo("JSON", True, 245, 4)]),
        Partial_update_rows_log_event(**header, version=2, table_id=102, width=2, columns_before=[True, True], columns_after=[True, True],
                                      rows=[Row(before=[1, {"a": 1}], after=[1, [JsonDiff(JsonDiffOperation.REPLACE, "$.a", 2)]])],
                                      row_options=[1], partial_columns=[[True]]),
        Ignorable_log_event(**header),
        Rows_query_log_event(**header, query="UPDATE t2 SET b = 'b' WHERE a = 1"),
        Annotate_rows_log_event(**header, query="DELETE FROM t2"),
        unknown(50, LOG_EVENT_IGNORABLE_F),
    ]


COLUMNS_T2 = [(("INT",), False), (("VARCHAR", False, 10), True), (("DECIMAL", False, 5, 2), True)]


def test_one_of_each_covers_every_event_class() -> None:
    written = {type(event) for event in one_of_each_event()}
    assert set(EVENT_CLASSES) - {Format_description_log_event} <= written
    assert Unknown_log_event in written


def test_every_event_reads_back_equal_to_what_was_written(tmp_path: Path) -> None:
    events = one_of_each_event()
    path = tmp_path / "all.binlog"
    write_binlog(path, events)

    read = list(read_binlog(path))

    assert read[0].event == Format_description_log_event(
        server_id=SERVER_ID, timestamp=T0, server_version=MYSQL_80.server_version, create_timestamp=T0, post_header_lengths=POST_HEADER_LENGTHS[MYSQL]
    )
    decoded = [dataclasses.replace(e, other_metadata=()) if isinstance(e, Table_map_log_event) else e for e in content(read)]
    assert decoded == events
    assert [type(event) for event in decoded] == [type(event) for event in events]
    assert isinstance(read[-1].event, Stop_log_event)


def test_positions_are_byte_offsets_and_each_end_log_pos_is_the_next_position(tmp_path: Path) -> None:
    path = tmp_path / "all.binlog"
    written = write_binlog(path, one_of_each_event())
    data = path.read_bytes()

    read = list(read_binlog(path))

    assert data[:4] == b"\xfebin" and read[0].position == 4
    assert isinstance(read[0].event, Format_description_log_event)
    assert [p.position for p in read if not isinstance(p.event, FRAMING_EVENTS)] == written
    for current, following in zip(read, read[1:]):
        assert current.end_log_pos == following.position
    assert read[-1].end_log_pos == len(data)
    for positioned in read:  # the bytes at [position, end_log_pos) are exactly that event: its header says so
        header = data[positioned.position : positioned.position + HEADER_LENGTH]
        assert header[4] == type_code_of(positioned.event)
        assert int.from_bytes(header[9:13], "little") == positioned.end_log_pos - positioned.position
        assert int.from_bytes(header[13:17], "little") == positioned.end_log_pos


def test_unknown_event_type_with_the_ignorable_flag_is_kept_whole(tmp_path: Path) -> None:
    path = tmp_path / "unknown.binlog"
    write_binlog(path, [unknown(50, LOG_EVENT_IGNORABLE_F)])

    (_, _, positioned, _) = read_binlog(path)

    assert positioned.event == unknown(50, LOG_EVENT_IGNORABLE_F)
    assert positioned.event.ignorable


# -- row event versions --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flavor", "version", "codes"),
    [
        pytest.param(MARIADB_1011, 1, {"Write_rows": 23, "Update_rows": 24, "Delete_rows": 25}, id="mariadb-v1"),
        pytest.param(MYSQL_80, 2, {"Write_rows": 30, "Update_rows": 31, "Delete_rows": 32}, id="mysql-v2"),
    ],
)
def test_row_events_are_written_and_decoded_with_the_flavors_version(tmp_path: Path, flavor: Flavor, version: int, codes: dict[str, int]) -> None:
    path = tmp_path / "rows.binlog"
    _, events = run_master(path, flavor, [CREATE_T], ["INSERT INTO t VALUES (1, 1), (2, 2)", "UPDATE t SET b = 5 WHERE a = 1", "DELETE FROM t WHERE a = 2"])

    data = path.read_bytes()
    rows_events = [p.event for p in events if isinstance(p.event, Rows_log_event)]
    on_file = {type(p.event).type_name: data[p.position + 4] for p in events if isinstance(p.event, Rows_log_event)}

    assert on_file == codes
    assert [type(e) for e in rows_events] == [Write_rows_log_event, Update_rows_log_event, Delete_rows_log_event]
    assert {e.version for e in rows_events} == {version}
    assert rows_events[0].rows == [Row(after=[1, 1]), Row(after=[2, 2])]
    assert rows_events[1].rows == [Row(before=[1, 1], after=[1, 5])]
    assert rows_events[2].rows == [Row(before=[2, 2])]

    replica = Slave(flavor, {}, seed=1)
    try:
        status = replica.apply(path)
        assert status.running and status.error is None
        assert status.applied_position == path.stat().st_size
        assert rows_of(replica) == [(1, 5)]
    finally:
        replica.close()


# -- corrupt input -------------------------------------------------------------------------

GOOD = [query(CREATE_T), *insert_transaction((1, 1))]


def _event(item: Log_event) -> bytes:
    return encode_event(item, FormatContext(MYSQL, POST_HEADER_LENGTHS[MYSQL], 1, {TABLE_ID: table_map()}), 0)


def _flipped(item: Log_event, offset: int) -> bytes:
    data = bytearray(_event(item))
    data[offset] ^= 0x40
    return bytes(data)


def _resized(item: Log_event, size: int) -> bytes:
    data = bytearray(_event(item))
    data[9:13] = size.to_bytes(4, "little")
    return bytes(data)


def _wider_rows_than_the_map() -> bytes:
    rows = Write_rows_log_event(server_id=1, timestamp=T0, table_id=TABLE_ID, width=2, columns_after=[True, True], rows=[Row(after=[1, 1])])
    data = bytearray(_event(rows)[:-4])
    width_at = HEADER_LENGTH + 10
    data[width_at], data[width_at + 1] = 3, 0x07  # three columns present, the map has two
    data += (5).to_bytes(4, "little")
    return bytes(data[:-4]) + crc32(bytes(data[:-4])).to_bytes(4, "little")


def _zero_increment() -> bytes:
    data = _event(Query_log_event(server_id=1, timestamp=T0, db="test", query="INSERT INTO t VALUES (9, 9)", auto_increment_increment=3, auto_increment_offset=1))
    at = data.index(b"\x03\x03\x00\x01\x00")  # Q_AUTO_INCREMENT, increment 3, offset 1
    raw = bytearray(data[:-4])
    raw[at + 1] = 0
    return bytes(raw) + crc32(bytes(raw)).to_bytes(4, "little")


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        pytest.param(lambda: _event(query("COMMIT"))[:-10], "checksum mismatch", id="cut-event-followed-by-another"),
        pytest.param(lambda: _flipped(query("COMMIT"), 30), "checksum mismatch", id="checksum-mismatch"),
        pytest.param(lambda: b"this is not an event\n", "truncated", id="not-an-event"),
        pytest.param(lambda: _resized(query("COMMIT"), 5), "truncated", id="event-smaller-than-its-header"),
        pytest.param(lambda: _event(unknown(50, 0)), "unknown event type 50 without the ignorable flag", id="unknown-type-not-ignorable"),
        pytest.param(lambda: _event(unknown(40, LOG_EVENT_IGNORABLE_F)), "Transaction_payload", id="not-supported-yet"),
        pytest.param(_wider_rows_than_the_map, "its table map 2 columns", id="row-wider-than-its-table-map"),
        pytest.param(_zero_increment, "auto_increment_increment 0", id="auto-increment-increment-0"),
    ],
)
def test_corrupt_event_raises_naming_its_position_after_the_good_events(tmp_path: Path, damage, reason: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.binlog"
    write_binlog(path, GOOD)
    good = list(read_binlog(path))
    bad_position = append_events(path, damage())[0]
    append_events(path, query("SELECT 1"))  # a good event after a bad one is never reached

    read: list[PositionedEvent] = []
    with pytest.raises(BinlogCorruptError) as caught:
        for positioned in read_binlog(path):
            read.append(positioned)

    assert caught.value.position == bad_position
    assert f"at position {bad_position}" in str(caught.value)
    assert str(path) in str(caught.value)
    assert reason in caught.value.reason
    assert read == good


def test_truncated_last_event_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "cut.binlog"
    write_binlog(path, GOOD)
    position = append_events(path, _event(query("COMMIT"))[:-3])[0]

    with pytest.raises(BinlogCorruptError, match=f"position {position}: event of .* left in the file \\(truncated\\)"):
        list(read_binlog(path))


def test_first_event_that_is_not_a_format_description_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "no-fde.binlog"
    path.write_bytes(b"\xfebin")
    append_events(path, query(CREATE_T), *insert_transaction((1, 1)))

    with pytest.raises(BinlogCorruptError) as caught:
        next(read_binlog(path))

    assert caught.value.position == 4
    assert "Format_description" in caught.value.reason


@pytest.mark.parametrize("content_", [b"", b"{\"type\":\"Format_desc\"}\n"], ids=["empty", "json-lines"])
def test_a_file_without_the_magic_bytes_is_corrupt_at_position_zero(tmp_path: Path, content_: bytes) -> None:
    path = tmp_path / "not-binary.binlog"
    path.write_bytes(content_)

    with pytest.raises(BinlogCorruptError) as caught:
        list(read_binlog(path))

    assert caught.value.position == 0
    assert "not a binary log file" in caught.value.reason


def test_the_reader_follows_the_post_header_lengths_of_the_files_format_description(tmp_path: Path) -> None:
    """A file whose Format_description declares a longer Query post-header (a later
    server version's) is read by that length, not by a table in the code."""
    longer = list(POST_HEADER_LENGTHS[MYSQL])
    longer[1] = 15  # Query: two bytes more after the 13 this reader knows
    description = Format_description_log_event(server_id=1, timestamp=T0, server_version="8.0.99", post_header_lengths=tuple(longer))
    ctx = FormatContext(MYSQL, tuple(longer), 1)
    statement = query("INSERT INTO t VALUES (1, 1)")
    body = bytearray(_event(statement)[HEADER_LENGTH:-4])
    body[13:13] = b"\xaa\xbb"  # the unknown post-header part
    path = tmp_path / "longer.binlog"
    first = encode_event(description, ctx, 4)
    second = frame(statement.timestamp, 2, statement.server_id, 0, bytes(body), 4 + len(first), True)
    path.write_bytes(b"\xfebin" + first + second)

    (_, read) = read_binlog(path)

    assert read.event == statement


# -- the slave's applier -------------------------------------------------------------------


def test_slave_stops_at_a_corrupt_event_after_the_last_complete_transaction(tmp_path: Path, slave: Slave) -> None:
    path = tmp_path / "bad-crc.binlog"
    write_binlog(path, [query(CREATE_T), *insert_transaction((1, 1))])
    bad_at = append_events(path, _flipped(query("INSERT INTO t VALUES (2, 2)"), 40))[0]

    status = slave.apply(path)

    assert not status.running
    assert status.error is not None and status.error.code == ER_SLAVE_RELAY_LOG_READ_FAILURE
    assert status.error_position == bad_at
    assert "checksum mismatch" in status.error.message
    assert rows_of(slave) == [(1, 1)]


def test_slave_skips_unknown_ignorable_event_and_applies_the_events_after_it(tmp_path: Path, slave: Slave) -> None:
    path = tmp_path / "ignorable.binlog"
    events = [query(CREATE_T), *insert_transaction((1, 1)), unknown(50, LOG_EVENT_IGNORABLE_F), *insert_transaction((2, 2))]
    positions = write_binlog(path, events)
    skipped_at, next_at = positions[6], positions[7]

    status = slave.apply(path, stop=next_at)  # up to just after the unknown event

    assert status.running and status.error is None
    assert status.applied_position == next_at  # the position moved past the skipped event
    assert status.events_applied == 8  # Format_description, Previous_gtids .. the unknown event

    status = slave.apply(path, start=next_at)

    assert status.running and status.error is None
    assert status.applied_position == path.stat().st_size
    assert status.events_applied == len(positions) + 2  # with Previous_gtids and Stop
    assert rows_of(slave) == [(1, 1), (2, 2)]
    assert skipped_at not in {lookup.position for lookup in status.lookups}


def test_slave_skips_unknown_ignorable_event_inside_a_transaction(tmp_path: Path, slave: Slave) -> None:
    path = tmp_path / "ignorable-in-trx.binlog"
    trx = insert_transaction((2, 2))
    write_binlog(path, [query(CREATE_T), *insert_transaction((1, 1)), *trx[:2], unknown(50, LOG_EVENT_IGNORABLE_F), *trx[2:]])

    status = slave.apply(path)

    assert status.running and status.error is None
    assert status.applied_position == path.stat().st_size
    assert rows_of(slave) == [(1, 1), (2, 2)]


@pytest.mark.parametrize("inside_transaction", [False, True], ids=["between-transactions", "inside-a-transaction"])
def test_slave_stops_with_1594_on_unknown_event_without_ignorable_flag(tmp_path: Path, slave: Slave, inside_transaction: bool) -> None:
    path = tmp_path / "unknown.binlog"
    bad = unknown(50, 0)
    if inside_transaction:
        tail = [query("BEGIN"), table_map(), write_rows((2, 2)), bad, write_rows((3, 3)), Xid_log_event(server_id=1, timestamp=T0, xid=2)]
    else:
        tail = [bad, *insert_transaction((2, 2))]
    head = [query(CREATE_T), *insert_transaction((1, 1))]
    positions = write_binlog(path, head + tail)
    bad_at = positions[1 + len(head) + tail.index(bad)]

    status = slave.apply(path)

    assert not status.running
    assert status.error is not None and status.error.code == ER_SLAVE_RELAY_LOG_READ_FAILURE
    assert status.error_position == bad_at
    assert status.error_event == "corrupt event"  # the reader refuses it, as a replica's I/O thread does
    assert f"position {bad_at}" in status.error.message
    assert status.applied_position == positions[1 + len(head)]  # end of the last committed transaction
    assert rows_of(slave) == [(1, 1)]  # nothing after it, and the open transaction rolled back


def test_corrupt_line_inside_a_transaction_stops_the_slave_and_rolls_the_transaction_back(tmp_path: Path, slave: Slave) -> None:
    path = tmp_path / "corrupt-middle.binlog"
    positions = write_binlog(path, [query(CREATE_T), *insert_transaction((1, 1)), query("BEGIN"), table_map(), write_rows((2, 2))])
    bad_at = append_events(path, b"this is not an event\n")[0]
    append_events(path, write_rows((3, 3)), Xid_log_event(server_id=1, timestamp=T0, xid=2), *insert_transaction((4, 4)))

    status = slave.apply(path)

    assert not status.running
    assert status.error is not None and status.error.code == ER_SLAVE_RELAY_LOG_READ_FAILURE
    assert status.error_position == bad_at
    assert status.error_event == "corrupt event"
    assert status.applied_position == positions[6]  # the BEGIN of the half-applied transaction
    assert rows_of(slave) == [(1, 1)]  # (2, 2) was applied, then rolled back


def test_stopped_slave_applies_nothing_more(tmp_path: Path, slave: Slave) -> None:
    path = tmp_path / "stopped.binlog"
    write_binlog(path, [query(CREATE_T), unknown(50, 0), *insert_transaction((1, 1))])

    first = slave.apply(path)
    error_position = first.error_position
    again = slave.apply(path, start=0)

    assert not again.running and again.error_position == error_position
    assert rows_of(slave) == []


@pytest.mark.parametrize(
    ("statement", "event_class"),
    [
        pytest.param("UPDATE t SET b = 5 WHERE a = 1", Update_rows_log_event, id="update"),
        pytest.param("DELETE FROM t WHERE a = 1", Delete_rows_log_event, id="delete"),
    ],
)
def test_slave_stops_with_1032_at_the_row_event_when_the_row_is_missing(tmp_path: Path, slave: Slave, statement: str, event_class: type[Rows_log_event]) -> None:
    path = tmp_path / "missing-row.binlog"
    schema_end, events = run_master(path, MYSQL_80, [CREATE_T, "INSERT INTO t VALUES (1, 1), (2, 2)"], [statement, "INSERT INTO t VALUES (3, 3)"])
    (rows_event,) = [p for p in events if isinstance(p.event, event_class)]
    slave.execute_local(CREATE_T)
    slave.execute_local("INSERT INTO t VALUES (2, 2)")  # the slave lacks row a=1

    status = slave.apply(path, start=schema_end)

    assert not status.running
    assert status.error is not None and status.error.code == ER_KEY_NOT_FOUND
    assert status.error.name == "ER_KEY_NOT_FOUND"
    assert status.error_position == rows_event.position
    assert status.error_event == event_class.type_name
    assert f"master log position {rows_event.position}" in status.error.message
    assert "HA_ERR_KEY_NOT_FOUND" in status.error.message
    assert status.applied_position < rows_event.position
    assert rows_of(slave) == [(2, 2)]  # the INSERT after the failed event never ran


def test_slave_applies_master_binlog_from_start_position_when_rows_exist(tmp_path: Path, slave: Slave) -> None:
    path = tmp_path / "rows-exist.binlog"
    schema_end, _ = run_master(path, MYSQL_80, [CREATE_T, "INSERT INTO t VALUES (1, 1), (2, 2)"], ["UPDATE t SET b = 5 WHERE a = 1"])
    slave.execute_local(CREATE_T)
    slave.execute_local("INSERT INTO t VALUES (1, 1), (2, 2)")

    status = slave.apply(path, start=schema_end)

    assert status.running and status.error is None
    assert status.applied_position == path.stat().st_size
    assert [lookup.paths for lookup in status.lookups] == [["pk"]]
    assert rows_of(slave) == [(1, 5), (2, 2)]


# -- informational events ------------------------------------------------------------------


def test_rows_query_event_is_ignorable_and_annotate_rows_is_not() -> None:
    assert Rows_query_log_event(query="x").flags & LOG_EVENT_IGNORABLE_F
    assert Rows_query_log_event(query="x").ignorable
    assert not Annotate_rows_log_event(query="x").flags & LOG_EVENT_IGNORABLE_F
    assert not Annotate_rows_log_event(query="x").ignorable


@pytest.mark.parametrize(
    ("flavor", "settings", "event_class", "flags"),
    [
        pytest.param(MYSQL_80, {"binlog_rows_query_log_events": "ON"}, Rows_query_log_event, LOG_EVENT_IGNORABLE_F, id="mysql-rows-query"),
        pytest.param(MARIADB_1011, {}, Annotate_rows_log_event, 0, id="mariadb-annotate-rows"),
    ],
)
def test_master_writes_statement_annotation_with_its_flags(tmp_path: Path, flavor: Flavor, settings: dict[str, str], event_class: type[Log_event], flags: int) -> None:
    path = tmp_path / "annotated.binlog"
    _, events = run_master(path, flavor, [CREATE_T], ["INSERT INTO t VALUES (1, 1)"], **settings)

    (annotation,) = [p for p in events if isinstance(p.event, event_class)]
    header = path.read_bytes()[annotation.position : annotation.position + HEADER_LENGTH]

    assert annotation.event.query == "INSERT INTO t VALUES (1, 1)"  # type: ignore[attr-defined]
    assert annotation.event.flags == flags
    assert int.from_bytes(header[17:19], "little") == flags
    assert header[4] == event_class.type_code


# -- rplharness binlog show ----------------------------------------------------------------


def test_binlog_show_prints_every_event_like_mysqlbinlog(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "show.binlog"
    _, events = run_master(path, MYSQL_80, [CREATE_T], ["INSERT INTO t VALUES (1, 1)", "UPDATE t SET b = 5 WHERE a = 1"])

    code = main(["binlog", "show", "-vv", str(path)])
    out, err = capsys.readouterr()

    assert code == 0 and err == ""
    for positioned in events:
        assert f"# at {positioned.position}\n" in out
        assert f"end_log_pos {positioned.end_log_pos} " in out
    for expected in (
        "\tStart: binlog v 4, server v 8.0",
        "\tQuery\tthread_id=",
        CREATE_T,
        "Table_map: `test`.`t` mapped to number 100",
        "### INSERT INTO `test`.`t`",
        "### UPDATE `test`.`t`",
        "### WHERE",
        "### SET",
        "@1=1 /* INT meta=0 nullable=0 is_null=0 */",
        "@2=5 /* INT meta=0 nullable=1 is_null=0 */",
        "Xid = 1",
        "COMMIT/*!*/;",
    ):
        assert expected in out, expected


def test_binlog_show_marks_ignorable_events_and_names_unknown_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "show.binlog"
    write_binlog(path, [Rows_query_log_event(server_id=1, timestamp=T0, query="INSERT INTO t VALUES (1, 1)"), unknown(50, LOG_EVENT_IGNORABLE_F)])

    assert main(["binlog", "show", "-vv", str(path)]) == 0
    out = capsys.readouterr().out

    assert "\tRows_query\n# INSERT INTO t VALUES (1, 1)\n" in out
    assert "\tIgnorable\n# Ignorable event type 50 (Unknown(50))\n" in out


def test_binlog_show_of_corrupt_file_prints_what_it_read_then_the_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "corrupt.binlog"
    write_binlog(path, GOOD)
    positions = [p.position for p in read_binlog(path)]
    bad_at = append_events(path, b'{"type":"Query"')[0]

    code = main(["binlog", "show", "-v", str(path)])
    out, err = capsys.readouterr()

    assert code == 1
    assert [int(line.split()[-1]) for line in out.splitlines() if line.startswith("# at ")] == positions
    assert "### INSERT INTO `test`.`t`" in out
    assert f"# at {bad_at}" not in out
    assert f"corrupt binlog event at position {bad_at}" in err
    assert str(path) in err


def test_binlog_show_of_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.binlog"

    assert main(["binlog", "show", str(missing)]) == 2
    out, err = capsys.readouterr()

    assert out == ""
    assert "no such file" in err


def test_rplharness_command_exit_codes_for_corrupt_and_missing_files(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.binlog"
    write_binlog(corrupt, GOOD)
    bad_at = append_events(corrupt, b"garbage\n")[0]

    shown = subprocess.run([str(RPLHARNESS), "binlog", "show", str(corrupt)], capture_output=True, text=True, timeout=60)
    missing = subprocess.run([str(RPLHARNESS), "binlog", "show", str(tmp_path / "nope.binlog")], capture_output=True, text=True, timeout=60)

    assert shown.returncode == 1
    assert "# at 4\n" in shown.stdout
    assert f"position {bad_at}" in shown.stderr
    assert missing.returncode == 2
    assert "no such file" in missing.stderr


@pytest.mark.parametrize("flavor", [MYSQL_80, MARIADB_1011], ids=lambda flavor: flavor.name)
def test_binlog_show_decodes_rows_with_v_and_types_with_vv_as_mysqlbinlog(tmp_path: Path, flavor: Flavor, capsys: pytest.CaptureFixture[str]) -> None:
    """mysqlbinlog prints a row event's header only; -v adds its rows as ### pseudo-SQL,
    -vv each value's column type and MySQL's Rows_query events. MariaDB's Annotate_rows
    event is printed at every level, as mysqlbinlog prints it."""
    path = tmp_path / "levels.binlog"
    annotate = {"binlog_rows_query_log_events": "ON"} if flavor is MYSQL_80 else {}  # MariaDB annotates by default
    _, events = run_master(path, flavor, [CREATE_T], ["INSERT INTO t VALUES (1, NULL)"], **annotate)
    printed = []
    for options in ([], ["-v"], ["-vv"], ["--verbose", "--verbose"]):
        assert main(["binlog", "show", *options, str(path)]) == 0
        printed.append(capsys.readouterr().out)
    plain, decoded, typed, long_options = printed
    statement = ("# " if flavor is MYSQL_80 else "#Q> ") + "INSERT INTO t VALUES (1, NULL)\n"  # Rows_query's, Annotate_rows'

    assert long_options == typed
    assert "Write_rows" in plain and "###" not in plain
    assert "### INSERT INTO `test`.`t`\n### SET\n###   @1=1\n###   @2=NULL\n" in decoded
    assert "###   @1=1 /* INT meta=0 nullable=0 is_null=0 */\n###   @2=NULL /* INT meta=0 nullable=1 is_null=1 */\n" in typed
    assert [statement in text for text in (plain, decoded, typed)] == ([False, False, True] if flavor is MYSQL_80 else [True, True, True])
    for text in printed:  # every event keeps its position, a Rows_query event's too
        assert [line for line in text.splitlines() if line.startswith("# at ")] == [f"# at {p.position}" for p in events]
    assert show(events, "AUTO", data=path.read_bytes(), framed=True) == typed  # library callers (the HTML report) keep -vv


def test_binlog_show_format_json_is_a_view_of_the_binary_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "json-view.binlog"
    _, events = run_master(path, MYSQL_80, [CREATE_T], ["INSERT INTO t VALUES (1, 1)"])

    assert main(["binlog", "show", "--format", "json", str(path)]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    assert [(r["position"], r["end_log_pos"], r["type_code"]) for r in records] == [(p.position, p.end_log_pos, type_code_of(p.event)) for p in events]
    (rows,) = [r for r in records if r["type"] == "Write_rows"]
    assert rows["rows"] == [{"after": [1, 1]}]
    (table_map,) = [r for r in records if r["type"] == "Table_map"]
    assert [(c["type"], c["type_code"], c["nullable"]) for c in table_map["columns"]] == [("INT", 3, False), ("INT", 3, True)]


def test_binlog_show_start_and_stop_positions_as_mysqlbinlog(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "positions.binlog"
    schema_end, events = run_master(path, MYSQL_80, [CREATE_T], ["INSERT INTO t VALUES (1, 1)", "INSERT INTO t VALUES (2, 2)"])
    xids = [p for p in events if isinstance(p.event, Xid_log_event)]

    assert main(["binlog", "show", "--start-position", str(schema_end), "--stop-position", str(xids[0].end_log_pos), str(path)]) == 0
    shown = [int(line.split()[-1]) for line in capsys.readouterr().out.splitlines() if line.startswith("# at ")]
    assert shown == [4] + [p.position for p in events if schema_end <= p.position < xids[0].end_log_pos]

    assert main(["binlog", "show", "--start-position", str(schema_end + 1), str(path)]) == 1
    assert f"position {schema_end + 1}: the position is not the start of an event" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flavor", "flags"),
    [(MARIADB_1011, {"t": 0x4001, "u": 0x0001}), (MYSQL_80, {"t": 0x0001, "u": 0x0001})],
    ids=lambda value: getattr(value, "name", ""),
)
def test_table_map_of_a_table_with_triggers_is_marked_as_the_flavor_marks_it(tmp_path: Path, flavor: Flavor, flags: dict[str, int]) -> None:
    """MariaDB sets TM_BIT_HAS_TRIGGERS_F on the Table_map of a table that has triggers (a
    real MariaDB 10.11 does: test_binlog_real_mariadb's flags test); MySQL 8.0 has no such flag."""
    schema = [CREATE_T, "CREATE TABLE u (a INT PRIMARY KEY, b INT) ENGINE=InnoDB", "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW INSERT INTO u VALUES (NEW.a, NEW.b)"]
    _, events = run_master(tmp_path / "triggers.binlog", flavor, schema, ["INSERT INTO t VALUES (1, 1)"])
    assert {p.event.table: p.event.map_flags for p in events if isinstance(p.event, Table_map_log_event)} == flags


@pytest.mark.parametrize(("microseconds", "shown"), [(None, "SET TIMESTAMP=1767268800/*!*/;"), (73551, "SET TIMESTAMP=1767268800.073551/*!*/;"), (999999, "SET TIMESTAMP=1767268800.999999/*!*/;")])
def test_set_timestamp_shows_the_query_events_microseconds_as_mariadb_binlog(microseconds: int | None, shown: str) -> None:
    """MariaDB's Q_HRNOW status variable (128): the statement's microseconds, six digits."""
    status = ((128, microseconds.to_bytes(3, "little")),) if microseconds is not None else ()
    event = Query_log_event(timestamp=T0, query="INSERT INTO t VALUES (NOW(6))", other_status=status)
    assert SessionPrinter(mariadb=True).query_lines(event)[0] == shown
