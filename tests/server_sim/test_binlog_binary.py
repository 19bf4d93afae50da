"""The binary binlog format (v4): events written and read back, per flavor; real MySQL
8.0 files read and written back byte for byte; damaged bytes end in a clear error;
mariadb-binlog reads the MariaDB-flavor files."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from harness.cli import main
from server_sim.binlog.binary import columns as c
from server_sim.binlog.binary.codec import MARIADB, MYSQL, FormatContext
from server_sim.binlog.binary.format_description import context_of, default_charset, format_description
from server_sim.binlog.binary.header import MAGIC
from server_sim.binlog.binary.packing import Cursor
from server_sim.binlog.binary.values import pack_value, unpack_value
from server_sim.binlog.binary.registry import encode_event
from server_sim.binlog.control_events import FL_STANDALONE, FL_TRANSACTIONAL, Anonymous_gtid_log_event, Gtid_list_log_event, Gtid_log_event, Rotate_log_event
from server_sim.binlog.binary.json_binary import JsonDiff, JsonDiffOperation
from server_sim.binlog.events import (
    Partial_update_rows_log_event,
    ColumnInfo,
    Delete_rows_log_event,
    Format_description_log_event,
    Intvar_log_event,
    Query_log_event,
    Rand_log_event,
    Row,
    Rows_query_log_event,
    Annotate_rows_log_event,
    Table_map_log_event,
    Update_rows_log_event,
    User_var_log_event,
    Write_rows_log_event,
    Xid_log_event,
)
from server_sim.binlog.file import BinlogCorruptError, BinlogReader


@dataclasses.dataclass(frozen=True)
class ReadEvent:
    position: int
    end_log_pos: int
    event: object
    data: bytes  # the whole event as the file holds it


def iter_binary_events(data: bytes, path: Path):
    reader = BinlogReader(path, data)
    for positioned in reader.events():
        yield ReadEvent(positioned.position, positioned.end_log_pos, positioned.event, data[positioned.position : positioned.end_log_pos])
from server_sim.binlog.binary.transaction_payload import TRANSACTION_PAYLOAD_TYPE, inner_events
from server_sim import charsets
from server_sim.types import ColumnType

MYSQL_FILES = Path(__file__).resolve().parents[3] / "shared" / "testdata" / "binlogs" / "mysql-8.0"
if not MYSQL_FILES.is_dir():
    MYSQL_FILES = Path("/work/shared/testdata/binlogs/mysql-8.0")
VERSIONS = {MYSQL: "8.0.39-rplharness", MARIADB: "10.11.18-MariaDB-rplharness"}

# (column type, a value, nullable); one column per catalog type.
COLUMNS = [
    (ColumnType("INT"), -7, False),
    (ColumnType("TINYINT", unsigned=True), 200, True),
    (ColumnType("SMALLINT"), -32768, True),
    (ColumnType("MEDIUMINT", unsigned=True), 16777215, True),
    (ColumnType("BIGINT", unsigned=True), 2**64 - 1, True),
    (ColumnType("DECIMAL", False, 10, 2), Decimal("-99.99"), True),
    (ColumnType("DECIMAL", False, 30, 9), Decimal("123456789012345678901.123456789"), True),
    (ColumnType("FLOAT"), 1.5, True),
    (ColumnType("DOUBLE"), 0.1, True),
    (ColumnType("CHAR", length=10), "ab", True),
    (ColumnType("CHAR", length=100), "x" * 80, True),
    (ColumnType("VARCHAR", length=20), "héllo", True),
    (ColumnType("VARCHAR", length=300), "y" * 299, True),
    (ColumnType("TEXT"), "a text", True),
    (ColumnType("LONGBLOB"), b"\x00\xff", True),
    (ColumnType("BINARY", length=4), b"ab", True),
    (ColumnType("VARBINARY", length=8), b"\x01\x02", True),
    (ColumnType("DATE"), dt.date(2024, 2, 29), True),
    (ColumnType("DATE"), dt.date(1, 1, 1), True),
    (ColumnType("DATETIME"), dt.datetime(2024, 12, 31, 23, 59, 58), True),
    (ColumnType("TIMESTAMP"), dt.datetime(2038, 1, 19, 3, 14, 7), True),
    (ColumnType("YEAR"), 2155, True),
    (ColumnType("YEAR"), 0, True),
    (ColumnType("TIME"), -dt.timedelta(hours=838, minutes=59, seconds=59), True),
    (ColumnType("TIME", scale=3), -dt.timedelta(hours=1, microseconds=500_000), True),
    (ColumnType("TIME", scale=6), dt.timedelta(hours=838, minutes=59, seconds=59, microseconds=999_999), True),
    (ColumnType("DATETIME", scale=6), dt.datetime(2024, 2, 29, 10, 11, 12, 123456), True),
    (ColumnType("DATETIME", scale=1), dt.datetime(9999, 12, 31, 23, 59, 59, 900000), True),
    (ColumnType("TIMESTAMP", scale=3), dt.datetime(2038, 1, 19, 3, 14, 7, 999000), True),
    # ENUM and SET values travel as their index and bitmask.
    (ColumnType("ENUM", members=("a", "b", "c")), 2, True),
    (ColumnType("ENUM", members=tuple(f"m{i}" for i in range(300))), 257, True),
    (ColumnType("SET", members=("x", "y", "z")), 5, True),
    (ColumnType("SET", members=tuple(f"s{i}" for i in range(40))), 2**39 + 1, True),
    (ColumnType("CHAR", length=10, collation="latin1_swedish_ci"), "àé€", True),
    (ColumnType("VARCHAR", length=200, collation="latin1_bin"), "ü" * 200, True),
    (ColumnType("VARCHAR", length=100, collation="utf8mb3_general_ci"), "ß" * 100, True),
    (ColumnType("TEXT", collation="utf8mb4_general_ci"), "naïve Ω", True),
]


def _columns(flavor: str) -> list[ColumnInfo]:
    text_charset = default_charset(flavor)[2]
    infos = []
    for column_type, _, nullable in COLUMNS:
        charset = c.column_charset(column_type, text_charset)
        code, metadata = c.binlog_type(column_type, charset or 0)
        unsigned = column_type.unsigned if code in c.NUMERIC_CODES else None
        # MySQL's FULL row metadata carries the member lists (ENUM_STR_VALUE, SET_STR_VALUE).
        members = column_type.members if column_type.is_enum_or_set and flavor == MYSQL else None
        infos.append(ColumnInfo(c.display_type(code, metadata, unsigned), nullable, code, metadata, unsigned, charset, None, members))
    return infos


def _events(flavor: str) -> list:
    header = {"server_id": 1, "timestamp": 1_700_000_000}
    values = [value for _, value, _ in COLUMNS]
    nulls = [None if nullable else value for _, value, nullable in COLUMNS]
    width = len(COLUMNS)
    events = [
        Gtid_log_event(**header, seq_no=1, flags2=FL_STANDALONE) if flavor == MARIADB else Anonymous_gtid_log_event(**header, immediate_server_version=80039),
        Query_log_event(**header, thread_id=5, db="test", query="CREATE TABLE t (a INT)", sql_mode="STRICT_TRANS_TABLES", charset=default_charset(flavor)),
        Gtid_log_event(**header, seq_no=2, flags2=FL_TRANSACTIONAL) if flavor == MARIADB else Query_log_event(**header, flags=8, db="test", query="BEGIN", charset=default_charset(flavor)),
        Intvar_log_event(**header, kind="INSERT_ID", value=42),
        Intvar_log_event(**header, kind="LAST_INSERT_ID", value=7),
        Rand_log_event(**header, seed1=123, seed2=456),
        User_var_log_event(**header, name="s", value="text", value_type="STRING", value_charset=33, value_flags=None if flavor == MARIADB else 0),
        User_var_log_event(**header, name="i", value=-3, value_type="INT", value_charset=33, value_flags=0),
        User_var_log_event(**header, name="r", value=0.25, value_type="REAL", value_charset=33, value_flags=None if flavor == MARIADB else 0),
        User_var_log_event(**header, name="d", value=Decimal("-12.345"), value_type="DECIMAL", value_charset=33, value_flags=None if flavor == MARIADB else 0),
        User_var_log_event(**header, name="n", value=None),
        Query_log_event(**header, thread_id=5, db="test", query="INSERT INTO t VALUES (@s)", auto_increment_increment=2, auto_increment_offset=3,
                        time_zone="+01:00", flags2=1 << 26 | 1 << 14, sql_mode="ANSI_QUOTES,NO_ZERO_DATE", charset=(33, 8, 45)),
        (Annotate_rows_log_event if flavor == MARIADB else Rows_query_log_event)(**header, query="UPDATE t SET a = 1"),
        Table_map_log_event(**header, table_id=100, database="test", table="t", columns=_columns(flavor)),
        Write_rows_log_event(**header, version=1 if flavor == MARIADB else 2, table_id=100, rows_flags=0, width=width,
                             columns_after=[True] * width, rows=[Row(after=values), Row(after=nulls)]),
        Update_rows_log_event(**header, version=1 if flavor == MARIADB else 2, table_id=100, rows_flags=0, width=width,
                              columns_before=[True] * width, columns_after=[i % 2 == 0 for i in range(width)],
                              rows=[Row(before=values, after=values[::2])]),
        Delete_rows_log_event(**header, version=1 if flavor == MARIADB else 2, table_id=100, rows_flags=1, width=width,
                              columns_before=[i < 3 for i in range(width)], rows=[Row(before=values[:3])]),
        Xid_log_event(**header, xid=9),
    ]
    if flavor == MARIADB:
        events.insert(0, Gtid_list_log_event(**header, gtids=((0, 1, 0),)))
    return events + [Rotate_log_event(**header, position=4, new_log_ident="master-bin.000002")]


def _file(flavor: str, events: list, checksum_alg: int = 1) -> bytes:
    description = format_description(flavor, VERSIONS[flavor], 1, 1_700_000_000, checksum_alg)
    ctx = context_of(description)
    data = bytearray(MAGIC)
    for event in [description, *events]:
        data += encode_event(event, ctx, len(data))
    return bytes(data)


def _as_carried(event, flavor: str):
    """What a MariaDB file carries of an event: no signedness, no charset (they come from
    the slave's own columns), so integers read as signed and strings as bytes."""
    if flavor == MYSQL:
        return event
    if isinstance(event, Table_map_log_event):
        return dataclasses.replace(event, columns=[dataclasses.replace(col, unsigned=None, charset=None, type=c.display_type(col.type_code, col.metadata, None)) for col in event.columns])
    if isinstance(event, (Write_rows_log_event, Update_rows_log_event, Delete_rows_log_event)):
        return dataclasses.replace(event, rows=[Row(_carried_image(row.before, event.columns_before), _carried_image(row.after, event.columns_after)) for row in event.rows])
    return event


def _carried_image(values, present):
    if values is None:
        return None
    kinds = [COLUMNS[i][0] for i, p in enumerate(present) if p]
    out = []
    for kind, value in zip(kinds, values):
        if isinstance(value, str):
            value = charsets.encode_text(value, kind.charset)  # the column's charset's bytes
        elif kind.is_integer and value is not None and kind.unsigned and value >= 1 << (kind.base.bits - 1):
            value -= 1 << kind.base.bits
        out.append(value)
    return out


@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
@pytest.mark.parametrize("checksum_alg", [1, 0])
def test_round_trip(flavor: str, checksum_alg: int) -> None:
    events = _events(flavor)
    data = _file(flavor, events, checksum_alg)
    read = list(iter_binary_events(data, Path("sim.bin")))
    assert isinstance(read[0].event, Format_description_log_event)
    # A table map read keeps its optional metadata bytes as read (written back below).
    decoded = [dataclasses.replace(r.event, other_metadata=()) if isinstance(r.event, Table_map_log_event) else r.event for r in read[1:]]
    assert decoded == [_as_carried(e, flavor) for e in events]
    # Positions are the real offsets, and every event written back gives the same bytes.
    assert [r.position for r in read] == [4] + [r.end_log_pos for r in read[:-1]]
    ctx = FormatContext(flavor)
    for r in read:
        if isinstance(r.event, Format_description_log_event):
            ctx = context_of(r.event)
        assert encode_event(r.event, ctx, r.position) == r.data


LATIN1, UTF8MB3, UTF8MB4, ASCII = "latin1_swedish_ci", "utf8mb3_general_ci", "utf8mb4_general_ci", "ascii_general_ci"


@pytest.mark.parametrize(
    ("column_type", "value", "metadata", "packed"),
    [
        # A CHAR's metadata is its real type and its byte length; its value, the charset's bytes after their count.
        (ColumnType("CHAR", length=10, collation=LATIN1), "é€", c.string_metadata(c.MYSQL_TYPE_STRING, 10), b"\x02\xe9\x80"),
        (ColumnType("CHAR", length=10, collation=UTF8MB3), "é", c.string_metadata(c.MYSQL_TYPE_STRING, 30), b"\x02\xc3\xa9"),
        (ColumnType("CHAR", length=10, collation=UTF8MB4), "é", c.string_metadata(c.MYSQL_TYPE_STRING, 40), b"\x02\xc3\xa9"),
        # Over 255 bytes: the length's bits 8-9 fold into the type byte, and the count takes two bytes.
        (ColumnType("CHAR", length=100, collation=UTF8MB4), "é", c.string_metadata(c.MYSQL_TYPE_STRING, 400), b"\x02\x00\xc3\xa9"),
        (ColumnType("CHAR", length=255, collation=LATIN1), "é", c.string_metadata(c.MYSQL_TYPE_STRING, 255), b"\x01\xe9"),
        (ColumnType("VARCHAR", length=200, collation=LATIN1), "é", 200, b"\x01\xe9"),
        (ColumnType("VARCHAR", length=100, collation=UTF8MB3), "é", 300, b"\x02\x00\xc3\xa9"),
        (ColumnType("VARCHAR", length=200, collation=UTF8MB4), "é", 800, b"\x02\x00\xc3\xa9"),
        (ColumnType("VARCHAR", length=10, collation=ASCII), "ok", 10, b"\x02ok"),
        (ColumnType("TEXT", collation=LATIN1), "€", 2, b"\x01\x00\x80"),
    ],
)
def test_a_text_columns_metadata_and_values_are_in_its_charset(column_type: ColumnType, value: str, metadata: int, packed: bytes) -> None:
    charset = c.column_charset(column_type, 0)
    assert charset == charsets.collation_id(column_type.collation)
    code, written = c.binlog_type(column_type, charset)
    assert written == metadata
    assert pack_value(value, code, metadata, charset) == packed
    # Read back in the charset the event says (MySQL's row metadata), or as bytes that a
    # replica reads in its own column's charset (a MariaDB event says none).
    assert unpack_value(Cursor(packed), code, metadata, None, charset) == value
    assert c.master_column_type(code, metadata, None, None, column_type) == column_type


def test_mysql_row_metadata_carries_each_text_columns_own_charset() -> None:
    """DEFAULT_CHARSET names the most used collation and then each column of another one."""
    types = [ColumnType("INT"), ColumnType("CHAR", length=3, collation="utf8mb4_0900_ai_ci"), ColumnType("VARCHAR", length=5, collation=LATIN1),
             ColumnType("TEXT", collation="utf8mb4_0900_ai_ci"), ColumnType("VARCHAR", length=5, collation="ascii_bin")]
    table_map = Table_map_log_event(server_id=1, timestamp=1_700_000_000, table_id=7, database="test", table="t",
                                    columns=[c.column_info(column_type, True, 255) for column_type in types])
    (read,) = [r.event for r in iter_binary_events(_file(MYSQL, [table_map]), Path("sim.bin")) if isinstance(r.event, Table_map_log_event)]
    assert [column.charset for column in read.columns] == [None, 255, 8, 255, 65]


REAL_FILES = sorted(p for p in MYSQL_FILES.glob("*") if p.suffix != ".md" and not p.name.startswith("LICENSE")) if MYSQL_FILES.is_dir() else []
# Files that hold events this reader does not decode yet, and where it says so.
NOT_YET = {
    "binlog_truncated_event.000001": "needs 19 bytes",
}


@pytest.mark.skipif(not REAL_FILES, reason="MySQL 8.0 test binlogs are not on this machine")
@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name)
def test_real_mysql_files_read_and_write_back_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    ctx = FormatContext(MYSQL)
    count = 0
    payloads: dict[int, tuple[bytes, list]] = {}  # a Transaction_payload's events, by its position
    try:
        for r in iter_binary_events(data, path):
            if isinstance(r.event, Format_description_log_event):
                ctx = context_of(r.event)
            if r.data[4] == TRANSACTION_PAYLOAD_TYPE:
                payloads.setdefault(r.position, (r.data, []))[1].append(r.event)
                continue
            assert encode_event(r.event, ctx, r.position) == r.data, f"{path.name} at {r.position}"
            count += 1
        assert path.name not in NOT_YET
        for position, (raw, events) in payloads.items():
            # The events inside: no checksum, log_pos 0, each written back byte for byte.
            inner_ctx = dataclasses.replace(ctx, checksum_alg=0)
            rewritten = [bytearray(encode_event(event, inner_ctx, 0)) for event in events]
            for event_bytes in rewritten:
                event_bytes[13:17] = bytes(4)
            body = raw[19 : len(raw) - (4 if ctx.checksum else 0)]
            assert b"".join(rewritten) == inner_events(body), f"{path.name}: the payload at {position}"
            count += len(events)
    except BinlogCorruptError as error:
        assert NOT_YET.get(path.name, "-") in error.reason, error
    assert count or path.name == "binlog_truncated_event.000001"


