"""The binlog file (events.py, file.py, show.py) and how the slave's applier reads it.

Binlogs are built two ways: by a real master running SQL (what the harness does), or by
writing events with BinlogWriter and appending raw lines, to get exactly the events and
the damage a test needs. No Spark.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

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
    known_event_types,
    type_code_of,
)
from server_sim.binlog.file import BinlogCorruptError, BinlogWriter, PositionedEvent, encode, read_binlog
from server_sim.binlog.show import show
from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor
from slave_sim.slave import Slave

RPLHARNESS = Path(sys.executable).with_name("rplharness")
T0 = 1767268800  # 2026-01-01 12:00:00 UTC, the simulated servers' epoch
SERVER_ID = 1
TABLE_ID = 100
MAX_DECLARED_TYPE = max(known_event_types().values())  # what BinlogWriter's Format_description declares
CREATE_T = "CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB"
T_COLUMNS = [ColumnInfo("INT", False), ColumnInfo("INT", True)]
ER_KEY_NOT_FOUND = 1032
ER_SLAVE_RELAY_LOG_READ_FAILURE = 1594


# -- building binlogs ----------------------------------------------------------------------


def write_binlog(path: Path, events: Iterable[Log_event], flavor: Flavor = MYSQL_80) -> list[int]:
    """A binlog of a Format_description event then `events`; the position of every event."""
    writer = BinlogWriter(path, flavor.server_version, flavor.name, SERVER_ID, T0)
    positions = [0] + [writer.write(event) for event in events]
    writer.close()
    return positions


def append_lines(path: Path, *items: Log_event | bytes) -> list[int]:
    """Append events (encoded as the writer does) or raw bytes; the position of each."""
    positions = []
    with path.open("ab") as file:
        for item in items:
            positions.append(file.tell())
            file.write(encode(item).encode("utf-8") if isinstance(item, Log_event) else item)
    return positions


def query(text: str, ts: int = T0 + 1) -> Query_log_event:
    return Query_log_event(server_id=SERVER_ID, timestamp=ts, thread_id=1, db="test", query=text)


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


def unknown(code: int, flags: int, name: str = "Future_event") -> Unknown_log_event:
    return Unknown_log_event(server_id=SERVER_ID, timestamp=T0 + 2, flags=flags, unknown_type_code=code, unknown_type_name=name, fields={"payload": "x"})


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
                        auto_increment_increment=2, auto_increment_offset=2, sql_mode="STRICT_TRANS_TABLES", time_zone="+01:00"),
        Intvar_log_event(**header, kind=INTVAR_INSERT_ID, value=42),
        Intvar_log_event(**header, kind=INTVAR_LAST_INSERT_ID, value=41),
        Rand_log_event(**header, seed1=123456, seed2=654321),
        User_var_log_event(**header, name="v", value="text", value_type="STRING"),
        User_var_log_event(**header, name="n", value=None, value_type="INT"),
        Xid_log_event(**header, xid=99),
        Table_map_log_event(**header, table_id=101, database="test", table="t2",
                            columns=[ColumnInfo("INT", False), ColumnInfo("VARCHAR(10)", True), ColumnInfo("DECIMAL(5,2)", True)]),
        Write_rows_log_event(**header, version=2, table_id=101, width=3, columns_after=[True, True, True],
                             rows=[Row(after=[1, "a", "1.50"]), Row(after=[2, None, None])]),
        Write_rows_log_event(**header, version=1, table_id=101, rows_flags=0, width=3, columns_after=[True, False, True],
                             rows=[Row(after=[3, "2.00"])]),
        Update_rows_log_event(**header, version=2, table_id=101, width=3, columns_before=[True, True, True], columns_after=[True, True, False],
                              rows=[Row(before=[1, "a", "1.50"], after=[1, "b"])]),
        Update_rows_log_event(**header, version=1, table_id=101, width=3, columns_before=[True, False, False], columns_after=[False, True, False],
                              rows=[Row(before=[1], after=["c"])]),
        Delete_rows_log_event(**header, version=2, table_id=101, width=3, columns_before=[True, True, True], rows=[Row(before=[2, None, None])]),
        Delete_rows_log_event(**header, version=1, table_id=101, width=3, columns_before=[True, False, False], rows=[Row(before=[3])]),
        Ignorable_log_event(**header),
        Rows_query_log_event(**header, query="UPDATE t2 SET b = 'b' WHERE a = 1"),
        Annotate_rows_log_event(**header, query="DELETE FROM t2"),
        unknown(50, LOG_EVENT_IGNORABLE_F, name="Future_info"),
    ]


def test_one_of_each_covers_every_event_class() -> None:
    written = {type(event) for event in one_of_each_event()}
    assert set(EVENT_CLASSES) - {Format_description_log_event} <= written
    assert Unknown_log_event in written


def test_every_event_reads_back_equal_to_what_was_written(tmp_path: Path) -> None:
    events = one_of_each_event()
    path = tmp_path / "all.binlog"
    write_binlog(path, events)

    read = [positioned.event for positioned in read_binlog(path)]

    assert read[0] == Format_description_log_event(
        server_id=SERVER_ID, timestamp=T0, server_version=MYSQL_80.server_version, flavor=MYSQL_80.name, event_types=known_event_types()
    )
    assert read[1:] == events
    assert [type(event) for event in read[1:]] == [type(event) for event in events]


def test_positions_are_byte_offsets_and_each_end_log_pos_is_the_next_position(tmp_path: Path) -> None:
    path = tmp_path / "all.binlog"
    written = write_binlog(path, one_of_each_event())
    data = path.read_bytes()

    read = list(read_binlog(path))

    assert read[0].position == 0
    assert isinstance(read[0].event, Format_description_log_event)
    assert [p.position for p in read] == written
    for current, following in zip(read, read[1:]):
        assert current.end_log_pos == following.position
    assert read[-1].end_log_pos == len(data)
    for positioned in read:  # the bytes at [position, end_log_pos) are exactly that event's line
        line = data[positioned.position : positioned.end_log_pos]
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert json.loads(line)["type_code"] == type_code_of(positioned.event)


def test_unknown_event_type_below_the_declared_maximum_is_kept_whole(tmp_path: Path) -> None:
    path = tmp_path / "unknown.binlog"
    write_binlog(path, [unknown(50, 0, name="Future_event")])

    (_, positioned) = read_binlog(path)

    assert positioned.event == unknown(50, 0, name="Future_event")
    assert not positioned.event.ignorable


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

    raw = [json.loads(line) for line in path.read_text().splitlines()]
    on_file = {record["type"]: record["type_code"] for record in raw if record["type"] in codes}
    rows_events = [p.event for p in events if isinstance(p.event, Rows_log_event)]

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


def _truncated(path: Path) -> int:
    return append_lines(path, encode(query("COMMIT")).encode()[:-10])[0]


def _not_json(path: Path) -> int:
    return append_lines(path, b'{"type":"Query","type_code":2,\n')[0]


def _not_an_object(path: Path) -> int:
    return append_lines(path, b"[1, 2, 3]\n")[0]


def _blank_line(path: Path) -> int:
    return append_lines(path, b"\n")[0]


def _beyond_maximum_ignorable(path: Path) -> int:
    return append_lines(path, unknown(MAX_DECLARED_TYPE + 1, LOG_EVENT_IGNORABLE_F))[0]


def _beyond_maximum(path: Path) -> int:
    return append_lines(path, unknown(MAX_DECLARED_TYPE + 40, 0))[0]


def _no_type_code(path: Path) -> int:
    return append_lines(path, b'{"type":"Query","query":"COMMIT"}\n')[0]


@pytest.mark.parametrize(
    ("damage", "reason", "followed"),
    [
        pytest.param(_truncated, "truncated", False, id="truncated-last-line"),
        pytest.param(_not_json, "Expecting", True, id="not-json"),
        pytest.param(_not_an_object, "not a JSON object", True, id="json-but-not-an-object"),
        pytest.param(_blank_line, "Expecting value", True, id="blank-line"),
        pytest.param(_beyond_maximum_ignorable, "beyond", True, id="type-beyond-format-description-even-ignorable"),
        pytest.param(_beyond_maximum, "beyond", True, id="type-beyond-format-description"),
        pytest.param(_no_type_code, "type_code", True, id="no-type-code"),
    ],
)
def test_corrupt_event_raises_naming_its_position_after_the_good_events(tmp_path: Path, damage, reason: str, followed: bool) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.binlog"
    good_positions = write_binlog(path, GOOD)
    bad_position = damage(path)
    if followed:  # a good event after a bad line is never reached
        append_lines(path, query("SELECT 1"))

    read: list[PositionedEvent] = []
    with pytest.raises(BinlogCorruptError) as caught:
        for positioned in read_binlog(path):
            read.append(positioned)

    assert caught.value.position == bad_position
    assert f"at position {bad_position}" in str(caught.value)
    assert str(path) in str(caught.value)
    assert reason in caught.value.reason
    assert [p.position for p in read] == good_positions
    assert [p.event for p in read[1:]] == GOOD


def test_truncated_last_line_is_corrupt_even_when_it_is_valid_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.binlog"
    write_binlog(path, GOOD)
    position = append_lines(path, encode(query("COMMIT")).encode().rstrip(b"\n"))[0]

    with pytest.raises(BinlogCorruptError, match=f"position {position}: truncated"):
        list(read_binlog(path))


def test_first_event_that_is_not_a_format_description_is_corrupt_at_position_zero(tmp_path: Path) -> None:
    path = tmp_path / "no-fde.binlog"
    append_lines(path, query(CREATE_T), *insert_transaction((1, 1)))

    with pytest.raises(BinlogCorruptError) as caught:
        next(read_binlog(path))

    assert caught.value.position == 0
    assert "Format_description" in caught.value.reason


def test_empty_file_is_corrupt_at_position_zero(tmp_path: Path) -> None:
    path = tmp_path / "empty.binlog"
    path.write_bytes(b"")

    with pytest.raises(BinlogCorruptError) as caught:
        list(read_binlog(path))

    assert caught.value.position == 0
    assert "empty" in caught.value.reason


def test_format_description_declares_the_maximum_type_code(tmp_path: Path) -> None:
    """The maximum is the Format_description's, not a fixed one: a smaller declaration
    makes an event type beyond it corrupt even though this reader knows that type."""
    path = tmp_path / "small-fde.binlog"
    fde = json.loads(encode(Format_description_log_event(server_id=1, timestamp=T0, event_types={"Query": 2, "Format_desc": 15, "Xid": 16})))
    path.write_text(json.dumps(fde) + "\n")
    xid_position = append_lines(path, query("BEGIN"), Xid_log_event(server_id=1, timestamp=T0, xid=1), table_map())[2]

    with pytest.raises(BinlogCorruptError) as caught:
        list(read_binlog(path))

    assert caught.value.position == xid_position
    assert "event type 19 is beyond the 16 types" in caught.value.reason


def test_row_event_whose_rows_are_not_objects_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "bad-rows.binlog"
    write_binlog(path, [query("BEGIN"), table_map()])
    position = append_lines(path, b'{"type":"Write_rows","type_code":30,"table_id":100,"columns_after":[true,true],"rows":[[1,1]]}\n')[0]

    with pytest.raises(BinlogCorruptError) as caught:
        list(read_binlog(path))

    assert caught.value.position == position


def test_format_description_whose_event_types_is_not_an_object_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "bad-fde.binlog"
    path.write_bytes(b'{"type":"Format_desc","type_code":15,"event_types":[2,15,16]}\n')

    with pytest.raises(BinlogCorruptError) as caught:
        list(read_binlog(path))

    assert caught.value.position == 0


def test_slave_stops_at_an_event_whose_field_has_the_wrong_type(tmp_path: Path, slave: Slave) -> None:
    path = tmp_path / "bad-field.binlog"
    write_binlog(path, [query(CREATE_T), *insert_transaction((1, 1))])
    bad_at = append_lines(path, b'{"type":"Query","type_code":2,"server_id":1,"timestamp":1767268801,"flags":0,"query":5}\n')[0]

    status = slave.apply(path)

    assert not status.running
    assert status.error is not None and status.error.code == ER_SLAVE_RELAY_LOG_READ_FAILURE
    assert status.error_position == bad_at
    assert rows_of(slave) == [(1, 1)]


# -- the slave's applier -------------------------------------------------------------------


def test_slave_skips_unknown_ignorable_event_and_applies_the_events_after_it(tmp_path: Path, slave: Slave) -> None:
    path = tmp_path / "ignorable.binlog"
    events = [query(CREATE_T), *insert_transaction((1, 1)), unknown(50, LOG_EVENT_IGNORABLE_F), *insert_transaction((2, 2))]
    positions = write_binlog(path, events)
    skipped_at, next_at = positions[6], positions[7]

    status = slave.apply(path, stop=next_at)  # up to just after the unknown event

    assert status.running and status.error is None
    assert status.applied_position == next_at  # the position moved past the skipped event
    assert status.events_applied == 7  # Format_description .. the unknown event

    status = slave.apply(path, start=next_at)

    assert status.running and status.error is None
    assert status.applied_position == path.stat().st_size
    assert status.events_applied == len(positions)
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
    bad = unknown(50, 0, name="Future_event")
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
    assert status.error_event == "Future_event"
    assert f"position {bad_at}" in status.error.message
    assert status.applied_position == positions[1 + len(head)]  # end of the last committed transaction
    assert rows_of(slave) == [(1, 1)]  # nothing after it, and the open transaction rolled back


def test_slave_stops_on_type_beyond_format_description_even_with_ignorable_flag(tmp_path: Path, slave: Slave) -> None:
    path = tmp_path / "beyond.binlog"
    write_binlog(path, [query(CREATE_T), *insert_transaction((1, 1))])
    bad_at = append_lines(path, unknown(MAX_DECLARED_TYPE + 1, LOG_EVENT_IGNORABLE_F))[0]
    append_lines(path, *insert_transaction((2, 2)))

    status = slave.apply(path)

    assert not status.running
    assert status.error is not None and status.error.code == ER_SLAVE_RELAY_LOG_READ_FAILURE
    assert status.error_position == bad_at
    assert status.error_event == "corrupt event"
    assert rows_of(slave) == [(1, 1)]


def test_corrupt_line_inside_a_transaction_stops_the_slave_and_rolls_the_transaction_back(tmp_path: Path, slave: Slave) -> None:
    path = tmp_path / "corrupt-middle.binlog"
    positions = write_binlog(path, [query(CREATE_T), *insert_transaction((1, 1)), query("BEGIN"), table_map(), write_rows((2, 2))])
    bad_at = append_lines(path, b"this is not an event\n")[0]
    append_lines(path, write_rows((3, 3)), Xid_log_event(server_id=1, timestamp=T0, xid=2), *insert_transaction((4, 4)))

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
    raw = json.loads(path.read_bytes()[annotation.position : annotation.end_log_pos])

    assert annotation.event.query == "INSERT INTO t VALUES (1, 1)"  # type: ignore[attr-defined]
    assert annotation.event.flags == flags
    assert raw["flags"] == flags
    assert raw["type_code"] == event_class.type_code


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
        "Format_desc",
        "Query",
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
    write_binlog(path, [Rows_query_log_event(server_id=1, timestamp=T0, query="INSERT INTO t VALUES (1, 1)"), unknown(50, 0)])

    assert main(["binlog", "show", "-vv", str(path)]) == 0
    out = capsys.readouterr().out

    assert "Rows_query\t/* ignorable */" in out
    assert "#Q> INSERT INTO t VALUES (1, 1)" in out
    assert "# unknown event type Future_event" in out


def test_binlog_show_of_corrupt_file_prints_what_it_read_then_the_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "corrupt.binlog"
    positions = write_binlog(path, GOOD)
    bad_at = append_lines(path, b'{"type":"Query"')[0]

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
    bad_at = append_lines(corrupt, b"garbage\n")[0]

    shown = subprocess.run([str(RPLHARNESS), "binlog", "show", str(corrupt)], capture_output=True, text=True, timeout=60)
    missing = subprocess.run([str(RPLHARNESS), "binlog", "show", str(tmp_path / "nope.binlog")], capture_output=True, text=True, timeout=60)

    assert shown.returncode == 1
    assert "# at 0\n" in shown.stdout
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
    statement = "#Q> INSERT INTO t VALUES (1, NULL)"

    assert long_options == typed
    assert "Write_rows" in plain and "###" not in plain
    assert "### INSERT INTO `test`.`t`\n### SET\n###   @1=1\n###   @2=NULL\n" in decoded
    assert "###   @1=1 /* INT meta=0 nullable=0 is_null=0 */\n###   @2=NULL /* INT meta=0 nullable=1 is_null=1 */\n" in typed
    assert [statement in text for text in (plain, decoded, typed)] == ([False, False, True] if flavor is MYSQL_80 else [True, True, True])
    for text in printed:  # every event keeps its position, a Rows_query event's too
        assert [line for line in text.splitlines() if line.startswith("# at ")] == [f"# at {p.position}" for p in events]
    assert show(events) == typed  # library callers (the HTML report) keep -vv