def test_partial_json_updates_read_as_their_diffs() -> None:
    """json.binlog's Update_rows_partial events (binlog_row_value_options=PARTIAL_JSON):
    each row's JSON column holds the diff that sets $.age, which the generated column
    beside it shows."""
    path = MYSQL_FILES / "json.binlog.000001"
    if not path.exists():
        pytest.skip("MySQL 8.0 test binlogs are not on this machine")
    partial = [r.event for r in iter_binary_events(path.read_bytes(), path) if isinstance(r.event, Partial_update_rows_log_event)]
    assert [event.type_name for event in partial] == ["Update_rows_partial"]
    rows = partial[0].rows
    assert partial[0].row_options == [1] * len(rows) and partial[0].partial_columns == [[True]] * len(rows)
    assert [row.after[0] for row in rows] == [[JsonDiff(JsonDiffOperation.REPLACE, "$.age", row.after[2])] for row in rows]


@pytest.mark.parametrize(
    ("column_type", "value", "metadata", "packed"),
    [
        (ColumnType("ENUM", members=("a", "b", "c")), 2, b"\xf7\x01", b"\x02"),
        (ColumnType("ENUM", members=tuple(f"m{i}" for i in range(300))), 257, b"\xf7\x02", b"\x01\x01"),
        (ColumnType("SET", members=("x", "y", "z")), 5, b"\xf8\x01", b"\x05"),
        (ColumnType("SET", members=tuple(f"s{i}" for i in range(9))), 256, b"\xf8\x02", b"\x00\x01"),
        (ColumnType("SET", members=tuple(f"s{i}" for i in range(20))), 1, b"\xf8\x03", b"\x01\x00\x00"),
        (ColumnType("SET", members=tuple(f"s{i}" for i in range(33))), 2**32, b"\xf8\x08", (2**32).to_bytes(8, "little")),
    ],
    ids=["enum-1-byte", "enum-2-bytes", "set-1-byte", "set-2-bytes", "set-3-bytes", "set-8-bytes"],
)
def test_enum_and_set_are_strings_with_their_real_type_and_pack_length(column_type: ColumnType, value: int, metadata: bytes, packed: bytes) -> None:
    """Field_enum / Field_set: type code STRING (254), metadata [real type, pack length],
    the value as a little-endian index or bitmask of that length."""
    code, meta = c.binlog_type(column_type, 0)
    assert (code, bytes((meta >> 8, meta & 0xFF))) == (c.MYSQL_TYPE_STRING, metadata)
    assert pack_value(value, code, meta) == packed
    assert unpack_value(Cursor(packed), code, meta, None, None) == value


def test_mysql_full_metadata_carries_enum_and_set_members() -> None:
    path = MYSQL_FILES / "mysql-enum-string-set.000001"
    if not path.exists():
        pytest.skip("MySQL 8.0 test binlogs are not on this machine")
    maps = [r.event for r in iter_binary_events(path.read_bytes(), path) if isinstance(r.event, Table_map_log_event)]
    assert [col.members for col in maps[0].columns] == [None, None, ("var1", "variant2", "foo"), ("one", "two", "three", "four"), None]


def test_mysql_minimal_metadata_carries_signedness_and_charset() -> None:
    path = MYSQL_FILES / "minimal_row_metadata.000001"
    if not path.exists():
        pytest.skip("MySQL 8.0 test binlogs are not on this machine")
    maps = [r.event for r in iter_binary_events(path.read_bytes(), path) if isinstance(r.event, Table_map_log_event)]
    assert maps and all(col.unsigned is not None for col in maps[0].columns if col.type_code in c.NUMERIC_CODES)


def _damaged(data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return data[: rng.randrange(len(data))]
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def test_damaged_files_end_in_a_clear_error_or_an_intact_read() -> None:
    rng = random.Random(19)
    sources = [_file(MYSQL, _events(MYSQL)), _file(MARIADB, _events(MARIADB)), _file(MARIADB, _events(MARIADB), 0)]
    sources += [p.read_bytes() for p in REAL_FILES]
    for case in range(3000):
        source = sources[case % len(sources)]
        data = _damaged(source, rng)
        try:
            for r in iter_binary_events(data, Path("damaged.bin")):
                assert r.data == source[r.position : r.end_log_pos] or r.end_log_pos > len(source) or data[r.position : r.end_log_pos] == r.data
        except BinlogCorruptError as error:
            assert error.path == Path("damaged.bin") and 0 <= error.position <= len(data)


@pytest.mark.skipif(shutil.which("mariadb-binlog") is None, reason="mariadb-binlog is not installed")
def test_mariadb_binlog_reads_the_mariadb_flavor_file(tmp_path: Path) -> None:
    path = tmp_path / "master-bin.000001"
    path.write_bytes(_file(MARIADB, _events(MARIADB)))
    result = subprocess.run(["mariadb-binlog", "-vv", "--base64-output=decode-rows", str(path)], capture_output=True, check=False)
    stdout, stderr = result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace")
    assert result.returncode == 0 and not stderr, stderr
    out = stdout
    for expected in ("@1=-7", "@2=-56 (200)", "@6=-99.99", "@12='héllo'", "@18='2024:02:29'", "@20='2024-12-31 23:59:58'",
                     "SET INSERT_ID=42", "SET @@RAND_SEED1=123, @@RAND_SEED2=456", "Xid = 9", "@`d`:=-12.345",
                     "@22=2155", "@23=1900", "@24='-838:59:59'", "@25='-01:00:00.500' /* TIME(3) meta=3", "@26='838:59:59.999999'",
                     "@27='2024-02-29 10:11:12.123456' /* DATETIME(6) meta=6", "@29=2147483647.999 /* TIMESTAMP(3) meta=3"):
        assert expected in out, expected


def test_json_values_and_partial_updates_show_as_mysql_prints_them(capsys: pytest.CaptureFixture[str]) -> None:
    path = MYSQL_FILES / "json.binlog.000001"
    if not path.exists():
        pytest.skip("MySQL 8.0 test binlogs are not on this machine")
    assert main(["binlog", "show", "-v", "--base64-output=decode-rows", str(path)]) == 0
    out = capsys.readouterr().out
    assert """###   @2='{"age": 24, "data": "xxxxxxxxxx", "name": "Joe"}'""" in out
    assert "###   @2=JSON_REPLACE(@2, '$.age', 26)" in out


# Field::pack of the temporal types, per type and precision: the bytes (my_time_packed_to_binary,
# my_datetime_packed_to_binary, my_timestamp_to_binary) and the value read back from them.
@pytest.mark.parametrize(
    ("type_code", "fsp", "value", "packed"),
    [
        (c.MYSQL_TYPE_YEAR, 0, 2155, "ff"),
        (c.MYSQL_TYPE_YEAR, 0, 1901, "01"),
        (c.MYSQL_TYPE_YEAR, 0, 0, "00"),
        (c.MYSQL_TYPE_TIME2, 0, dt.timedelta(hours=838, minutes=59, seconds=59), "b46efb"),
        (c.MYSQL_TYPE_TIME2, 0, -dt.timedelta(seconds=1), "7fffff"),
        (c.MYSQL_TYPE_TIME2, 1, -dt.timedelta(seconds=1, microseconds=500000), "7ffffece"),
        (c.MYSQL_TYPE_TIME2, 3, -dt.timedelta(hours=1, microseconds=500000), "7fefffec78"),
        (c.MYSQL_TYPE_TIME2, 6, dt.timedelta(microseconds=1), "800000000001"),
        (c.MYSQL_TYPE_DATETIME2, 0, dt.datetime(2024, 2, 29, 10, 11, 12), "99b2baa2cc"),
        (c.MYSQL_TYPE_DATETIME2, 2, dt.datetime(2024, 2, 29, 10, 11, 12, 990000), "99b2baa2cc63"),
        (c.MYSQL_TYPE_DATETIME2, 6, dt.datetime(2024, 2, 29, 10, 11, 12, 123456), "99b2baa2cc01e240"),
        (c.MYSQL_TYPE_TIMESTAMP2, 0, dt.datetime(1970, 1, 1, 0, 0, 1), "00000001"),
        (c.MYSQL_TYPE_TIMESTAMP2, 3, dt.datetime(2038, 1, 19, 3, 14, 7, 999000), "7fffffff2706"),
    ],
)
def test_temporal_values_pack_as_the_servers_and_read_back(type_code: int, fsp: int, value: object, packed: str) -> None:
    data = pack_value(value, type_code, fsp)
    assert data.hex() == packed
    assert unpack_value(Cursor(data), type_code, fsp, None, None) == value


@pytest.mark.parametrize(
    ("column_type", "code", "metadata", "shown"),
    [
        (ColumnType("YEAR"), c.MYSQL_TYPE_YEAR, 0, "YEAR"),
        (ColumnType("TIME"), c.MYSQL_TYPE_TIME2, 0, "TIME(0)"),
        (ColumnType("TIME", scale=3), c.MYSQL_TYPE_TIME2, 3, "TIME(3)"),
        (ColumnType("DATETIME", scale=6), c.MYSQL_TYPE_DATETIME2, 6, "DATETIME(6)"),
        (ColumnType("TIMESTAMP", scale=3), c.MYSQL_TYPE_TIMESTAMP2, 3, "TIMESTAMP(3)"),
    ],
)
def test_temporal_columns_in_the_table_map_and_back(column_type: ColumnType, code: int, metadata: int, shown: str) -> None:
    assert c.binlog_type(column_type, 0) == (code, metadata)
    assert c.display_type(code, metadata, None) == shown
    assert c.master_column_type(code, metadata, None, None, None) == column_type
